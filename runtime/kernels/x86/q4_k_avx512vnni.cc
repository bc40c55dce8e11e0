// Q4_K x Q8_K with AVX-512 VNNI on the Q4_KX16 layout (16 weight rows interleaved, scales and
// mins unpacked at Create): per 32-value sub-block, 4 nibble loads give its 8 quads, and vpdpbusd
// against broadcast activation bytes gives exact int32 sums of level * x for 16 rows at once (see
// avx512_x16.h). The mins use the activation's 32-value sums, as in GGML.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx512_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q4_KX16 : x86::K45X16<kQ4_KX16TileBytes, internal::x16::Q4_K::kScalesAt> {
  struct Block : KBlock {
    using KBlock::KBlock;
    void Weights(int s, int part, __m512i* w) const {
      x86::Nibbles2(t + internal::x16::NibblesPart(s, part), w);
    }
  };
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ4_KAvx512Vnni, Encoding::kQ4_K, Isa::kAvx512Vnni, "q4_k_avx512vnni",
                         x86::QuantizeRowQ8_KXAvx512, Q8_KXRowBytes, RepackQ4_KX16, Q4_KX16RowBytes,
                         16, x86::X16Matmul<Q4_KX16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
