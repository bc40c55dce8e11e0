// llama.cpp parity on the first 4 layers of the random-weight TinyLlama-1.1B-shaped model (GQA
// 32/4, untied output.weight, llama-spm vocabulary; 1.2 GB f32). Host only: too big for
// qemu-aarch64.
#include "tests/parity/random_parity.h"

namespace edgeq {
namespace parity {
namespace {

TEST(TinyllamaL4Parity, LogitsAndGreedyEqualLlamaCpp) {
#if defined(__aarch64__)
  GTEST_SKIP()
      << "rand_tinyllama_l4 is too big to regenerate and run under qemu-aarch64 in a test's time "
         "(host only; stories15m and stories260K parity run on aarch64)";
#endif
  CheckRandomModelParity({"rand_tinyllama_l4",
                          "tinyllama-1.1b",
                          "vocab/ggml-vocab-llama-spm.gguf",
                          4,
                          0x8668d76c8fbe6dd9ull,
                          "ppl_ids_llama-spm.txt",
                          true,
                          {42410.0258}});
}

}  // namespace
}  // namespace parity
}  // namespace edgeq
