#include "graph/graph.h"

#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "gmock/gmock.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace {

using ::testing::HasSubstr;

TensorType F32(Shape s) { return TensorType(DType::kFloat32, std::move(s)); }

TEST(GraphTest, SeedGraphBuildsAndPrints) {
  Graph graph("qmatmul", {F32({32, 64})});
  Tensor w = *Tensor::Full({32, 64}, 0.15f);
  Value qw = graph.Quantize(Q4_0Encoding(), w);
  ASSERT_TRUE(qw.ok());
  EXPECT_EQ(qw.dtype(), DType::kUInt8);
  EXPECT_EQ(qw.shape(), Shape({32, 36}));
  EXPECT_EQ(qw.logical_shape(), Shape({32, 64}));
  Value y = ops::QMatmul(Q4_0Encoding(), graph.Input(0), qw);
  ASSERT_TRUE(y.ok()) << graph.status();
  EXPECT_EQ(y.type(), F32({32, 32}));
  graph.Output(y);
  EXPECT_TRUE(graph.status().ok());
  EXPECT_EQ(graph.ToString(),
            "graph \"qmatmul\" (1 inputs, 1 outputs)\n"
            "  %0 = input0 : f32[32, 64]\n"
            "  %1 = constant : u8[32, 36] (q4_0 of [32, 64])\n"
            "  %2 = qmatmul(%0, %1) {encoding=q4_0} : f32[32, 32]\n"
            "  output0 = %2\n");
}

TEST(GraphTest, NamedInputsAndOutputs) {
  Graph graph("named", {});
  graph.AddInput("tokens", F32({2}));
  graph.AddInput("positions", F32({2}));
  const Value cache = graph.AddInput("cache.0.k", F32({2}));
  EXPECT_EQ(graph.num_inputs(), 3);
  EXPECT_EQ(graph.Input("cache.0.k").id(), cache.id());
  graph.Output("hidden", ops::Add(graph.Input("tokens"), graph.Input("positions")));
  graph.Output(cache);
  ASSERT_TRUE(graph.status().ok()) << graph.status();
  EXPECT_EQ(graph.input_name(1), "positions");
  EXPECT_EQ(graph.output_name(0), "hidden");
  EXPECT_EQ(graph.output_name(1), "output1");
  EXPECT_EQ(graph.ToString(),
            "graph \"named\" (3 inputs, 2 outputs)\n"
            "  %0 = tokens : f32[2]\n"
            "  %1 = positions : f32[2]\n"
            "  %2 = cache.0.k : f32[2]\n"
            "  %3 = add(%0, %1) : f32[2]\n"
            "  hidden = %3\n"
            "  output1 = %2\n");
}

TEST(GraphTest, InputAndOutputNameErrors) {
  Graph missing("g", {});
  missing.AddInput("tokens", F32({2}));
  EXPECT_FALSE(missing.Input("tokns").ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("graph \"g\": no input named \"tokns\"; expected one of: tokens"));

  Graph twice("g", {});
  twice.AddInput("x", F32({2}));
  EXPECT_FALSE(twice.AddInput("x", F32({2})).ok());
  EXPECT_THAT(std::string(twice.status().message()),
              HasSubstr("input 1 is named \"x\"; expected a non-empty name no other input has"));

  Graph out("g", {});
  out.AddInput("x", F32({2}));
  out.Output("y", out.Input("x"));
  out.Output("y", out.Input("x"));
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("output 1 is named \"y\"; expected a non-empty name no other output has"));
  Graph empty("g", {});
  empty.AddInput("", F32({2}));
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr("input 0 is named \"\""));
}

TEST(GraphTest, QuantizeEqualsConstantOfQuantized) {
  Graph graph("g", {});
  Tensor w = *Tensor::Full({4, 64}, 0.25f);
  Value a = graph.Quantize(Q8_0Encoding(), w);
  Value b = graph.Constant(*Q8_0Encoding().Quantize(w));
  EXPECT_EQ(a.value_type().ToString(), b.value_type().ToString());
  EXPECT_EQ(graph.nodes()[a.id()].constant.bytes(), graph.nodes()[b.id()].constant.bytes());
}

TEST(GraphTest, FirstErrorIsKeptAndNamesOpAndShapes) {
  Graph graph("bad", {F32({32, 64})});
  Value qw = graph.Quantize(Q4_0Encoding(), *Tensor::Full({32, 96}, 1.0f));
  ASSERT_TRUE(qw.ok());
  Value y = ops::QMatmul(Q4_0Encoding(), graph.Input(0), qw);
  EXPECT_FALSE(y.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(graph.status().message()), HasSubstr("qmatmul"));
  EXPECT_THAT(std::string(graph.status().message()), HasSubstr("f32[32, 64]"));
  EXPECT_THAT(std::string(graph.status().message()), HasSubstr("[32, 96]"));
  // Later errors do not replace the first; invalid values propagate silently.
  Value z = ops::Add(y, graph.Input(0));
  EXPECT_FALSE(z.ok());
  ops::Softmax(graph.Input(7));
  EXPECT_THAT(std::string(graph.status().message()), HasSubstr("qmatmul"));
}

TEST(GraphTest, QuantizeErrorIsRecorded) {
  Graph graph("g", {});
  Value q = graph.Quantize(Q6_KEncoding(), *Tensor::Full({2, 64}, 1.0f));
  EXPECT_FALSE(q.ok());
  EXPECT_THAT(std::string(graph.status().message()), HasSubstr("quantize(q6_k"));
}

TEST(GraphTest, ConstantWithCutBytesIsRefused) {
  // A q4_0 tensor tagged [64, 64] that holds one row of blocks (36 bytes instead of 64 x 36).
  absl::StatusOr<Tensor> q = Q4_0Encoding().Quantize(*Tensor::Full({1, 64}, 1.0f));
  ASSERT_TRUE(q.ok()) << q.status();
  q->SetQuantization("q4_0", Shape({64, 64}));
  Graph graph("g", {F32({1, 64})});
  Value w = graph.Constant(*q);
  EXPECT_FALSE(w.ok());
  EXPECT_FALSE(ops::QMatmul(Q4_0Encoding(), graph.Input(0), w).ok());
  EXPECT_THAT(std::string(graph.status().message()),
              HasSubstr("expected 2304 bytes (64 rows x 2 blocks x 18 bytes), got 36"));
}

TEST(GraphTest, WrongEncodingIsNamed) {
  Graph graph("g", {F32({1, 64})});
  Value qw = graph.Quantize(Q8_0Encoding(), *Tensor::Full({8, 64}, 1.0f));
  ops::QMatmul(Q4_0Encoding(), graph.Input(0), qw);
  EXPECT_THAT(std::string(graph.status().message()),
              HasSubstr("rhs is encoded with q8_0, but the op was given encoding q4_0"));
}

TEST(GraphTest, InputOutOfRange) {
  Graph graph("g", {F32({2})});
  EXPECT_FALSE(graph.Input(1).ok());
  EXPECT_THAT(std::string(graph.status().message()), HasSubstr("Input(1) is out of range"));
}

TEST(GraphTest, ValuesFromTwoGraphs) {
  Graph a("a", {F32({2})});
  Graph b("b", {F32({2})});
  ops::Add(a.Input(0), b.Input(0));
  EXPECT_THAT(std::string(a.status().message()), HasSubstr("two graphs"));
  b.Output(a.Input(0));
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("Value of graph \"a\""));
}

TEST(OpsTest, ShapeInference) {
  Graph g("g", {F32({3, 1, 5}), F32({4, 5}), F32({2, 5}), TensorType(DType::kInt32, {3})});
  EXPECT_EQ(ops::Add(g.Input(0), g.Input(1)).shape(), Shape({3, 4, 5}));
  EXPECT_EQ(ops::MatmulTransposed(g.Input(1), g.Input(2)).shape(), Shape({4, 2}));
  EXPECT_EQ(ops::Matmul(g.Input(2), ops::Transpose(g.Input(1), {1, 0})).shape(), Shape({2, 4}));
  EXPECT_EQ(ops::Reshape(g.Input(1), {-1, 2, 2}).shape(), Shape({5, 2, 2}));
  EXPECT_EQ(ops::Slice(g.Input(1), {1, 0}, {3, 5}).shape(), Shape({2, 5}));
  EXPECT_EQ(ops::Concat({g.Input(1), g.Input(2)}, 0).shape(), Shape({6, 5}));
  EXPECT_EQ(ops::Gather(g.Input(1), g.Input(3)).shape(), Shape({3, 5}));
  Value t = g.Quantize(Q8_0Encoding(), *Tensor::Full({10, 32}, 1.0f));
  EXPECT_EQ(ops::Gather(t, g.Input(3)).shape(), Shape({3, 32}));
  EXPECT_TRUE(g.status().ok()) << g.status();
}

TEST(OpsTest, ShapeErrors) {
  struct Case {
    std::string expected;
    std::function<void(Graph&)> build;
  };
  std::vector<Case> cases = {
      {"add(f32[3, 5], f32[4, 5]): shapes [3, 5] and [4, 5] do not broadcast",
       [](Graph& g) { ops::Add(g.Input(0), g.Input(1)); }},
      {"matmul(f32[3, 5], f32[4, 5]): inner dimensions differ: lhs k=5, rhs k=4",
       [](Graph& g) { ops::Matmul(g.Input(0), g.Input(1)); }},
      {"reshape(f32[3, 5]): target shape [4, 4] holds 16 elements, the input 15",
       [](Graph& g) {
         ops::Reshape(g.Input(0), {4, 4});
       }},
      {"transpose(f32[3, 5]): [0, 0] is not a permutation of 2 dimensions",
       [](Graph& g) {
         ops::Transpose(g.Input(0), {0, 0});
       }},
      {"slice(f32[3, 5]): dimension 1: [0, 6) is not inside [0, 5]",
       [](Graph& g) {
         ops::Slice(g.Input(0), {0, 0}, {3, 6});
       }},
      {"rms_norm(f32[3, 5], f32[4, 5]): weight must be [d]",
       [](Graph& g) { ops::RmsNorm(g.Input(0), g.Input(1)); }},
      {"rope(f32[3, 5], f32[4, 5]): positions must be i32 or i64",
       [](Graph& g) { ops::Rope(g.Input(0), g.Input(1)); }},
      {"concat(f32[3, 5], f32[4, 5]): dimension 0 differs outside axis 1",
       [](Graph& g) {
         ops::Concat({g.Input(0), g.Input(1)}, 1);
       }},
  };
  for (const Case& c : cases) {
    Graph g("g", {F32({3, 5}), F32({4, 5})});
    c.build(g);
    EXPECT_THAT(std::string(g.status().message()), HasSubstr(c.expected)) << c.expected;
  }
}

}  // namespace
}  // namespace edgeq
