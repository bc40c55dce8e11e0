#include "runtime/ops/op_test_util.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/session.h"

namespace edgeq {
namespace op_test {

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return v;
}

Tensor Floats(Shape shape, const std::vector<float>& values) {
  return *Tensor::FromValues<float>(std::move(shape), values);
}

Tensor Ints(Shape shape, const std::vector<int32_t>& values) {
  return *Tensor::FromValues<int32_t>(std::move(shape), values);
}

std::vector<float> RunGraph(const Graph& graph, const std::vector<Tensor>& inputs, int threads) {
  EXPECT_TRUE(graph.status().ok()) << graph.status();
  SessionOptions options;
  options.num_threads = threads;
  InferenceSession session(options);
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return {};
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) names.push_back("input" + std::to_string(i));
  std::vector<NamedTensor> named;
  for (size_t i = 0; i < inputs.size(); ++i) named.emplace_back(names[i], inputs[i]);
  absl::StatusOr<TensorMap> out = model->Execute(named);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  absl::Span<const float> v = *out->Get("output0")->Values<float>();
  return std::vector<float>(v.begin(), v.end());
}

absl::Status BuildStatus(std::vector<TensorType> inputs, const std::function<void(Graph&)>& build) {
  Graph g("op", std::move(inputs));
  build(g);
  return g.status();
}

void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << "at " << i;
  }
}

}  // namespace op_test
}  // namespace edgeq
