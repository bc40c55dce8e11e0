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
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "llm/chat_template.h"
#include "llm/arch/arch_table.h"
#include "llm/random_model.h"
#include "tokenizer/tokenizer.h"

ABSL_FLAG(std::string, shape, "", "model shape (the usage message lists them)");
ABSL_FLAG(std::string, out, "", "output .gguf");
ABSL_FLAG(std::string, vocab, "", "a GGUF whose tokenizer.* keys (vocabulary) are copied");
ABSL_FLAG(std::string, hf_tokenizer, "",
          "a directory with a Hugging Face tokenizer.json (and tokenizer_config.json): its "
          "vocabulary (tokenizer::Tokenizer) and chat template are stored");
ABSL_FLAG(std::string, chat_template, "",
          "a file whose text is stored as tokenizer.chat_template (needs a vocabulary)");
ABSL_FLAG(bool, synthetic_vocab, false,
          "add a made-up SentencePiece vocabulary of the model's vocabulary size (no --vocab)");
ABSL_FLAG(int, layers, 0, "block count (0: the shape's)");
ABSL_FLAG(int, dim, 0, "embedding length (0: the shape's)");
ABSL_FLAG(int, heads, 0, "attention heads (0: the shape's)");
ABSL_FLAG(int, kv_heads, 0, "kv heads (0: the shape's)");
ABSL_FLAG(int, ffn, 0, "feed-forward length (0: the shape's)");
ABSL_FLAG(int, context, 0, "context length (0: the shape's)");
ABSL_FLAG(int, vocab_size, 0, "vocabulary without --vocab (0: the shape's)");
ABSL_FLAG(uint64_t, seed, 1, "random seed");
ABSL_FLAG(std::string, arch, "",
          "general.architecture and tensor layout (a row of llm/arch/arch_table.h; empty: the "
          "shape's; another name makes a llama-layout file loaders must refuse; for tests)");
ABSL_FLAG(int, head_dim, -1, "head dimension (-1: the shape's; 0: dim / heads)");
ABSL_FLAG(int, sliding_window, -1, "gemma3 sliding window (-1: the shape's; 0: none)");
ABSL_FLAG(int, shared_kv_layers, -1, "gemma4 shared-KV layers (-1: the shape's)");
ABSL_FLAG(int, experts, 0, "qwen3moe/lfm2moe expert count (0: the shape's)");

namespace edgeq {
namespace {

absl::Status Run() {
  if (absl::GetFlag(FLAGS_shape).empty() || absl::GetFlag(FLAGS_out).empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--shape and --out are required (shapes: %s)",
                        absl::StrJoin(llm::RandomModelPresetNames(), ", ")));
  }
  EDGEQ_ASSIGN_OR_RETURN(llm::RandomModelSpec s,
                         llm::RandomModelPreset(absl::GetFlag(FLAGS_shape)));
  auto over = [](int flag, int* field) {
    if (flag != 0) *field = flag;
  };
  over(absl::GetFlag(FLAGS_layers), &s.layers);
  over(absl::GetFlag(FLAGS_dim), &s.dim);
  over(absl::GetFlag(FLAGS_heads), &s.heads);
  over(absl::GetFlag(FLAGS_kv_heads), &s.kv_heads);
  over(absl::GetFlag(FLAGS_ffn), &s.ffn);
  over(absl::GetFlag(FLAGS_context), &s.context);
  over(absl::GetFlag(FLAGS_vocab_size), &s.vocab);
  over(absl::GetFlag(FLAGS_experts), &s.expert_count);
  s.seed = absl::GetFlag(FLAGS_seed);
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
  if (static_cast<int>(has_vocab) + static_cast<int>(absl::GetFlag(FLAGS_synthetic_vocab)) +
          static_cast<int>(!hf.empty()) >
      1) {
    return absl::InvalidArgumentError(
        "--vocab, --synthetic_vocab and --hf_tokenizer exclude each other");
  }
  std::string hf_template;
  if (!hf.empty()) {
    const std::string config = hf + "/tokenizer_config.json";
    const bool has_config = static_cast<bool>(std::ifstream(config));
    EDGEQ_ASSIGN_OR_RETURN(tokenizer::Tokenizer tok,
                           tokenizer::Tokenizer::FromHfTokenizerJson(hf + "/tokenizer.json",
                                                                     has_config ? config : ""));
    EDGEQ_RETURN_IF_ERROR(tok.ToGgufMetadata(&vocab));
    if (has_config) {
      absl::StatusOr<std::string> t = llm::ChatTemplate::TextFromTokenizerConfig(config);
      if (t.ok()) {
        hf_template = *t;
      } else if (!absl::IsNotFound(t.status())) {
        return t.status();
      }
    }
  } else if (has_vocab) {
    EDGEQ_ASSIGN_OR_RETURN(vocab, checkpoint::ReadGguf(absl::GetFlag(FLAGS_vocab)));
  } else if (absl::GetFlag(FLAGS_synthetic_vocab)) {
    EDGEQ_ASSIGN_OR_RETURN(vocab, llm::SyntheticSpmVocabulary(s.vocab));
  }
  const bool with_vocab = has_vocab || absl::GetFlag(FLAGS_synthetic_vocab) || !hf.empty();
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
  absl::SetProgramUsageMessage(absl::StrCat(
      "Write a random-weight f32 GGUF of a real decoder shape (",
      absl::StrJoin(edgeq::llm::arch::GgufNames(), ", "),
      ").\n"
      "  make_random_gguf --shape=NAME --out=PATH.gguf [--vocab=VOCAB.gguf | --synthetic_vocab |\n"
      "                   --hf_tokenizer=DIR] [--chat_template=FILE]\n"
      "                   [--layers=N]\n"
      "                   [--dim=N --heads=N --kv_heads=N --ffn=N --context=N --vocab_size=N]\n"
      "                   [--head_dim=N --sliding_window=N --arch=A --seed=S --experts=N]\n"
      "Shapes: ",
      absl::StrJoin(edgeq::llm::RandomModelPresetNames(), ", "), "."));
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    absl::FPrintF(stderr, "error: unexpected argument '%s'\n", rest[1]);
    return 2;
  }
  absl::Status s = edgeq::Run();
  if (!s.ok()) {
    absl::FPrintF(stderr, "error: %s\n", s.message());
    return 1;
  }
  return 0;
}
