// Op "ssm_conv" (ssm_conv.cc): the causal depthwise convolution with state against a double
// reference over a whole sequence run in blocks (the state carried from block to block, padding
// rows kept out of it), and its errors.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "runtime/ops/op_test_util.h"
#include "runtime/session.h"

namespace edgeq {
namespace op_test {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kC = 150, kK = 4;  // channels (more than one thread tile), taps

Graph ConvGraph(int64_t t) {
  Graph g("ssm_conv", {F32({t, kC}), F32({kK - 1, kC}), F32({kC, kK}), I32({1})});
  g.Output(ops::OpOutputs("ssm_conv", {g.Input(0), g.Input(1), g.Input(2), g.Input(3)}));
  return g;
}

struct Result {
  std::vector<float> y, state;
};

Result RunConv(const Graph& g, int threads, const Tensor& x, const Tensor& state, const Tensor& w,
               int n, absl::Status* status = nullptr) {
  SessionOptions options;
  options.num_threads = threads;
  InferenceSession session(options);
  absl::StatusOr<CompiledGraph> model = session.Load(g);
  EXPECT_TRUE(model.ok()) << model.status();
  const Tensor nt = Ints({1}, {n});
  const std::vector<NamedTensor> in = {
      {"input0", x}, {"input1", state}, {"input2", w}, {"input3", nt}};
  absl::StatusOr<TensorMap> out = model->Execute(in);
  if (status != nullptr) *status = out.status();
  if (!out.ok()) return {};
  absl::Span<const float> y = *out->Get("output0")->Values<float>();
  absl::Span<const float> s = *out->Get("output1")->Values<float>();
  return {std::vector<float>(y.begin(), y.end()), std::vector<float>(s.begin(), s.end())};
}

// Blocks of 5 (full), 5 (3 real rows, 2 padding rows of large values), 1, 4 (full) over a
// 13-token sequence: each real output row and the final state equal the double convolution over
// zeros ++ the sequence.
TEST(SsmConvOpTest, BlocksCarryTheStateAndSkipPadding) {
  const int64_t total = 13;
  const std::vector<float> seq = Random(total * kC, 7), w = Random(kC * kK, 8);
  const Tensor wt = Floats({kC, kK}, w);
  for (int threads : {1, 2}) {
    std::vector<float> state((kK - 1) * kC, 0.0f);
    int64_t done = 0;
    for (const auto& [t, n] :
         std::vector<std::pair<int64_t, int>>{{5, 5}, {5, 3}, {1, 1}, {4, 4}}) {
      std::vector<float> x(t * kC, 1000.0f);  // padding rows
      std::copy(seq.begin() + done * kC, seq.begin() + (done + n) * kC, x.begin());
      const Result r =
          RunConv(ConvGraph(t), threads, Floats({t, kC}, x), Floats({kK - 1, kC}, state), wt, n);
      ASSERT_EQ(r.y.size(), static_cast<size_t>(t * kC));
      std::vector<float> got(r.y.begin(), r.y.begin() + n * kC);
      std::vector<double> want;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t ch = 0; ch < kC; ++ch) {
          double sum = 0;
          for (int64_t j = 0; j < kK; ++j) {
            const int64_t p = done + i - (kK - 1) + j;  // position in the sequence
            if (p >= 0) sum += static_cast<double>(seq[p * kC + ch]) * w[ch * kK + j];
          }
          want.push_back(sum);
        }
      }
      ExpectClose(got, want, 1e-6);
      done += n;
      std::vector<double> want_state;
      for (int64_t p = done - (kK - 1); p < done; ++p) {
        for (int64_t ch = 0; ch < kC; ++ch) want_state.push_back(p >= 0 ? seq[p * kC + ch] : 0.0);
      }
      ExpectClose(r.state, want_state, 0.0);
      state = r.state;
    }
  }
}

// n = 0 keeps the state; the bad n values fail at Execute with the range named.
TEST(SsmConvOpTest, RealRowCount) {
  const std::vector<float> state = Random((kK - 1) * kC, 9);
  const Tensor x = Floats({2, kC}, Random(2 * kC, 10)), st = Floats({kK - 1, kC}, state);
  const Tensor w = Floats({kC, kK}, Random(kC * kK, 11));
  const Graph g = ConvGraph(2);
  EXPECT_EQ(RunConv(g, 1, x, st, w, 0).state, state);
  for (int bad : {-1, 3}) {
    absl::Status s;
    RunConv(g, 1, x, st, w, bad, &s);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("ssm_conv: real row count " + std::to_string(bad) +
                                       " is outside [0, 2]"));
  }
}

TEST(SsmConvOpTest, RefusesShapesAndTypes) {
  auto build = [](Graph& g) {
    ops::OpOutputs("ssm_conv", {g.Input(0), g.Input(1), g.Input(2), g.Input(3)});
  };
  absl::Status s = BuildStatus({F32({4, 8}), F32({2, 8}), F32({8, 4}), I32({1})}, build);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("expected weight [8, k >= 2] and state [k - 1, 8] for x "
                                     "[4, 8]; got weight [8, 4], state [2, 8]"));
  s = BuildStatus({F32({4, 8}), F32({3, 8}), F32({8, 4}), F32({1})}, build);
  EXPECT_THAT(s.message(), HasSubstr("n (the real rows) must be i32 [1]"));
  s = BuildStatus({I32({4, 8}), F32({3, 8}), F32({8, 4}), I32({1})}, build);
  EXPECT_THAT(s.message(), HasSubstr("x, state and weight must be plain f32"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
