// Q3_K x Q8_K, portable scalar (GGML's ggml_vec_dot_q3_K_q8_K generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// The 6-bit scale (0..63) of sub-block j (16 values) from Q3_K's 12 packed bytes.
inline int Q3Scale(const uint8_t* s, int j) {
  const int low = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
  return low | (((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4);
}

float DotQ3_K(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockQ3_K*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
    int32_t isum = 0;
    for (int half = 0; half < 2; ++half) {
      const uint8_t* q = bw[b].qs + 32 * half;
      for (int j = 0; j < 4; ++j) {
        // Values 128 half + 32 j + l: low bits at (q[l] >> 2 j), the 3rd bit in hmask[l] bit
        // 4 half + j; sub-blocks 8 half + 2 j + (l >= 16).
        const int shift = 2 * j;
        const uint8_t m = static_cast<uint8_t>(1u << (4 * half + j));
        const int8_t* y = bx[b].qs + 128 * half + 32 * j;
        const int g = 8 * half + 2 * j;
        int32_t s0 = 0, s1 = 0;
        for (int l = 0; l < 16; ++l) {
          s0 += y[l] * (((q[l] >> shift) & 3) - ((bw[b].hmask[l] & m) ? 0 : 4));
          s1 += y[l + 16] * (((q[l + 16] >> shift) & 3) - ((bw[b].hmask[l + 16] & m) ? 0 : 4));
        }
        isum += (Q3Scale(bw[b].scales, g) - 32) * s0 + (Q3Scale(bw[b].scales, g + 1) - 32) * s1;
      }
    }
    sum += blocks::Fp16ToFloat(bw[b].d) * bx[b].d * isum;
  }
  return sum;
}

}  // namespace

const KernelEntry kQ3_KGenericGemv = {
    Encoding::kQ3_K, Isa::kGeneric, Shape::kGemv, "q3_k_generic_gemv",  QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,       nullptr,      GenericGemv<DotQ3_K>, 16};
const KernelEntry kQ3_KGenericGemm = {
    Encoding::kQ3_K, Isa::kGeneric, Shape::kGemm, "q3_k_generic_gemm",  QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,       nullptr,      GenericGemm<DotQ3_K>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
