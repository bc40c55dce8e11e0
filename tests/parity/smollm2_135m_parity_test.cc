// llama.cpp parity on the random-weight SmolLM2-135M-shaped model (30 layers, GQA 9/3, rope base
// 1e5, tied output, gpt-2 vocabulary; 540 MB f32). Host only: too big for qemu-aarch64.
#include "tests/parity/random_parity.h"

namespace edgeq {
namespace parity {
namespace {

TEST(Smollm2135mParity, LogitsAndGreedyEqualLlamaCpp) {
#if defined(__aarch64__)
  GTEST_SKIP()
      << "rand_smollm2_135m is too big to regenerate and run under qemu-aarch64 in a test's time "
         "(host only; stories15m and stories260K parity run on aarch64)";
#endif
  CheckRandomModelParity({"rand_smollm2_135m",
                          "smollm2-135m",
                          "vocab/ggml-vocab-gpt-2.gguf",
                          0,
                          0x3fe3384cce499503ull,
                          "ppl_ids_gpt-2.txt",
                          false,
                          {64415.6208}});
}

}  // namespace
}  // namespace parity
}  // namespace edgeq
