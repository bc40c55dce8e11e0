// Every built-in op against a naive reference written here, with 1 and 2 threads, and the f32
// matmul both through XNNPACK and through the portable loop.
#include "graph/ops.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "graph/graph.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "quantization/internal/codecs.h"
#include "runtime/session.h"

namespace edgeq {
namespace {

TensorType F32(Shape s) { return TensorType(DType::kFloat32, std::move(s)); }

// Deterministic values in [-1, 1).
std::vector<float> Random(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return v;
}

Tensor RandomTensor(const Shape& shape, uint32_t seed) {
  return *Tensor::FromValues<float>(shape, Random(shape.num_elements(), seed));
}

std::vector<float> ToVector(const Tensor& t) {
  absl::Span<const float> v = *t.Values<float>();
  return std::vector<float>(v.begin(), v.end());
}

struct Config {
  int threads;
  bool xnnpack;
};

class OpsTest : public ::testing::TestWithParam<Config> {
 protected:
  // Loads `graph`, runs it on `inputs` (input0, input1, ...) and returns output0.
  std::vector<float> Run(const Graph& graph, const std::vector<Tensor>& inputs) {
    InferenceSession session(
        {.num_threads = GetParam().threads, .use_xnnpack = GetParam().xnnpack});
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
    absl::StatusOr<Tensor> y = out->Get("output0");
    EXPECT_TRUE(y.ok()) << y.status();
    if (!y.ok()) return {};
    const Shape expected = graph.value_type(graph.outputs()[0]).type.shape;
    EXPECT_EQ(y->shape(), expected);
    if (y->dtype() != DType::kFloat32) return {};
    return ToVector(*y);
  }
};

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "element " << i;
  }
}

TEST_P(OpsTest, BinaryBroadcasting) {
  struct Case {
    Shape a, b;
  };
  const std::vector<Case> cases = {
      {{3, 4}, {3, 4}},       {{3, 4}, {1}},       {{1}, {3, 4}},
      {{3, 4}, {4}},          {{3, 1}, {1, 4}},    {{2, 3, 4}, {3, 1}},
      {{2, 1, 4}, {2, 3, 1}}, {{300, 300}, {300}}, {{}, {5}},
  };
  const std::vector<std::pair<std::string, std::function<float(float, float)>>> fns = {
      {"add", [](float x, float y) { return x + y; }},
      {"sub", [](float x, float y) { return x - y; }},
      {"mul", [](float x, float y) { return x * y; }},
      {"div", [](float x, float y) { return x / y; }},
  };
  for (const Case& c : cases) {
    const Shape out = *ops::BroadcastShapes(c.a, c.b);
    Tensor a = RandomTensor(c.a, 1);
    std::vector<float> bv = Random(c.b.num_elements(), 2);
    for (float& x : bv) x += x >= 0 ? 0.5f : -0.5f;  // no division by ~0
    Tensor b = *Tensor::FromValues<float>(c.b, bv);
    for (const auto& [name, fn] : fns) {
      Graph g(name, {F32(c.a), F32(c.b)});
      Value x = g.Input(0), y = g.Input(1);
      g.Output(ops::Op(name, {x, y}));  // "add", "sub", "mul", "div" from the registry
      // Reference: index arithmetic over the output.
      std::vector<float> want(out.num_elements());
      std::vector<float> av = ToVector(a);
      for (int64_t o = 0; o < out.num_elements(); ++o) {
        int64_t rem = o, ia = 0, ib = 0, sa = 1, sb = 1;
        for (int d = out.rank() - 1; d >= 0; --d) {
          const int64_t idx = rem % out.dim(d);
          rem /= out.dim(d);
          const int da = c.a.rank() - out.rank() + d, db = c.b.rank() - out.rank() + d;
          if (da >= 0) {
            ia += (c.a.dim(da) == 1 ? 0 : idx) * sa;
            sa *= c.a.dim(da);
          }
          if (db >= 0) {
            ib += (c.b.dim(db) == 1 ? 0 : idx) * sb;
            sb *= c.b.dim(db);
          }
        }
        want[o] = fn(av[ia], bv[ib]);
      }
      SCOPED_TRACE(name + " " + c.a.ToString() + " " + c.b.ToString());
      ExpectNear(Run(g, {a, b}), want, 0.0f);
    }
  }
}

TEST_P(OpsTest, Unary) {
  Tensor x = RandomTensor({7, 33}, 3);
  std::vector<float> xv = ToVector(x);
  struct Case {
    const char* name;
    float (*reference)(float);
  };
  const Case cases[] = {
      {"silu", [](float v) { return v / (1.0f + std::exp(-v)); }},
      {"gelu", [](float v) { return 0.5f * v * (1.0f + std::erf(v / std::sqrt(2.0f))); }},
  };
  for (const Case& c : cases) {
    Graph g(c.name, {F32({7, 33})});
    g.Output(ops::Op(c.name, {g.Input(0)}));
    std::vector<float> want;
    for (float v : xv) want.push_back(c.reference(v));
    ExpectNear(Run(g, {x}), want, 1e-6f);
  }
}

// SwiGlu = Silu(gate) * up in one op (large enough to be split across threads), and its checks.
TEST_P(OpsTest, SwiGlu) {
  const Tensor gate = RandomTensor({9, 1000}, 31), up = RandomTensor({9, 1000}, 32);
  const std::vector<float> gv = ToVector(gate), uv = ToVector(up);
  Graph g("swiglu", {F32({9, 1000}), F32({9, 1000})});
  g.Output(ops::SwiGlu(g.Input(0), g.Input(1)));
  ASSERT_TRUE(g.status().ok()) << g.status();
  std::vector<float> want;
  for (size_t i = 0; i < gv.size(); ++i) want.push_back(gv[i] / (1.0f + std::exp(-gv[i])) * uv[i]);
  ExpectNear(Run(g, {gate, up}), want, 1e-6f);

  Graph bad("swiglu", {F32({9, 1000}), F32({9, 999})});
  bad.Output(ops::SwiGlu(bad.Input(0), bad.Input(1)));
  EXPECT_THAT(std::string(bad.status().message()),
              ::testing::HasSubstr("gate and up must have one shape"));
}

TEST_P(OpsTest, SoftmaxAndRmsNorm) {
  const Shape shape{5, 3, 37};
  Tensor x = RandomTensor(shape, 4);
  Tensor w = RandomTensor({37}, 5);
  std::vector<float> xv = ToVector(x), wv = ToVector(w);
  Graph g("softmax", {F32(shape)});
  g.Output(ops::Softmax(g.Input(0)));
  Graph r("rms_norm", {F32(shape)});
  r.Output(ops::RmsNorm(r.Input(0), r.Constant(w), 1e-5f));
  std::vector<float> soft(xv.size()), norm(xv.size());
  for (size_t row = 0; row < xv.size() / 37; ++row) {
    double mx = -1e30, sum = 0, ss = 0;
    for (int i = 0; i < 37; ++i) mx = std::max<double>(mx, xv[row * 37 + i]);
    for (int i = 0; i < 37; ++i) sum += std::exp(xv[row * 37 + i] - mx);
    for (int i = 0; i < 37; ++i) ss += double{xv[row * 37 + i]} * xv[row * 37 + i];
    const double scale = 1.0 / std::sqrt(ss / 37 + 1e-5);
    for (int i = 0; i < 37; ++i) {
      soft[row * 37 + i] = static_cast<float>(std::exp(xv[row * 37 + i] - mx) / sum);
      norm[row * 37 + i] = static_cast<float>(wv[i] * xv[row * 37 + i] * scale);
    }
  }
  ExpectNear(Run(g, {x}), soft, 1e-5f);
  ExpectNear(Run(r, {x}), norm, 1e-5f);
}

TEST_P(OpsTest, RopeAdjacentPairs) {
  // [s=3, heads=2, d=8], positions i32 and i64.
  Tensor x = RandomTensor({3, 2, 8}, 6);
  std::vector<float> xv = ToVector(x);
  const std::vector<int32_t> pos = {0, 5, 17};
  std::vector<float> want(xv.size());
  for (int s = 0; s < 3; ++s) {
    for (int h = 0; h < 2; ++h) {
      for (int i = 0; i < 8; i += 2) {
        const double angle = pos[s] * std::pow(10000.0, -static_cast<double>(i) / 8);
        const int o = (s * 2 + h) * 8 + i;
        want[o] = static_cast<float>(xv[o] * std::cos(angle) - xv[o + 1] * std::sin(angle));
        want[o + 1] = static_cast<float>(xv[o] * std::sin(angle) + xv[o + 1] * std::cos(angle));
      }
    }
  }
  Graph g("rope", {F32({3, 2, 8}), TensorType(DType::kInt32, {3})});
  g.Output(ops::Rope(g.Input(0), g.Input(1)));
  ExpectNear(Run(g, {x, *Tensor::FromValues<int32_t>({3}, pos)}), want, 1e-4f);
  Graph g64("rope64", {F32({3, 2, 8})});
  g64.Output(ops::Rope(g64.Input(0), g64.Constant(*Tensor::FromValues<int64_t>({3}, {0, 5, 17}))));
  ExpectNear(Run(g64, {x}), want, 1e-4f);
}

// softmax(scale q.k) v over positions <= pos + i (and > pos + i - window), from the definition.
std::vector<float> AttentionReference(const std::vector<float>& q, const std::vector<float>& kc,
                                      const std::vector<float>& vc, const std::vector<float>& kn,
                                      const std::vector<float>& vn, int64_t t, int64_t heads,
                                      int64_t kvh, int64_t hs, int64_t ctx, int64_t pos,
                                      float scale, int64_t window) {
  std::vector<float> out(t * heads * hs, 0.0f);
  for (int64_t i = 0; i < t; ++i) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t g = h / (heads / kvh);
      std::vector<double> s;
      std::vector<const float*> v;
      for (int64_t p = 0; p <= pos + i; ++p) {
        if (window > 0 && p <= pos + i - window) continue;
        const float* k = p < pos ? &kc[(g * ctx + p) * hs] : &kn[((p - pos) * kvh + g) * hs];
        v.push_back(p < pos ? &vc[(g * ctx + p) * hs] : &vn[((p - pos) * kvh + g) * hs]);
        double d = 0;
        for (int64_t e = 0; e < hs; ++e) d += double{q[(i * heads + h) * hs + e]} * k[e];
        s.push_back(scale * d);
      }
      double mx = -1e300, sum = 0;
      for (double x : s) mx = std::max(mx, x);
      for (double& x : s) sum += (x = std::exp(x - mx));
      for (size_t j = 0; j < s.size(); ++j) {
        for (int64_t e = 0; e < hs; ++e) {
          out[(i * heads + h) * hs + e] += static_cast<float>(s[j] / sum * v[j][e]);
        }
      }
    }
  }
  return out;
}

TEST_P(OpsTest, AttentionOverCacheAndBlock) {
  const int64_t t = 3, heads = 4, kvh = 2, hs = 8, ctx = 6, pos = 2;
  const Tensor q = RandomTensor({t, heads, hs}, 11), kc = RandomTensor({kvh, ctx, hs}, 12),
               vc = RandomTensor({kvh, ctx, hs}, 13), kn = RandomTensor({t, kvh, hs}, 14),
               vn = RandomTensor({t, kvh, hs}, 15);
  const Tensor positions = *Tensor::FromValues<int32_t>({t}, {2, 3, 4});
  for (int64_t window : {0, 2}) {
    SCOPED_TRACE(window);
    Graph g("attention", {F32({t, heads, hs}), F32({kvh, ctx, hs}), F32({kvh, ctx, hs}),
                          F32({t, kvh, hs}), F32({t, kvh, hs}), TensorType(DType::kInt32, {t})});
    const Value o = ops::Attention(g.Input(0), g.Input(1), g.Input(2), g.Input(3), g.Input(4),
                                   g.Input(5), 0.5f, window);
    g.Output(o);
    ASSERT_TRUE(g.status().ok()) << g.status();
    EXPECT_EQ(o.shape(), Shape({t, heads * hs}));
    ExpectNear(Run(g, {q, kc, vc, kn, vn, positions}),
               AttentionReference(ToVector(q), ToVector(kc), ToVector(vc), ToVector(kn),
                                  ToVector(vn), t, heads, kvh, hs, ctx, pos, 0.5f, window),
               1e-5f);
  }
  // Positions read at Execute: past the cache, or not consecutive, are errors naming them.
  Graph g("attention", {F32({t, heads, hs}), F32({kvh, ctx, hs}), F32({kvh, ctx, hs}),
                        F32({t, kvh, hs}), F32({t, kvh, hs}), TensorType(DType::kInt32, {t})});
  g.Output(
      ops::Attention(g.Input(0), g.Input(1), g.Input(2), g.Input(3), g.Input(4), g.Input(5), 0.5f));
  InferenceSession session({.num_threads = GetParam().threads});
  absl::StatusOr<CompiledGraph> model = session.Load(g);
  ASSERT_TRUE(model.ok()) << model.status();
  const std::pair<std::vector<int32_t>, const char*> bad[] = {
      {{7, 8, 9}, "position 7 is outside the cache's [0, 6]"},
      {{-1, 0, 1}, "position -1 is outside"},
      {{1, 2, 4}, "positions[2] is 4, expected 3"}};
  for (const auto& [p, message] : bad) {
    absl::StatusOr<TensorMap> out =
        model->Execute({{"input0", q},
                        {"input1", kc},
                        {"input2", vc},
                        {"input3", kn},
                        {"input4", vn},
                        {"input5", *Tensor::FromValues<int32_t>({t}, p)}});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr(message));
  }
}

// A q8_0 KV cache (u8 [kv_heads, ctx, head_dim / 32 * 34]): the attention of its decoded rows.
TEST_P(OpsTest, AttentionOverQ8_0Cache) {
  const int64_t t = 3, heads = 4, kvh = 2, hs = 64, ctx = 6, pos = 2, row = hs / 32 * 34;
  const Tensor q = RandomTensor({t, heads, hs}, 21), kn = RandomTensor({t, kvh, hs}, 24),
               vn = RandomTensor({t, kvh, hs}, 25);
  std::vector<float> kc = ToVector(RandomTensor({kvh, ctx, hs}, 22)),
                     vc = ToVector(RandomTensor({kvh, ctx, hs}, 23));
  std::vector<uint8_t> kq(kvh * ctx * row), vq(kq.size());
  for (int64_t r = 0; r < kvh * ctx; ++r) {
    for (auto [f, b] : {std::make_pair(&kc, &kq), std::make_pair(&vc, &vq)}) {
      quantization_internal::QuantizeRowQ8_0(f->data() + r * hs, b->data() + r * row, hs);
      quantization_internal::DequantizeRowQ8_0(b->data() + r * row, f->data() + r * hs, hs);
    }
  }
  const Tensor kct = *Tensor::FromValues<uint8_t>({kvh, ctx, row}, kq),
               vct = *Tensor::FromValues<uint8_t>({kvh, ctx, row}, vq);
  const Tensor positions = *Tensor::FromValues<int32_t>({t}, {2, 3, 4});
  const TensorType u8(DType::kUInt8, {kvh, ctx, row});
  Graph g("attention_q8_0", {F32({t, heads, hs}), u8, u8, F32({t, kvh, hs}), F32({t, kvh, hs}),
                             TensorType(DType::kInt32, {t})});
  g.Output(ops::Attention(g.Input(0), g.Input(1), g.Input(2), g.Input(3), g.Input(4), g.Input(5),
                          0.125f));
  ASSERT_TRUE(g.status().ok()) << g.status();
  EXPECT_THAT(g.ToString(), ::testing::HasSubstr("kv_cache=q8_0"));
  // The block's own rows are read as the cache holds them (through q8_0 too).
  std::vector<float> knr = ToVector(kn), vnr = ToVector(vn);
  std::vector<uint8_t> bytes(row);
  for (int64_t r = 0; r < t * kvh; ++r) {
    for (std::vector<float>* f : {&knr, &vnr}) {
      quantization_internal::QuantizeRowQ8_0(f->data() + r * hs, bytes.data(), hs);
      quantization_internal::DequantizeRowQ8_0(bytes.data(), f->data() + r * hs, hs);
    }
  }
  ExpectNear(
      Run(g, {q, kct, vct, kn, vn, positions}),
      AttentionReference(ToVector(q), kc, vc, knr, vnr, t, heads, kvh, hs, ctx, pos, 0.125f, 0),
      1e-5f);
}

TEST(OpsBuilderTest, AttentionQ8_0CacheChecksItsShapes) {
  const TensorType u8(DType::kUInt8, {2, 6, 34});
  // head_dim 8: not a multiple of 32.
  Graph g("attention",
          {F32({3, 4, 8}), u8, u8, F32({3, 2, 8}), F32({3, 2, 8}), TensorType(DType::kInt32, {3})});
  ops::Attention(g.Input(0), g.Input(1), g.Input(2), g.Input(3), g.Input(4), g.Input(5), 1.0f);
  EXPECT_THAT(std::string(g.status().message()),
              ::testing::HasSubstr("a q8_0 cache needs head_dim (q's dimension 2, 8)"));
  // A q8_0 K cache with an f32 V cache.
  Graph g2("attention", {F32({3, 4, 32}), u8, F32({2, 6, 32}), F32({3, 2, 32}), F32({3, 2, 32}),
                         TensorType(DType::kInt32, {3})});
  ops::Attention(g2.Input(0), g2.Input(1), g2.Input(2), g2.Input(3), g2.Input(4), g2.Input(5),
                 1.0f);
  EXPECT_THAT(std::string(g2.status().message()),
              ::testing::HasSubstr("both plain f32, both q8_0 rows (u8) or both f16"));
  // Rows of the wrong length (head_dim 64 needs 68 bytes).
  Graph g3("attention", {F32({3, 4, 64}), u8, u8, F32({3, 2, 64}), F32({3, 2, 64}),
                         TensorType(DType::kInt32, {3})});
  ops::Attention(g3.Input(0), g3.Input(1), g3.Input(2), g3.Input(3), g3.Input(4), g3.Input(5),
                 1.0f);
  EXPECT_THAT(std::string(g3.status().message()),
              ::testing::HasSubstr("[kv_heads, ctx, head_dim / 32 * 34]"));
}

TEST(OpsBuilderTest, AttentionChecksItsShapes) {
  Graph g("attention", {F32({3, 4, 8}), F32({3, 6, 8}), F32({2, 6, 8}), F32({3, 2, 8}),
                        F32({3, 2, 8}), TensorType(DType::kInt32, {3})});
  ops::Attention(g.Input(0), g.Input(1), g.Input(1), g.Input(3), g.Input(4), g.Input(5), 1.0f);
  EXPECT_THAT(std::string(g.status().message()),
              ::testing::HasSubstr("must be a multiple of kv_heads"));
  Graph g2("attention", {F32({3, 4, 8}), F32({2, 6, 8}), F32({2, 6, 8}), F32({3, 2, 8}),
                         F32({3, 2, 8}), TensorType(DType::kInt32, {3})});
  ops::Attention(g2.Input(0), g2.Input(1), g2.Input(2), g2.Input(3), g2.Input(4), g2.Input(5), 1.0f,
                 -1);
  EXPECT_THAT(std::string(g2.status().message()), ::testing::HasSubstr("window must be >= 0"));
}

TEST_P(OpsTest, GatherF32AndQuantized) {
  Tensor table = RandomTensor({10, 64}, 7);
  std::vector<float> tv = ToVector(table);
  const std::vector<int32_t> idx = {3, 0, 9, 3};
  Tensor indices = *Tensor::FromValues<int32_t>({2, 2}, idx);
  std::vector<float> want;
  for (int32_t i : idx) want.insert(want.end(), tv.begin() + i * 64, tv.begin() + (i + 1) * 64);
  Graph g("gather", {TensorType(DType::kInt32, {2, 2})});
  g.Output(ops::Gather(g.Constant(table), g.Input(0)));
  ExpectNear(Run(g, {indices}), want, 0.0f);

  for (const QuantizationEncoding* enc : {&Q8_0Encoding(), &Q4_0Encoding(), &BFloat16Encoding()}) {
    Tensor q = *enc->Quantize(table);
    std::vector<float> dq = ToVector(*enc->Dequantize(q));
    std::vector<float> want_q;
    for (int32_t i : idx)
      want_q.insert(want_q.end(), dq.begin() + i * 64, dq.begin() + (i + 1) * 64);
    Graph gq("gather_q", {TensorType(DType::kInt32, {2, 2})});
    gq.Output(ops::Embedding(gq.Constant(q), gq.Input(0)));
    SCOPED_TRACE(std::string(enc->name()));
    ExpectNear(Run(gq, {indices}), want_q, 0.0f);
  }
}

TEST_P(OpsTest, GatherOutOfRangeIsAnError) {
  Graph g("gather", {TensorType(DType::kInt64, {2})});
  g.Output(ops::Gather(g.Constant(RandomTensor({4, 8}, 1)), g.Input(0)));
  InferenceSession session({.num_threads = GetParam().threads});
  absl::StatusOr<CompiledGraph> model = session.Load(g);
  ASSERT_TRUE(model.ok());
  Tensor idx = *Tensor::FromValues<int64_t>({2}, {1, 4});
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", idx}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(
      std::string(out.status().message()),
      ::testing::HasSubstr("index 4 (element 1 of the indices) is outside the table's 4 rows"));
}

TEST_P(OpsTest, ReshapeTransposeSliceConcat) {
  Tensor x = RandomTensor({2, 3, 4}, 8);
  std::vector<float> xv = ToVector(x);
  auto at = [&](int i, int j, int k) { return xv[(i * 3 + j) * 4 + k]; };

  Graph r("reshape", {F32({2, 3, 4})});
  r.Output(ops::Reshape(r.Input(0), {4, -1}));
  ExpectNear(Run(r, {x}), xv, 0.0f);

  Graph t("transpose", {F32({2, 3, 4})});
  t.Output(ops::Transpose(t.Input(0), {2, 0, 1}));
  std::vector<float> want_t;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want_t.push_back(at(i, j, k));
  ExpectNear(Run(t, {x}), want_t, 0.0f);

  Graph s("slice", {F32({2, 3, 4})});
  s.Output(ops::Slice(s.Input(0), {1, 0, 1}, {2, 3, 3}));
  std::vector<float> want_s;
  for (int j = 0; j < 3; ++j)
    for (int k = 1; k < 3; ++k) want_s.push_back(at(1, j, k));
  ExpectNear(Run(s, {x}), want_s, 0.0f);

  Tensor y = RandomTensor({2, 1, 4}, 9);
  std::vector<float> yv = ToVector(y);
  Graph c("concat", {F32({2, 3, 4}), F32({2, 1, 4})});
  c.Output(ops::Concat({c.Input(0), c.Input(1)}, 1));
  std::vector<float> want_c;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) want_c.push_back(at(i, j, k));
    for (int k = 0; k < 4; ++k) want_c.push_back(yv[i * 4 + k]);
  }
  ExpectNear(Run(c, {x, y}), want_c, 0.0f);
}

std::vector<float> NaiveMatmul(const std::vector<float>& a, const std::vector<float>& b,
                               int64_t batch, int64_t m, int64_t k, int64_t n, bool rhs_batched,
                               bool transposed) {
  std::vector<float> y(batch * m * n);
  for (int64_t p = 0; p < batch; ++p) {
    const float* bm = b.data() + (rhs_batched ? p * k * n : 0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l) {
          sum += double{a[(p * m + i) * k + l]} * (transposed ? bm[j * k + l] : bm[l * n + j]);
        }
        y[(p * m + i) * n + j] = static_cast<float>(sum);
      }
    }
  }
  return y;
}

TEST_P(OpsTest, MatmulConstantWeights) {
  // Odd shapes: n not a multiple of any tile; the XNNPACK path when enabled.
  for (int64_t m : {1, 2, 5, 67}) {
    for (int64_t n : {1, 7, 33}) {
      for (bool transposed : {false, true}) {
        const int64_t k = 19;
        Tensor a = RandomTensor({m, k}, 10);
        Tensor w = RandomTensor(transposed ? Shape{n, k} : Shape{k, n}, 11);
        Graph g("mm", {F32({m, k})});
        g.Output(transposed ? ops::MatmulTransposed(g.Input(0), g.Constant(w))
                            : ops::Matmul(g.Input(0), g.Constant(w)));
        SCOPED_TRACE(absl::StrFormat("m=%d n=%d transposed=%d", m, n, transposed));
        ExpectNear(Run(g, {a}),
                   NaiveMatmul(ToVector(a), ToVector(w), 1, m, k, n, false, transposed), 1e-5f);
      }
    }
  }
}

TEST_P(OpsTest, MatmulBatchedAndDynamic) {
  // Attention-style: [h, m, d] x [h, t, d]^T, both runtime inputs.
  Tensor q = RandomTensor({3, 2, 16}, 12);
  Tensor kv = RandomTensor({3, 5, 16}, 13);
  Graph g("qk", {F32({3, 2, 16}), F32({3, 5, 16})});
  g.Output(ops::MatmulTransposed(g.Input(0), g.Input(1)));
  ExpectNear(Run(g, {q, kv}), NaiveMatmul(ToVector(q), ToVector(kv), 3, 2, 16, 5, true, true),
             1e-5f);
  // [h, m, t] x [h, t, d], and a batched lhs against a shared rank-2 rhs.
  Tensor p = RandomTensor({3, 2, 5}, 14);
  Graph g2("pv", {F32({3, 2, 5}), F32({3, 5, 16})});
  g2.Output(ops::Matmul(g2.Input(0), g2.Input(1)));
  ExpectNear(Run(g2, {p, kv}), NaiveMatmul(ToVector(p), ToVector(kv), 3, 2, 5, 16, true, false),
             1e-5f);
  Tensor w = RandomTensor({5, 4}, 15);
  Graph g3("shared", {F32({3, 2, 5})});
  g3.Output(ops::Matmul(g3.Input(0), g3.Constant(w)));
  ExpectNear(Run(g3, {p}), NaiveMatmul(ToVector(p), ToVector(w), 3, 2, 5, 4, false, false), 1e-5f);
}

INSTANTIATE_TEST_SUITE_P(Threads, OpsTest,
                         ::testing::Values(Config{1, true}, Config{2, true}, Config{1, false},
                                           Config{2, false}),
                         [](const ::testing::TestParamInfo<Config>& info) {
                           return absl::StrFormat("threads%d_%s", info.param.threads,
                                                  info.param.xnnpack ? "xnnpack" : "portable");
                         });

}  // namespace
}  // namespace edgeq
