// Every microkernel entry, defined in its own file (one ISA x encoding per file).
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_KERNEL_LIST_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_KERNEL_LIST_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {

#define EDGEQ_DECLARE_KERNEL_PAIR(prefix) \
  extern const KernelEntry prefix##Gemv;  \
  extern const KernelEntry prefix##Gemm

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

EDGEQ_DECLARE_KERNEL_PAIR(kQ4_0Generic);
EDGEQ_DECLARE_KERNEL_PAIR(kQ8_0Generic);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_KGeneric);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_KGeneric);
EDGEQ_DECLARE_KERNEL_PAIR(kQ6_KGeneric);
EDGEQ_DECLARE_KERNEL_PAIR(kBf16Generic);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_1Generic);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_0Generic);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_1Generic);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4NlGeneric);
EDGEQ_DECLARE_KERNEL_PAIR(kF16Generic);
EDGEQ_DECLARE_KERNEL_PAIR(kQ2_KGeneric);
EDGEQ_DECLARE_KERNEL_PAIR(kQ3_KGeneric);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4XsGeneric);

#if defined(__x86_64__)
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_0Avx2);
EDGEQ_DECLARE_KERNEL_PAIR(kQ8_0Avx2);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_KAvx2);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_KAvx2);
EDGEQ_DECLARE_KERNEL_PAIR(kQ6_KAvx2);
EDGEQ_DECLARE_KERNEL_PAIR(kBf16Avx2);
EDGEQ_DECLARE_KERNEL_PAIR(kF16Avx2);
EDGEQ_DECLARE_KERNEL_PAIR(kF16Avx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4NlAvx2);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4NlAvx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_0Avx2);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_0Avx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_1Avx2);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_1Avx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_1Avx2);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_1Avx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ2_KAvx2);
EDGEQ_DECLARE_KERNEL_PAIR(kQ2_KAvx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ3_KAvx2);
EDGEQ_DECLARE_KERNEL_PAIR(kQ3_KAvx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4XsAvx2);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4XsAvx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_0AvxVnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ8_0AvxVnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_KAvxVnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_KAvxVnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ6_KAvxVnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_0Avx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ8_0Avx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_KAvx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_KAvx512Vnni);
EDGEQ_DECLARE_KERNEL_PAIR(kQ6_KAvx512Vnni);
#endif

#if defined(__aarch64__)
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_0Neon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ8_0Neon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_KNeon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_KNeon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ6_KNeon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_0Dotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kQ8_0Dotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_KDotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_KDotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kQ6_KDotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4NlNeon);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4NlDotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_1Neon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ4_1Dotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_0Neon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_0Dotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_1Neon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ5_1Dotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kF16Neon);
EDGEQ_DECLARE_KERNEL_PAIR(kBf16Neon);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4XsNeon);
EDGEQ_DECLARE_KERNEL_PAIR(kIq4XsDotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kQ2_KNeon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ2_KDotprod);
EDGEQ_DECLARE_KERNEL_PAIR(kQ3_KNeon);
EDGEQ_DECLARE_KERNEL_PAIR(kQ3_KDotprod);
// GEMM only (m = 1 has no pair of activation rows: the dotprod GEMVs run it).
extern const KernelEntry kQ4_KI8mmGemm;
extern const KernelEntry kQ5_KI8mmGemm;
extern const KernelEntry kQ6_KI8mmGemm;
extern const KernelEntry kQ4_0I8mmGemm;
extern const KernelEntry kQ8_0I8mmGemm;
extern const KernelEntry kIq4NlI8mmGemm;
extern const KernelEntry kQ5_0I8mmGemm;
extern const KernelEntry kQ4_1I8mmGemm;
extern const KernelEntry kQ5_1I8mmGemm;
#endif

#undef EDGEQ_DECLARE_KERNEL_PAIR  // (the EDGEQ_DEFINE_* macros stay: the kernel files use them)

// Every kernel compiled into this binary (for tests and benchmarks; some may need an ISA the CPU
// lacks: check IsaSupported before running one).
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
