#include "llm/argmax.h"

#include <algorithm>
#include <cstddef>

#if defined(__aarch64__)
#include <arm_neon.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace edgeq {
namespace llm {
namespace {

// The first index i with v[i] == m (one exists).
size_t FirstEqual(const float* v, size_t n, float m) {
  size_t i = 0;
#if defined(__aarch64__)
  const float32x4_t mv = vdupq_n_f32(m);
  for (; i + 16 <= n; i += 16) {
    const float32x4x4_t x = vld1q_f32_x4(v + i);
    const uint32x4_t e = vorrq_u32(vorrq_u32(vceqq_f32(x.val[0], mv), vceqq_f32(x.val[1], mv)),
                                   vorrq_u32(vceqq_f32(x.val[2], mv), vceqq_f32(x.val[3], mv)));
    if (vmaxvq_u32(e) != 0) break;
  }
#elif defined(__SSE2__)
  const __m128 mv = _mm_set1_ps(m);
  for (; i + 16 <= n; i += 16) {
    const __m128 e = _mm_or_ps(
        _mm_or_ps(_mm_cmpeq_ps(_mm_loadu_ps(v + i), mv), _mm_cmpeq_ps(_mm_loadu_ps(v + i + 4), mv)),
        _mm_or_ps(_mm_cmpeq_ps(_mm_loadu_ps(v + i + 8), mv),
                  _mm_cmpeq_ps(_mm_loadu_ps(v + i + 12), mv)));
    if (_mm_movemask_ps(e) != 0) break;
  }
#endif
  while (v[i] != m) ++i;
  return i;
}

}  // namespace

int ArgMax(absl::Span<const float> v) {
  const size_t n = v.size();
  if (n == 0 || v[0] != v[0]) return 0;  // empty, or NaN first: max_element keeps index 0
  // Pass 1: the maximum of the values that are not NaN (v[0] is one).
  float m = v[0];
  size_t i = 0;
#if defined(__aarch64__)
  // fmaxnm returns the number of a number and a NaN.
  float32x4_t a0 = vdupq_n_f32(m), a1 = a0, a2 = a0, a3 = a0;
  for (; i + 16 <= n; i += 16) {
    const float32x4x4_t x = vld1q_f32_x4(v.data() + i);
    a0 = vmaxnmq_f32(a0, x.val[0]);
    a1 = vmaxnmq_f32(a1, x.val[1]);
    a2 = vmaxnmq_f32(a2, x.val[2]);
    a3 = vmaxnmq_f32(a3, x.val[3]);
  }
  m = vmaxnmvq_f32(vmaxnmq_f32(vmaxnmq_f32(a0, a1), vmaxnmq_f32(a2, a3)));
#elif defined(__SSE2__)
  // maxps returns its second operand when either is NaN: the running maximum (never NaN) second.
  __m128 a0 = _mm_set1_ps(m), a1 = a0, a2 = a0, a3 = a0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm_max_ps(_mm_loadu_ps(v.data() + i), a0);
    a1 = _mm_max_ps(_mm_loadu_ps(v.data() + i + 4), a1);
    a2 = _mm_max_ps(_mm_loadu_ps(v.data() + i + 8), a2);
    a3 = _mm_max_ps(_mm_loadu_ps(v.data() + i + 12), a3);
  }
  a0 = _mm_max_ps(_mm_max_ps(a0, a1), _mm_max_ps(a2, a3));
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, a0);
  m = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
#endif
  for (; i < n; ++i) {
    if (m < v[i]) m = v[i];
  }
  // Pass 2: its first index (NaN equals nothing; +0 == -0).
  return static_cast<int>(FirstEqual(v.data(), n, m));
}

}  // namespace llm
}  // namespace edgeq
