// llama.cpp parity on the random-weight stories15M-shaped model (60 MB f32; runs under qemu too).
#include "tests/parity/random_parity.h"

namespace edgeq {
namespace parity {
namespace {

TEST(Stories15mParity, LogitsAndGreedyEqualLlamaCpp) {
  CheckRandomModelParity({"rand_stories15m",
                          "stories15m",
                          "vocab/ggml-vocab-llama-spm.gguf",
                          0,
                          0x9ef09c397366c6e8ull,
                          "ppl_ids_llama-spm.txt",
                          true,
                          {37099.6882, 38110.9328, 37680.2344, 38378.1711, 38338.3030}});
}

}  // namespace
}  // namespace parity
}  // namespace edgeq
