// llama.cpp parity on the random-weight stories15M-shaped model (60 MB f32; runs under qemu too).
#include "tests/parity/random_parity.h"

namespace edgeq {
namespace parity {
namespace {

TEST(Stories15mParity, LogitsAndGreedyEqualLlamaCpp) {
  CheckRandomModelParity({"rand_stories15m", "stories15m", "vocab/ggml-vocab-llama-spm.gguf", 0,
                          0x9ef09c397366c6e8ull});
}

}  // namespace
}  // namespace parity
}  // namespace edgeq
