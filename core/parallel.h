// The one rule for when work runs on the thread pool, and the one loop that splits it.
//
// Callers state how much work a call does in "element operations": one pass of simple float
// arithmetic over one element costs 1 (an add, a scale); heavier per-element work costs more
// (exp/silu/rsqrt ~ 4); SIMD multiply-adds of a matmul cost 1/16 each. Work below
// kMinParallelWork runs on the calling thread, because waking the pool (tens of microseconds)
// would cost more than it saves.
#ifndef EDGEQ_CORE_PARALLEL_H_
#define EDGEQ_CORE_PARALLEL_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "pthreadpool.h"

namespace edgeq {

// About 2^16 element operations (~20-60 us on one core) is where splitting starts to pay.
inline constexpr int64_t kMinParallelWork = int64_t{1} << 16;

// Element-operation cost of `macs` multiply-adds done by SIMD kernels (16 per element op).
constexpr int64_t MatmulWork(int64_t macs) { return macs / 16; }

// True when `work` (element operations) should be split over `pool`.
inline bool WorthParallel(pthreadpool_t pool, int64_t work) {
  return pool != nullptr && work >= kMinParallelWork && pthreadpool_get_threads_count(pool) > 1;
}

namespace parallel_internal {
template <typename F>
void Trampoline(void* context, size_t start, size_t count) {
  (*static_cast<F*>(context))(start, count);
}
}  // namespace parallel_internal

// Calls f(start, count) over [0, n) in tiles of `tile` items (the last may be shorter): on the
// pool when WorthParallel(pool, work), else once on the calling thread with (0, n).
template <typename F>
void ParallelFor(pthreadpool_t pool, size_t n, size_t tile, int64_t work, F&& f) {
  if (n == 0) return;
  if (tile == 0) tile = 1;
  if (n <= tile || !WorthParallel(pool, work)) {
    f(size_t{0}, n);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  pthreadpool_parallelize_1d_tile_1d(pool, &parallel_internal::Trampoline<Fn>, &f, n, tile, 0);
}

}  // namespace edgeq

#endif  // EDGEQ_CORE_PARALLEL_H_
