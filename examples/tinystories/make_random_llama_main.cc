// Writes a llama2.c checkpoint with seeded random weights, by default of stories15M's shape
// (dim 288, hidden 768, 6 layers, 6 heads, vocab 32000, seq 256): a stand-in for scale and speed
// measurements where the real 15M model cannot be downloaded. Weights ~ U(-a, a) with
// a = 1/sqrt(fan_in); norms are 1. A .bin is llama2.c's format (weights only); a .max or .gguf
// also carries a made-up vocabulary (llm::SyntheticSpmVocabulary), so that it runs without
// --tokenizer. Random weights write nonsense text: this is for sizes, speed and plumbing, not for
// stories.
//
//   bazel run //examples/tinystories:make_random_llama -- --out=/tmp/stories15M_random.bin
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/formats.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "examples/tinystories/random_llama.h"
#include "llm/random_model.h"

ABSL_FLAG(std::string, out, "stories15M_random.bin",
          "output: llama2.c .bin, or .max / .gguf with a synthetic vocabulary");
ABSL_FLAG(int, dim, 288, "model width");
ABSL_FLAG(int, hidden_dim, 768, "feed-forward width");
ABSL_FLAG(int, n_layers, 6, "layers");
ABSL_FLAG(int, n_heads, 6, "heads");
ABSL_FLAG(int, n_kv_heads, 6, "kv heads");
ABSL_FLAG(int, vocab_size, 32000, "vocabulary");
ABSL_FLAG(int, seq_len, 256, "context");
ABSL_FLAG(uint64_t, seed, 15, "random seed");

namespace edgeq {
namespace {

absl::Status Run() {
  tinystories::RandomLlamaOptions o;
  checkpoint::Llama2cConfig& c = o.shape;
  c.dim = absl::GetFlag(FLAGS_dim);
  c.hidden_dim = absl::GetFlag(FLAGS_hidden_dim);
  c.n_layers = absl::GetFlag(FLAGS_n_layers);
  c.n_heads = absl::GetFlag(FLAGS_n_heads);
  c.n_kv_heads = absl::GetFlag(FLAGS_n_kv_heads);
  c.vocab_size = absl::GetFlag(FLAGS_vocab_size);
  c.seq_len = absl::GetFlag(FLAGS_seq_len);
  o.seed = absl::GetFlag(FLAGS_seed);
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict d, tinystories::RandomLlama(o));
  const std::string out = absl::GetFlag(FLAGS_out);
  if (absl::EndsWith(out, ".bin")) {
    EDGEQ_RETURN_IF_ERROR(checkpoint::WriteLlama2c(d, out));
  } else {
    EDGEQ_ASSIGN_OR_RETURN(const checkpoint::TensorDict vocab,
                           llm::SyntheticSpmVocabulary(c.vocab_size));
    for (const std::string& key : vocab.MetadataKeys()) {
      d.SetMetadata(key, **vocab.GetMetadata(key));
    }
    EDGEQ_RETURN_IF_ERROR(checkpoint::WriteCheckpoint(d, out));
  }
  absl::FPrintF(stderr,
                "wrote %s (dim %d, hidden %d, %d layers, %d heads, %d kv heads, vocab %d, seq %d, "
                "shared classifier, %.1f MB f32)\n",
                absl::GetFlag(FLAGS_out), c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                c.vocab_size, c.seq_len, d.TotalBytes() / 1e6);
  return absl::OkStatus();
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Write a llama2.c model with seeded random weights (default: stories15M's shape).\n"
      "  make_random_llama [--out=PATH.bin|.max|.gguf] [--dim=N] [--hidden_dim=N] [--n_layers=N]\n"
      "                    [--n_heads=N] [--n_kv_heads=N] [--vocab_size=N] [--seq_len=N] "
      "[--seed=S]");
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
