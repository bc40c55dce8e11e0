// Q5_K x Q8_K with AVX-512 VNNI on the Q5_KX16 layout: as Q4_K (avx512_x16.h), with each level's
// 5th bits stored as one 64-byte bit plane per sub-block (a shift and a vpternlogd per vector).
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx512_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q5_KX16 : x86::K45X16<kQ5_KX16TileBytes, internal::x16::Q5_K::kScalesAt> {
  struct Block : KBlock {
    using KBlock::KBlock;
    void Weights(int s, int part, __m512i* w) const {
      x86::Nibbles2(t + internal::x16::NibblesPart(s, part), w);
      // Bit 4 part + i of byte p is the 5th bit of byte p of w[i]: moved to bit 4 and or'ed in
      // (vpternlogd 0xF8: a | (b & c)). 16-bit shifts by at most 4 leave bit 4 of every byte
      // coming from its own byte.
      const __m512i c16 = _mm512_set1_epi8(16);
      const __m512i h = _mm512_loadu_si512(t + internal::x16::Q5_K::kHighBits +
                                           internal::x16::Q5_K::kHighBitsPerSub * s);
      if (part == 0) {
        w[0] = _mm512_ternarylogic_epi32(w[0], _mm512_slli_epi16(h, 4), c16, 0xF8);
        w[1] = _mm512_ternarylogic_epi32(w[1], _mm512_slli_epi16(h, 3), c16, 0xF8);
        w[2] = _mm512_ternarylogic_epi32(w[2], _mm512_slli_epi16(h, 2), c16, 0xF8);
        w[3] = _mm512_ternarylogic_epi32(w[3], _mm512_slli_epi16(h, 1), c16, 0xF8);
      } else {
        w[0] = _mm512_ternarylogic_epi32(w[0], h, c16, 0xF8);
        w[1] = _mm512_ternarylogic_epi32(w[1], _mm512_srli_epi16(h, 1), c16, 0xF8);
        w[2] = _mm512_ternarylogic_epi32(w[2], _mm512_srli_epi16(h, 2), c16, 0xF8);
        w[3] = _mm512_ternarylogic_epi32(w[3], _mm512_srli_epi16(h, 3), c16, 0xF8);
      }
    }
  };
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ5_KAvx512Vnni, Encoding::kQ5_K, Isa::kAvx512Vnni, "q5_k_avx512vnni",
                         x86::QuantizeRowQ8_KXAvx512, Q8_KXRowBytes, RepackQ5_KX16, Q5_KX16RowBytes,
                         16, x86::X16Matmul<Q5_KX16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
