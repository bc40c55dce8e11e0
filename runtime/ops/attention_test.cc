// Op "attention" (attention.cc): causal and sliding-window attention over an f32 cache and
// the block's rows against a double reference, 1 and 2 threads; the kv_cache attribute; shape,
// position and attribute errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
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

// Row i of the block (position pos + i), head h: softmax(scale * q.k) . v over the visible
// positions (cache rows below pos, the block's rows from pos on).
std::vector<double> Reference(const std::vector<float>& q, const std::vector<float>& kc,
                              const std::vector<float>& vc, const std::vector<float>& kn,
                              const std::vector<float>& vn, int64_t t, int64_t heads, int64_t kvh,
                              int64_t hs, int64_t ctx, int64_t pos, double scale, int64_t window) {
  std::vector<double> out(t * heads * hs, 0.0);
  for (int64_t i = 0; i < t; ++i) {
    const int64_t p = pos + i;
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t g = h / (heads / kvh);
      auto key = [&](int64_t j) {
        return j < pos ? &kc[(g * ctx + j) * hs] : &kn[((j - pos) * kvh + g) * hs];
      };
      auto value = [&](int64_t j) {
        return j < pos ? &vc[(g * ctx + j) * hs] : &vn[((j - pos) * kvh + g) * hs];
      };
      const int64_t first = window > 0 ? std::max<int64_t>(0, p - window + 1) : 0;
      std::vector<double> s;
      double mx = -1e300, sum = 0;
      for (int64_t j = first; j <= p; ++j) {
        double d = 0;
        for (int64_t l = 0; l < hs; ++l) d += double{q[(i * heads + h) * hs + l]} * key(j)[l];
        s.push_back(scale * d);
        mx = std::max(mx, s.back());
      }
      for (double& v : s) sum += (v = std::exp(v - mx));
      for (int64_t j = first; j <= p; ++j) {
        for (int64_t l = 0; l < hs; ++l) {
          out[(i * heads + h) * hs + l] += s[j - first] / sum * value(j)[l];
        }
      }
    }
  }
  return out;
}

TEST(AttentionOpTest, MatchesDoubleReference) {
  const int64_t t = 6, heads = 4, kvh = 2, hs = 16, ctx = 12, pos = 3;
  const std::vector<float> q = Random(t * heads * hs, 31), kc = Random(kvh * ctx * hs, 32),
                           vc = Random(kvh * ctx * hs, 33), kn = Random(t * kvh * hs, 34),
                           vn = Random(t * kvh * hs, 35);
  std::vector<int32_t> positions(t);
  for (int64_t i = 0; i < t; ++i) positions[i] = static_cast<int32_t>(pos + i);
  for (int64_t window : {0, 4}) {
    Graph g("attention", {F32({t, heads, hs}), F32({kvh, ctx, hs}), F32({kvh, ctx, hs}),
                          F32({t, kvh, hs}), F32({t, kvh, hs}), I32({t})});
    g.Output(ops::Attention(g.Input(0), g.Input(1), g.Input(2), g.Input(3), g.Input(4), g.Input(5),
                            0.25f, window));
    const std::vector<double> want =
        Reference(q, kc, vc, kn, vn, t, heads, kvh, hs, ctx, pos, 0.25, window);
    for (int threads : {1, 2}) {
      ExpectClose(RunGraph(g,
                           {Floats({t, heads, hs}, q), Floats({kvh, ctx, hs}, kc),
                            Floats({kvh, ctx, hs}, vc), Floats({t, kvh, hs}, kn),
                            Floats({t, kvh, hs}, vn), Ints({t}, positions)},
                           threads),
                  want, 1e-5);
    }
  }
}

TEST(AttentionOpTest, KvCacheTypeIsATypedAttribute) {
  const TensorType u8(DType::kUInt8, {2, 6, 34});
  Graph g("attention", {F32({3, 4, 32}), u8, u8, F32({3, 2, 32}), F32({3, 2, 32}), I32({3})});
  g.Output(ops::Attention(g.Input(0), g.Input(1), g.Input(2), g.Input(3), g.Input(4), g.Input(5),
                          0.125f, 2));
  ASSERT_TRUE(g.status().ok()) << g.status();
  EXPECT_THAT(g.ToString(), HasSubstr("{scale=0.125, window=2, kv_cache=q8_0}"));
  // Declared f32 over u8 caches, or an unknown type: refused.
  absl::Status s = BuildStatus(
      {F32({3, 4, 32}), u8, u8, F32({3, 2, 32}), F32({3, 2, 32}), I32({3})}, [](Graph& g) {
        std::vector<Value> in;
        for (int i = 0; i < 6; ++i) in.push_back(g.Input(i));
        ops::Op("attention", in, {{"scale", 0.5}, {"kv_cache", std::string("f32")}});
      });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("k_cache and v_cache both plain f32, both q8_0 rows (u8) or both f16"));
  s = BuildStatus({F32({3, 4, 32}), u8, u8, F32({3, 2, 32}), F32({3, 2, 32}), I32({3})},
                  [](Graph& g) {
                    std::vector<Value> in;
                    for (int i = 0; i < 6; ++i) in.push_back(g.Input(i));
                    ops::Op("attention", in, {{"kv_cache", std::string("q4_0")}});
                  });
  EXPECT_THAT(s.message(),
              HasSubstr("attention: attribute kv_cache is \"q4_0\", expected f32, q8_0 or f16"));
  // f16 caches: kv_cache=f16; declared q8_0 over them, refused.
  const TensorType f16(DType::kFloat16, {2, 6, 32});
  Graph h("attention", {F32({3, 4, 32}), f16, f16, F32({3, 2, 32}), F32({3, 2, 32}), I32({3})});
  h.Output(ops::Attention(h.Input(0), h.Input(1), h.Input(2), h.Input(3), h.Input(4), h.Input(5),
                          0.125f));
  ASSERT_TRUE(h.status().ok()) << h.status();
  EXPECT_THAT(h.ToString(), HasSubstr("{scale=0.125, kv_cache=f16}"));
  s = BuildStatus({F32({3, 4, 32}), f16, f16, F32({3, 2, 32}), F32({3, 2, 32}), I32({3})},
                  [](Graph& g) {
                    std::vector<Value> in;
                    for (int i = 0; i < 6; ++i) in.push_back(g.Input(i));
                    ops::Op("attention", in, {{"kv_cache", std::string("q8_0")}});
                  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("both f16 (as the attribute kv_cache says)"));
}

TEST(AttentionOpTest, RefusesShapesAndPositions) {
  const std::vector<TensorType> in = {F32({2, 3, 8}), F32({2, 5, 8}), F32({2, 5, 8}),
                                      F32({2, 2, 8}), F32({2, 2, 8}), I32({2})};
  absl::Status s = BuildStatus(in, [](Graph& g) {
    ops::Attention(g.Input(0), g.Input(1), g.Input(2), g.Input(3), g.Input(4), g.Input(5), 1.0f);
  });
  EXPECT_THAT(s.message(), HasSubstr("heads (q's dimension 1) must be a multiple of kv_heads"));
  Graph g("attention", {F32({2, 2, 8}), F32({1, 5, 8}), F32({1, 5, 8}), F32({2, 1, 8}),
                        F32({2, 1, 8}), I32({2})});
  g.Output(ops::Attention(g.Input(0), g.Input(1), g.Input(2), g.Input(3), g.Input(4), g.Input(5),
                          1.0f, -1));
  EXPECT_THAT(g.status().message(), HasSubstr("window must be >= 0 (0: no window)"));
  Graph ok("attention", {F32({2, 2, 8}), F32({1, 5, 8}), F32({1, 5, 8}), F32({2, 1, 8}),
                         F32({2, 1, 8}), I32({2})});
  ok.Output(ops::Attention(ok.Input(0), ok.Input(1), ok.Input(2), ok.Input(3), ok.Input(4),
                           ok.Input(5), 1.0f));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(ok);
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<float> zeros(2 * 2 * 8, 0.0f), cache(5 * 8, 0.0f), rows(2 * 8, 0.0f);
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", Floats({2, 2, 8}, zeros)},
                                                  {"input1", Floats({1, 5, 8}, cache)},
                                                  {"input2", Floats({1, 5, 8}, cache)},
                                                  {"input3", Floats({2, 1, 8}, rows)},
                                                  {"input4", Floats({2, 1, 8}, rows)},
                                                  {"input5", Ints({2}, {4, 6})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(out.status().message(),
              HasSubstr("attention: positions must be consecutive; positions[1] is 6, expected 5"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
