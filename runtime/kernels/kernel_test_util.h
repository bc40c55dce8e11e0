// Test problems for the qmatmul kernels and the independent reference they are checked against:
// the weights dequantized by the codec (quantization/), the activations quantized as the kernel's
// activation format (blocks::GetBlockFormat(e).activation) does, products accumulated in double.
#ifndef EDGEQ_RUNTIME_KERNELS_KERNEL_TEST_UTIL_H_
#define EDGEQ_RUNTIME_KERNELS_KERNEL_TEST_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/isa.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace kernels {
namespace test_util {

struct Problem {
  internal::Encoding enc;
  int64_t m, n, k;
  std::vector<uint8_t> w;    // n rows in the GGML layout
  std::vector<float> w_deq;  // dequantized weights
  std::vector<float> x;      // m x k, stride k + 3 (exercises x_stride)
  int64_t x_stride;
};

// Gaussian weights (quantized by the encoding's codec) and activations.
Problem MakeProblem(internal::Encoding enc, int64_t m, int64_t n, int64_t k, uint32_t seed);

// The activations as the kernels see them: quantized to Q8_0 / Q8_1 / Q8_K blocks and
// dequantized (exact f32 values), plus the half-step of each element's block (the quantization
// error bound). f32 formats: x itself, no error.
void QuantizedActivations(internal::Encoding enc, const float* x, int64_t k, std::vector<float>* xq,
                          std::vector<float>* half_step);

// Runs `kernel` on p with `threads` threads; returns y (m x n, stride n + 1, the extra column
// -12345 unless the kernel wrote outside y).
std::vector<float> RunKernel(const QMatmulKernel& kernel, const Problem& p, int threads);

// The reference result of p, y[i * n + j] in double, and the tolerance of each output.
struct Reference {
  std::vector<double> y;
  std::vector<double> tolerance;  // |kernel - y| allowed (f32 rounding, see the .cc)
  std::vector<double> exact;      // W_deq . x with the unquantized x
  std::vector<double> quant_err;  // bound of |y - exact| from the activation quantization
};
Reference ComputeReference(const Problem& p);

// Checks y (RunKernel's layout, p.m rows) against `ref`: every output within its tolerance of the
// reference, and within the activation quantization bound of the unquantized product; nothing
// written outside y. `what` names the kernel in failures.
void ExpectMatchesReference(const Problem& p, const Reference& ref, const std::vector<float>& y,
                            const std::string& what);
inline void ExpectMatchesReference(const Problem& p, const std::vector<float>& y,
                                   const std::string& what) {
  ExpectMatchesReference(p, ComputeReference(p), y, what);
}

// The kernel list's entry named `name`, or null.
const internal::KernelEntry* FindKernelEntry(const std::string& name);

// Runs `check(entry, name)` on each kernel of `names` this CPU supports and restores the core
// schedule afterwards (SetCoreSchedule); how many ran.
template <typename Check>
int ForEachSupportedKernel(std::initializer_list<const char*> names, Check check) {
  const CoreSchedule before = ActiveCoreSchedule();
  int ran = 0;
  for (const char* n : names) {
    const std::string name = n;
    const internal::KernelEntry* e = FindKernelEntry(name);
    if (e == nullptr || !IsaSupported(e->isa)) continue;
    ++ran;
    check(e, name);
  }
  SetCoreSchedule(before);
  return ran;
}

// Runs entry e on m x n x k (seeded problem) under both core schedules (SetCoreSchedule: the
// out-of-order one, then the in-order one; the caller restores its own): a failure unless the
// outputs are the same bit for bit and within the reference's tolerance. Returns the outputs
// compared (0 after a failure).
int64_t ExpectSchedulesAgree(const internal::KernelEntry* e, int64_t m, int64_t n, int64_t k,
                             uint32_t seed);
// The same on a given problem (p.enc must be e's encoding).
int64_t ExpectSchedulesAgreeOn(const internal::KernelEntry* e, const Problem& p);

}  // namespace test_util
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_KERNEL_TEST_UTIL_H_
