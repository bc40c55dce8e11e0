// One graph with the same weight matrix four ways side by side: Q4_0, Q6_K, Q8_0 (qmatmul) and
// f32 (XNNPACK fully-connected). Reports the memory of each weight and its error against f32.
#ifndef EDGEQ_EXAMPLES_MIXED_PRECISION_MIXED_PRECISION_H_
#define EDGEQ_EXAMPLES_MIXED_PRECISION_MIXED_PRECISION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace edgeq {
namespace examples {

struct MixedPrecisionRow {
  std::string encoding;  // "q4_0", "q6_k", "q8_0", "f32"
  std::string kernel;    // kernel the runtime picked
  int64_t weight_bytes = 0;
  double bits_per_weight = 0;
  double max_abs_error = 0;  // vs the f32 output
  double relative_rmse = 0;  // rmse / rms(f32 output)
};

struct MixedPrecisionOptions {
  int64_t m = 4;    // activation rows
  int64_t n = 96;   // output features
  int64_t k = 512;  // input features (Q6_K needs a multiple of 256)
  int num_threads = 2;
};

absl::StatusOr<std::vector<MixedPrecisionRow>> RunMixedPrecision(
    const MixedPrecisionOptions& options);

std::string FormatMixedPrecision(const std::vector<MixedPrecisionRow>& rows);

}  // namespace examples
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_MIXED_PRECISION_MIXED_PRECISION_H_
