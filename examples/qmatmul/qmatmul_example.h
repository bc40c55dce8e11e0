// The seed's example as a library: y = x · W^T with x [32, 64] of 0.5 and W [32, 64] of 0.15,
// once with f32 weights (XNNPACK fully-connected) and once with Q4_0 weights (qmatmul).
#ifndef EDGEQ_EXAMPLES_QMATMUL_QMATMUL_EXAMPLE_H_
#define EDGEQ_EXAMPLES_QMATMUL_QMATMUL_EXAMPLE_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace edgeq {
namespace examples {

struct QMatmulExampleResult {
  Tensor f32_result;       // f32 [32, 32]
  Tensor q4_0_result;      // f32 [32, 32]
  float max_abs_diff = 0;  // max |f32_result - q4_0_result|
  std::string model_dump;  // the qmatmul model's kernels
  std::string graph_dump;  // the qmatmul graph
};

absl::StatusOr<QMatmulExampleResult> RunQMatmulExample(int num_threads);

// The text the example binary prints.
std::string FormatQMatmulExample(const QMatmulExampleResult& result);

}  // namespace examples
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_QMATMUL_QMATMUL_EXAMPLE_H_
