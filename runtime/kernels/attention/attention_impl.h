// The attention algorithm once, templated on an ISA's vector operations V (ruy's way: each ISA
// file instantiates it with its own V, defined in that file's anonymous namespace, so no symbol is
// shared between files built with different -m flags). V provides:
//   static float Dot(const float* a, const float* b, int64_t n);
//   static void Axpy(float* y, float a, const float* x, int64_t n);   // y += a x
//   static void Scale(float* y, float a, int64_t n);                  // y *= a
//   static float Max(const float* x, int64_t n);
//   static float ExpSum(float* x, int64_t n, float max);  // x = exp(x - max); returns the sum
#ifndef EDGEQ_RUNTIME_KERNELS_ATTENTION_ATTENTION_IMPL_H_
#define EDGEQ_RUNTIME_KERNELS_ATTENTION_ATTENTION_IMPL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/attention/attention.h"

namespace edgeq {
namespace kernels {
namespace internal {

template <class V>
void AttendGroup(const AttentionArgs& a, int64_t kv_head, int64_t row, float* scores) {
  const int64_t hs = a.head_dim, rep = a.heads / a.kv_heads;
  const int64_t qpos = a.pos + row;
  // Visible positions: [lo, qpos].
  const int64_t lo = a.window > 0 ? std::max<int64_t>(0, qpos - a.window + 1) : 0;
  const int64_t cache_lo = std::min(lo, a.pos);
  const int64_t new_lo = std::max<int64_t>(lo - a.pos, 0);
  const int64_t n_cache = a.pos - cache_lo, n_new = row + 1 - new_lo;
  const int64_t n = n_cache + n_new;
  const float* kc = a.k_cache + (kv_head * a.ctx + cache_lo) * hs;
  const float* vc = a.v_cache + (kv_head * a.ctx + cache_lo) * hs;
  const float* kn = a.k_new + (kv_head * a.t + new_lo) * hs;
  const float* vn = a.v_new + (kv_head * a.t + new_lo) * hs;
  for (int64_t r = 0; r < rep; ++r) {
    const int64_t qh = kv_head * rep + r;
    const float* q = a.q + (row * a.heads + qh) * hs;
    float* s = scores + r * n;
    for (int64_t j = 0; j < n_cache; ++j) s[j] = a.scale * V::Dot(q, kc + j * hs, hs);
    for (int64_t j = 0; j < n_new; ++j) s[n_cache + j] = a.scale * V::Dot(q, kn + j * hs, hs);
    const float sum = V::ExpSum(s, n, V::Max(s, n));
    float* o = a.out + (row * a.heads + qh) * hs;
    std::memset(o, 0, static_cast<size_t>(hs) * sizeof(float));
    for (int64_t j = 0; j < n_cache; ++j) V::Axpy(o, s[j], vc + j * hs, hs);
    for (int64_t j = 0; j < n_new; ++j) V::Axpy(o, s[n_cache + j], vn + j * hs, hs);
    V::Scale(o, 1.0f / sum, hs);
  }
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ATTENTION_ATTENTION_IMPL_H_
