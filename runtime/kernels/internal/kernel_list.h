// Every microkernel entry, defined in its own file (one ISA x encoding per file) and listed once,
// in kernels.bzl (as the X-macro list kernel_list.inc), and the macros the files define them with.
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_KERNEL_LIST_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_KERNEL_LIST_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {

class QMatmulKernel;  // qmatmul.h

namespace internal {

// One KernelEntry `var` (its MatmulFn last, so that a template's commas need no parentheses).
#define EDGEQ_KERNEL_ENTRY(var, shape, full_name, encoding, isa, quantize, act_row_bytes, repack, \
                           repacked_row_bytes, tile_n, ...)                                       \
  const KernelEntry var = {encoding,    isa,           shape,  full_name,                         \
                           quantize,    act_row_bytes, repack, repacked_row_bytes,                \
                           __VA_ARGS__, tile_n}

// Defines prefix##Gemv and prefix##Gemm ("<name>_gemv", "<name>_gemm") for a kernel whose one
// MatmulFn serves every m: the two entries differ only in their shape class. The arguments are
// KernelEntry's fields after the shape and name, with tile_n before the MatmulFn. Use inside
// namespace edgeq::kernels::internal. (Row kernels: EDGEQ_DEFINE_ROWS_KERNEL_PAIR, row_driver.h.)
#define EDGEQ_DEFINE_KERNEL_PAIR(prefix, encoding, isa, name, quantize, act_row_bytes, repack, \
                                 repacked_row_bytes, tile_n, ...)                              \
  EDGEQ_KERNEL_ENTRY(prefix##Gemv, Shape::kGemv, name "_gemv", encoding, isa, quantize,        \
                     act_row_bytes, repack, repacked_row_bytes, tile_n, __VA_ARGS__);          \
  EDGEQ_KERNEL_ENTRY(prefix##Gemm, Shape::kGemm, name "_gemm", encoding, isa, quantize,        \
                     act_row_bytes, repack, repacked_row_bytes, tile_n, __VA_ARGS__)

// Every entry of kernels.bzl's table compiled for this architecture.
#define EDGEQ_KERNEL(symbol, encoding, isa, shape) extern const KernelEntry k##symbol;
#include "runtime/kernels/internal/kernel_list.inc"
#undef EDGEQ_KERNEL

// Every kernel compiled into this binary, in kernel_list.inc's order (the dispatcher's list; tests
// and benchmarks read it too; some may need an ISA the CPU lacks: check IsaSupported before
// running one).
absl::Span<const KernelEntry* const> AllKernels();

// A QMatmulKernel that runs `entry` for every m (tests and benchmarks only). The entry's ISA must
// be supported by this CPU: FailedPrecondition otherwise.
absl::StatusOr<std::unique_ptr<QMatmulKernel>> CreateForEntry(const KernelEntry* entry, int64_t n,
                                                              int64_t k,
                                                              absl::Span<const uint8_t> weights);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_KERNEL_LIST_H_
