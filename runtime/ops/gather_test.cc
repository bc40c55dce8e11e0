// Op "gather" (gather.cc): rows of an f32 and of a quantized (q8_0) table against the table's
// (decoded) rows, i32 and i64 indices; type errors and an index out of range at Execute.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "runtime/ops/op_test_util.h"
#include "runtime/session.h"

namespace edgeq {
namespace op_test {
namespace {

using ::testing::HasSubstr;

TEST(GatherOpTest, PicksRowsOfPlainAndQuantizedTables) {
  const std::vector<float> table = Random(5 * 32, 41);
  const std::vector<int32_t> idx = {4, 0, 4, 2};
  Graph g("gather", {I32({2, 2})});
  g.Output(ops::Gather(g.Constant(Floats({5, 32}, table)), g.Input(0)));
  std::vector<double> want;
  for (int32_t r : idx) want.insert(want.end(), &table[r * 32], &table[r * 32] + 32);
  ExpectClose(RunGraph(g, {Ints({2, 2}, idx)}), want, 0.0);

  const Tensor q = *Q8_0Encoding().Quantize(Floats({5, 32}, table));
  const Tensor decoded = *Q8_0Encoding().Dequantize(q);
  const absl::Span<const float> d = *decoded.Values<float>();
  Graph gq("gather_q8_0", {});
  gq.Output(
      ops::Gather(gq.Constant(q), gq.Constant(*Tensor::FromValues<int64_t>({4}, {4, 0, 4, 2}))));
  std::vector<double> want_q;
  for (int32_t r : idx) want_q.insert(want_q.end(), d.begin() + r * 32, d.begin() + r * 32 + 32);
  ExpectClose(RunGraph(gq, {}), want_q, 0.0);
}

TEST(GatherOpTest, RefusesTypesAndOutOfRangeIndices) {
  absl::Status s =
      BuildStatus({F32({4, 2}), F32({3})}, [](Graph& g) { ops::Gather(g.Input(0), g.Input(1)); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("gather(f32[4, 2], f32[3]): indices must be i32 or i64"));
  s = BuildStatus({F32({4}), I32({3})}, [](Graph& g) { ops::Gather(g.Input(0), g.Input(1)); });
  EXPECT_THAT(s.message(), HasSubstr("table must be [v, d]"));
  Graph g("gather", {F32({4, 2}), I32({2})});
  g.Output(ops::Gather(g.Input(0), g.Input(1)));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(g);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<TensorMap> out =
      model->Execute({{"input0", Floats({4, 2}, Random(8, 1))}, {"input1", Ints({2}, {1, 4})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(
      out.status().message(),
      HasSubstr("gather: index 4 (element 1 of the indices) is outside the table's 4 rows"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
