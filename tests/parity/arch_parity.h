// The architecture parity cases' common part (arch_parity_test.cc, arch2026_parity_test.cc):
// a case (ArchCase), the bounds, and CheckArch, which regenerates the random-weight GGUF
// llama.cpp was run on, checks its bytes and compares logits, greedy tokens and perplexity with
// llama.cpp's (tests/parity/README.md).
#ifndef EDGEQ_TESTS_PARITY_ARCH_PARITY_H_
#define EDGEQ_TESTS_PARITY_ARCH_PARITY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "checkpoint/tensor_dict.h"
#include "llm/random_model.h"
#include "tests/parity/random_parity.h"

namespace edgeq {
namespace parity {

// f32 logits: max |edgeq - llama.cpp| / max |llama.cpp| (issue 16: 1e-4), except gemma3 (3e-4):
// ggml computes its GeGLU through an fp16 table (llm::GeluTanh), where 1e-7 differences of
// summation order flip single activations by an fp16 step; llama.cpp's own batch and
// token-by-token logits differ by 6.0e-5 (tiny_gemma3) and 1.5e-4 (rand_gemma3_l6) for this
// reason (sidecars); edgeq's differ from them by 6.4e-5 / 1.8e-4 (host) and 1.9e-5 (tiny,
// qemu-aarch64), and by up to 1.5e-4 with the masked-matmul attention edgeq had before.
inline constexpr double kMaxRelativeLogitDifferenceGemma3 = 3e-4;
// gemma4 (1e-3): the same fp16 GELU table, also in each layer's per-layer-embedding gate;
// llama.cpp's own batch and token-by-token logits differ by 3.2e-4 (tiny_gemma4) and 3.9e-4
// (rand_gemma4_e2b_l6). With GELU computed exactly on both sides (a ggml built without
// GGML_GELU_FP16; the exact_gelu cases) the difference is 1e-4 at most, as for the others.
inline constexpr double kMaxRelativeLogitDifferenceGemma4 = 1e-3;

struct ArchCase {
  const char* name;   // testdata folder
  const char* shape;  // make_random_gguf --shape
  // Overrides (0: the shape's; head_dim and window -1: the shape's).
  int layers, dim, heads, kv_heads, head_dim, ffn, window;
  int vocab;       // --vocab_size with --synthetic_vocab
  uint64_t xxh3;   // of the file llama.cpp read
  bool host_only;  // too big for qemu
  // llama-perplexity -c 128 (f32 KV cache) on the file: running perplexity after each chunk of
  // testdata/ppl_text.txt (token ids in testdata/<ppl_ids>); empty: not recorded.
  const char* ppl_ids = nullptr;
  std::vector<double> ppl = {};
  double max_logit_difference = kMaxRelativeLogitDifference;
  const char* stem = "logits_f32";  // the reference files in testdata/<name>/
  int context_length = 128;         // edgeq's KV cache (>= refdump's n_ctx)
  int shared_kv_layers = -1;        // gemma4 (-1: the shape's)
  // GELU computed exactly (ModelOptions::gelu_fp16_table false), against a llama.cpp whose ggml
  // was built without GGML_GELU_FP16 (tests/parity/README.md, gemma4).
  bool exact_gelu = false;
  int experts = 0;  // qwen3moe/lfm2moe expert count (0: the shape's)
};

// The case's f32 model as RandomModel makes it.
absl::StatusOr<checkpoint::TensorDict> MakeModel(const ArchCase& c, llm::RandomModelSpec* spec_out);
// Regenerates, checks and compares the case (GTEST_SKIP on aarch64 for host_only cases).
void CheckArch(const ArchCase& c);

// testdata/<c.name>/rules_<type>.txt: the type llama-quantize gave each tensor of the case's file
// for its `type` argument, as `edgeq quantize --rules` reads them.
absl::StatusOr<std::string> ReadQuantizeRules(const ArchCase& c, const char* type);
// The case's f32 model quantized by `rules_text` (llama-quantize's per-tensor types for `type`);
// expects its tensor data to be llama-quantize's (TensorDataXxh3 `tensor_xxh3`, a test failure
// naming both hashes otherwise).
absl::StatusOr<checkpoint::TensorDict> QuantizeAsLlamaQuantize(const ArchCase& c, const char* type,
                                                               const std::string& rules_text,
                                                               uint64_t tensor_xxh3);

// The token ids of testdata/ppl_text.txt in the made-up 512-piece vocabulary.
inline constexpr char kIds[] = "ppl_ids_synthetic512.txt";

}  // namespace parity
}  // namespace edgeq

#endif  // EDGEQ_TESTS_PARITY_ARCH_PARITY_H_
