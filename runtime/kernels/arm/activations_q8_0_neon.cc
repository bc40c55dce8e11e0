// The NEON Q8_0S / Q8_1S row and Q8_0P / Q8_1P pair quantizers of the ARM kernels
// (activations_neon.h), one definition each. Built with -fno-schedule-insns (runtime/kernels/BUILD,
// :arm_activations_q8_0), the flags the dotprod and i8mm kernel files built their own copies with:
// a few instructions per row fewer than GCC's default scheduling (benchmarks/arm_sim counts).
#include <arm_neon.h>

#include <cmath>
#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
namespace {

// x rounded to fp16 and back with the hardware conversion (FCVT, round to nearest even: the same
// value as blocks::Fp16ToFloat(blocks::FloatToFp16(x)) for every non-NaN x, in 2 instructions).
inline float RoundToFp16(float x) { return static_cast<float>(static_cast<__fp16>(x)); }

// One block of 32: writes the values, returns the f32 (not fp16-rounded) scale and the sum.
inline float QuantizeBlockQ8_0Neon(const float* x, int8_t* qs, int32_t* sum) {
  float32x4_t v[8];
  float32x4_t m = vdupq_n_f32(0.0f);
  for (int i = 0; i < 8; ++i) {
    v[i] = vld1q_f32(x + 4 * i);
    m = vmaxq_f32(m, vabsq_f32(v[i]));
  }
  const float d = vmaxvq_f32(m) / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  if (std::isinf(id)) {  // a subnormal scale: GGML's loop writes zeros (as the portable one)
    vst1q_s8(qs, vdupq_n_s8(0));
    vst1q_s8(qs + 16, vdupq_n_s8(0));
    *sum = 0;
    return d;
  }
  int32x4_t q[8];
  int32x4_t s = vdupq_n_s32(0);
  for (int i = 0; i < 8; ++i) {
    q[i] = vcvtaq_s32_f32(vmulq_n_f32(v[i], id));  // roundf: to nearest, ties away from zero
    s = vaddq_s32(s, q[i]);
  }
  const int16x8_t h0 = vcombine_s16(vqmovn_s32(q[0]), vqmovn_s32(q[1]));
  const int16x8_t h1 = vcombine_s16(vqmovn_s32(q[2]), vqmovn_s32(q[3]));
  const int16x8_t h2 = vcombine_s16(vqmovn_s32(q[4]), vqmovn_s32(q[5]));
  const int16x8_t h3 = vcombine_s16(vqmovn_s32(q[6]), vqmovn_s32(q[7]));
  vst1q_s8(qs, vcombine_s8(vqmovn_s16(h0), vqmovn_s16(h1)));
  vst1q_s8(qs + 16, vcombine_s8(vqmovn_s16(h2), vqmovn_s16(h3)));
  *sum = vaddvq_s32(s);
  return d;
}

// A Q8_0S row (qs, fp16-rounded d, sums); s (may be null) gets Q8_1's s = fp16(d * sum) per block.
inline void QuantizeRowQ8_0SNeonImpl(const float* x, int64_t k, uint8_t* out, float* s) {
  const int64_t nb = k / 32, nbp = Q8_0SPaddedBlocks(k);
  int8_t* qs = reinterpret_cast<int8_t*>(out);
  float* d = reinterpret_cast<float*>(out + nbp * 32);
  int32_t* sum = reinterpret_cast<int32_t*>(out + nbp * 36);
  for (int64_t b = 0; b < nb; ++b) {
    const float db = QuantizeBlockQ8_0Neon(x + 32 * b, qs + 32 * b, &sum[b]);
    d[b] = RoundToFp16(db);
    if (s != nullptr) s[b] = RoundToFp16(static_cast<float>(sum[b]) * db);
  }
  if (s != nullptr) {
    for (int64_t b = nb; b < nbp; ++b) s[b] = 0.0f;
  }
  ZeroPadBlocksQ8_0S(k, out);
}

// Q8_0P / Q8_1P (kernel_api.h): two rows (x1 null: zeros) interleaved 8 values at a time, with
// {d0, d0, d1, d1} (and {s0, s0, s1, s1}) after each record's 64 values.
template <bool kWithS>
inline void QuantizePairNeon(const float* x0, const float* x1, int64_t k, uint8_t* out) {
  constexpr int64_t kRecord = kWithS ? kQ8_1PRecordBytes : kQ8_0PRecordBytes;
  for (int64_t b = 0; b < k / 32; ++b) {
    int8_t q[2][32] = {};
    float d[2] = {0.0f, 0.0f}, s[2] = {0.0f, 0.0f};
    for (int r = 0; r < 2; ++r) {
      const float* x = r == 0 ? x0 : x1;
      if (x == nullptr) continue;
      int32_t sum;
      const float db = QuantizeBlockQ8_0Neon(x + 32 * b, q[r], &sum);
      d[r] = RoundToFp16(db);
      if (kWithS) s[r] = RoundToFp16(static_cast<float>(sum) * db);
    }
    uint8_t* rec = out + b * kRecord;
    for (int h = 0; h < 2; ++h) {  // values 16 h .. 16 h + 15 of both rows
      const int64x2_t a = vreinterpretq_s64_s8(vld1q_s8(q[0] + 16 * h));
      const int64x2_t c = vreinterpretq_s64_s8(vld1q_s8(q[1] + 16 * h));
      vst1q_s8(reinterpret_cast<int8_t*>(rec + 32 * h), vreinterpretq_s8_s64(vzip1q_s64(a, c)));
      vst1q_s8(reinterpret_cast<int8_t*>(rec + 32 * h + 16),
               vreinterpretq_s8_s64(vzip2q_s64(a, c)));
    }
    const float32x2_t dv = vld1_f32(d);
    vst1q_f32(reinterpret_cast<float*>(rec + 64),
              vzip1q_f32(vcombine_f32(dv, dv), vcombine_f32(dv, dv)));
    if (kWithS) {
      const float32x2_t sv = vld1_f32(s);
      vst1q_f32(reinterpret_cast<float*>(rec + 80),
                vzip1q_f32(vcombine_f32(sv, sv), vcombine_f32(sv, sv)));
    }
  }
}

}  // namespace

void QuantizeRowQ8_0SNeon(const float* x, int64_t k, uint8_t* out) {
  QuantizeRowQ8_0SNeonImpl(x, k, out, nullptr);
}

void QuantizeRowQ8_1SNeon(const float* x, int64_t k, uint8_t* out) {
  QuantizeRowQ8_0SNeonImpl(x, k, out + 4 * Q8_0SPaddedBlocks(k), reinterpret_cast<float*>(out));
}

void QuantizePairQ8_0PNeon(const float* x0, const float* x1, int64_t k, uint8_t* out) {
  QuantizePairNeon<false>(x0, x1, k, out);
}

void QuantizePairQ8_1PNeon(const float* x0, const float* x1, int64_t k, uint8_t* out) {
  QuantizePairNeon<true>(x0, x1, k, out);
}

}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
