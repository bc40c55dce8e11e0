// Writes a random-weight f32 GGUF of a real Llama-family shape, with the metadata llama.cpp's
// converter writes and, optionally, the vocabulary of another GGUF (so llama.cpp loads it too).
//
//   make_random_gguf --shape=smollm2-135m --vocab=ggml-vocab-gpt-2.gguf --out=smollm2.gguf
//   make_random_gguf --shape=llama-3.2-1b --layers=2 --vocab=V.gguf --out=l32.gguf
//   make_random_gguf --shape=stories15m --dim=64 --heads=4 --kv_heads=2 --ffn=96 --out=t.gguf
#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "llm/arch/arch_table.h"
#include "llm/chat_template.h"
#include "llm/random_model.h"
#include "llm/tools/random_model_flags.h"
#include "tokenizer/tokenizer.h"

ABSL_FLAG(std::string, hf_tokenizer, "",
          "a directory with a Hugging Face tokenizer.json (and tokenizer_config.json): its "
          "vocabulary (tokenizer::Tokenizer) and chat template are stored");
ABSL_FLAG(std::string, chat_template, "",
          "a file whose text is stored as tokenizer.chat_template (needs a vocabulary)");
ABSL_FLAG(int, dim, 0, "embedding length (0: the shape's)");
ABSL_FLAG(int, heads, 0, "attention heads (0: the shape's)");
ABSL_FLAG(int, kv_heads, 0, "kv heads (0: the shape's)");
ABSL_FLAG(int, ffn, 0, "feed-forward length (0: the shape's)");
ABSL_FLAG(int, context, 0, "context length (0: the shape's)");
ABSL_FLAG(std::string, arch, "",
          "general.architecture and tensor layout (a row of llm/arch/arch_table.h; empty: the "
          "shape's; another name makes a llama-layout file loaders must refuse; for tests)");
ABSL_FLAG(int, head_dim, -1, "head dimension (-1: the shape's; 0: dim / heads)");
ABSL_FLAG(int, sliding_window, -1, "gemma3 sliding window (-1: the shape's; 0: none)");
ABSL_FLAG(int, shared_kv_layers, -1, "gemma4 shared-KV layers (-1: the shape's)");
ABSL_FLAG(int, experts, 0, "qwen3moe/lfm2moe expert count (0: the shape's)");

namespace edgeq {
namespace {

// The vocabulary of the Hugging Face tokenizer in directory `hf` into *vocab, and its chat
// template (empty if tokenizer_config.json has none).
absl::StatusOr<std::string> HfVocabulary(const std::string& hf, checkpoint::TensorDict* vocab) {
  const std::string config = hf + "/tokenizer_config.json";
  const bool has_config = static_cast<bool>(std::ifstream(config));
  EDGEQ_ASSIGN_OR_RETURN(
      tokenizer::Tokenizer tok,
      tokenizer::Tokenizer::FromHfTokenizerJson(hf + "/tokenizer.json", has_config ? config : ""));
  EDGEQ_RETURN_IF_ERROR(tok.ToGgufMetadata(vocab));
  if (!has_config) return std::string();
  absl::StatusOr<std::string> t = llm::ChatTemplate::TextFromTokenizerConfig(config);
  if (absl::IsNotFound(t.status())) return std::string();
  return t;
}

absl::Status Run() {
  EDGEQ_RETURN_IF_ERROR(llm::tools::CheckShapeAndOut(llm::RandomModelPresetNames()));
  EDGEQ_ASSIGN_OR_RETURN(llm::RandomModelSpec s,
                         llm::RandomModelPreset(absl::GetFlag(FLAGS_shape)));
  auto over = [](int flag, int* field) {
    if (flag != 0) *field = flag;
  };
  over(absl::GetFlag(FLAGS_dim), &s.dim);
  over(absl::GetFlag(FLAGS_heads), &s.heads);
  over(absl::GetFlag(FLAGS_kv_heads), &s.kv_heads);
  over(absl::GetFlag(FLAGS_ffn), &s.ffn);
  over(absl::GetFlag(FLAGS_context), &s.context);
  over(absl::GetFlag(FLAGS_experts), &s.expert_count);
  llm::tools::ApplyShapeFlags(&s.layers, &s.vocab, &s.seed);
  if (!absl::GetFlag(FLAGS_arch).empty()) s.architecture = absl::GetFlag(FLAGS_arch);
  if (absl::GetFlag(FLAGS_head_dim) >= 0) s.head_dim = absl::GetFlag(FLAGS_head_dim);
  if (absl::GetFlag(FLAGS_shared_kv_layers) >= 0) {
    s.shared_kv_layers = absl::GetFlag(FLAGS_shared_kv_layers);
  }
  if (absl::GetFlag(FLAGS_sliding_window) >= 0) {
    s.sliding_window = absl::GetFlag(FLAGS_sliding_window);
  }
  checkpoint::TensorDict vocab;
  const bool has_vocab = !absl::GetFlag(FLAGS_vocab).empty();
  const std::string hf = absl::GetFlag(FLAGS_hf_tokenizer);
  if (!hf.empty() && (has_vocab || absl::GetFlag(FLAGS_synthetic_vocab))) {
    return absl::InvalidArgumentError(
        "--vocab, --synthetic_vocab and --hf_tokenizer exclude each other");
  }
  std::string hf_template;
  bool with_vocab = !hf.empty();
  if (!hf.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(hf_template, HfVocabulary(hf, &vocab));
  } else {
    EDGEQ_ASSIGN_OR_RETURN(with_vocab, llm::tools::VocabularyFromFlags(s.vocab, &vocab));
  }
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict d,
                         llm::RandomModel(s, with_vocab ? &vocab : nullptr));
  if (!hf_template.empty()) {
    d.SetMetadata("tokenizer.chat_template", checkpoint::MetadataValue::String(hf_template));
  }
  if (!absl::GetFlag(FLAGS_chat_template).empty()) {
    if (!with_vocab) {
      return absl::InvalidArgumentError(
          "--chat_template needs --vocab, --synthetic_vocab or --hf_tokenizer");
    }
    std::ifstream in(absl::GetFlag(FLAGS_chat_template), std::ios::binary);
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat("--chat_template: cannot open '", absl::GetFlag(FLAGS_chat_template), "'"));
    }
    std::stringstream text;
    text << in.rdbuf();
    d.SetMetadata("tokenizer.chat_template", checkpoint::MetadataValue::String(text.str()));
  }
  EDGEQ_ASSIGN_OR_RETURN(int64_t n_vocab, d.GetInt(s.architecture + ".vocab_size"));
  EDGEQ_RETURN_IF_ERROR(checkpoint::WriteGguf(d, absl::GetFlag(FLAGS_out)));
  absl::FPrintF(
      stderr,
      "wrote %s: %s shape (%s), dim %d, %d layers, %d heads, %d kv heads, ffn %d, vocab %d%s, "
      "context %d, rope base %g%s, %s output, %.1f MB f32\n",
      absl::GetFlag(FLAGS_out), s.name, s.architecture, s.dim, s.layers, s.heads, s.kv_heads, s.ffn,
      n_vocab, has_vocab ? " (from --vocab)" : (hf.empty() ? "" : " (from --hf_tokenizer)"),
      s.context, s.rope_base, s.llama3_rope ? " + llama3 rope_freqs" : "",
      s.tied ? "tied" : "untied", d.TotalBytes() / 1e6);
  return absl::OkStatus();
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  return edgeq::llm::tools::RandomModelToolMain(
      argc, argv,
      absl::StrCat(
          "Write a random-weight f32 GGUF of a real decoder shape (",
          absl::StrJoin(edgeq::llm::arch::GgufNames(), ", "),
          ").\n"
          "  make_random_gguf --shape=NAME --out=PATH.gguf [--vocab=VOCAB.gguf | --synthetic_vocab "
          "|\n"
          "                   --hf_tokenizer=DIR] [--chat_template=FILE]\n"
          "                   [--layers=N]\n"
          "                   [--dim=N --heads=N --kv_heads=N --ffn=N --context=N --vocab_size=N]\n"
          "                   [--head_dim=N --sliding_window=N --arch=A --seed=S --experts=N]\n"
          "Shapes: ",
          absl::StrJoin(edgeq::llm::RandomModelPresetNames(), ", "), "."),
      edgeq::Run);
}
