// Helpers of the op tests (runtime/ops/<op>_test.cc): build a graph, run it on a session with 1
// or 2 threads, and compare with a double-precision reference written in the test.
#ifndef EDGEQ_RUNTIME_OPS_OP_TEST_UTIL_H_
#define EDGEQ_RUNTIME_OPS_OP_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/ops.h"

namespace edgeq {
namespace op_test {

inline TensorType F32(Shape s) { return TensorType(DType::kFloat32, std::move(s)); }
inline TensorType I32(Shape s) { return TensorType(DType::kInt32, std::move(s)); }

// n values in [-1, 1), deterministic in `seed`.
std::vector<float> Random(int64_t n, uint32_t seed);
Tensor Floats(Shape shape, const std::vector<float>& values);
Tensor Ints(Shape shape, const std::vector<int32_t>& values);

// Loads `graph` on a session of `threads` threads, runs it on input0, input1, ... and returns
// output0 as floats (a test failure and an empty vector on error).
std::vector<float> RunGraph(const Graph& graph, const std::vector<Tensor>& inputs, int threads = 1);

// The status a graph of `inputs` records when `build` adds the op under test.
absl::Status BuildStatus(std::vector<TensorType> inputs, const std::function<void(Graph&)>& build);

// |got[i] - want[i]| <= tol * max(1, |want[i]|) for every i.
void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, double tol);

}  // namespace op_test
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_OPS_OP_TEST_UTIL_H_
