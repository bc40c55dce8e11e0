// Tests of QuantizationEncoding's shared logic: shape translation, validation, parallelism, and
// the registry.
#include "quantization/encoding.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pthreadpool.h"
#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"
#include "tests/util/random_data.h"

namespace edgeq {
namespace {

using ::testing::HasSubstr;

using test_util::Gaussian;

Tensor F32(const Shape& shape, const std::vector<float>& values) {
  absl::StatusOr<Tensor> t = Tensor::FromValues<float>(shape, values);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

std::vector<float> FloatsOf(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  std::vector<float> v(t.num_elements());
  if (!v.empty()) std::memcpy(v.data(), t.raw_data(), v.size() * sizeof(float));
  return v;
}

std::vector<const QuantizationEncoding*> AllBuiltins() {
  std::vector<const QuantizationEncoding*> v = {&Q4_0Encoding(), &Q8_0Encoding(),
                                                &Q4_KEncoding(), &Q5_KEncoding(),
                                                &Q6_KEncoding(), &BFloat16Encoding()};
  for (const char* name : {"q4_1", "q5_0", "q5_1", "iq4_nl", "f16"})
    v.push_back(*FindEncoding(name));
  return v;
}

TEST(BuiltinsTest, NamesAndBlockParameters) {
  EXPECT_EQ(Q4_0Encoding().name(), "q4_0");
  EXPECT_EQ(Q4_0Encoding().block_parameters(), (BlockParameters{32, 18}));
  EXPECT_EQ(Q8_0Encoding().block_parameters(), (BlockParameters{32, 34}));
  EXPECT_EQ(Q4_KEncoding().block_parameters(), (BlockParameters{256, 144}));
  EXPECT_EQ(Q5_KEncoding().block_parameters(), (BlockParameters{256, 176}));
  EXPECT_EQ(Q6_KEncoding().block_parameters(), (BlockParameters{256, 210}));
  EXPECT_EQ(BFloat16Encoding().block_parameters(), (BlockParameters{1, 2}));
  EXPECT_EQ(Q6_KEncoding().name(), "q6_k");
  EXPECT_EQ(BFloat16Encoding().name(), "bf16");
  EXPECT_EQ((*FindEncoding("q4_1"))->block_parameters(), (BlockParameters{32, 20}));
  EXPECT_EQ((*FindEncoding("q5_0"))->block_parameters(), (BlockParameters{32, 22}));
  EXPECT_EQ((*FindEncoding("q5_1"))->block_parameters(), (BlockParameters{32, 24}));
  EXPECT_EQ((*FindEncoding("iq4_nl"))->block_parameters(), (BlockParameters{32, 18}));
  EXPECT_EQ((*FindEncoding("f16"))->block_parameters(), (BlockParameters{1, 2}));
  EXPECT_EQ((*FindEncoding("q2_k"))->block_parameters(), (BlockParameters{256, 84}));
  EXPECT_EQ((*FindEncoding("q3_k"))->block_parameters(), (BlockParameters{256, 110}));
  EXPECT_EQ((*FindEncoding("iq4_xs"))->block_parameters(), (BlockParameters{256, 136}));
}

// The block-format table (block_layout.h) and the registry agree, and names are found in both
// spellings.
TEST(BuiltinsTest, BlockFormatTableDescribesTheBuiltins) {
  ASSERT_EQ(blocks::kNumFormats, 14);
  for (const blocks::BlockFormat& f : blocks::kBlockFormats) {
    SCOPED_TRACE(f.name);
    absl::StatusOr<const QuantizationEncoding*> e = FindEncoding(f.name);
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ((*e)->block_parameters(), (BlockParameters{f.values_per_block, f.bytes_per_block}));
    EXPECT_EQ(*FindEncoding(f.ggml_name), *e);
    EXPECT_EQ(blocks::FindBlockFormat(f.ggml_name, std::strlen(f.ggml_name)), &f);
    EXPECT_EQ(blocks::FindBlockFormat(f.name, std::strlen(f.name)), &f);
    EXPECT_EQ(blocks::FindBlockFormatByGgmlType(f.ggml_type), &f);
    EXPECT_EQ(&blocks::GetBlockFormat(f.id), &f);
  }
  // GGML's type ids and the activation formats the kernels pair the weights with.
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(12)->id, blocks::Format::kQ4_K);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(30)->id, blocks::Format::kBf16);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(3)->id, blocks::Format::kQ4_1);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(6)->id, blocks::Format::kQ5_0);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(7)->id, blocks::Format::kQ5_1);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(20)->id, blocks::Format::kIq4Nl);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(1)->id, blocks::Format::kF16);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(10)->id, blocks::Format::kQ2_K);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(11)->id, blocks::Format::kQ3_K);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(23)->id, blocks::Format::kIq4Xs);
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(16), nullptr);  // IQ2_XXS: not supported
  EXPECT_EQ(blocks::FindBlockFormatByGgmlType(9), nullptr);   // Q8_1: not a weight format
  EXPECT_EQ(blocks::GetBlockFormat(blocks::Format::kQ4_1).activation,
            blocks::ActivationFormat::kQ8_1);
  EXPECT_EQ(blocks::GetBlockFormat(blocks::Format::kQ5_1).activation,
            blocks::ActivationFormat::kQ8_1);
  EXPECT_EQ(blocks::GetBlockFormat(blocks::Format::kQ5_0).activation,
            blocks::ActivationFormat::kQ8_0);
  EXPECT_EQ(blocks::GetBlockFormat(blocks::Format::kIq4Nl).activation,
            blocks::ActivationFormat::kQ8_0);
  EXPECT_EQ(blocks::GetBlockFormat(blocks::Format::kF16).activation,
            blocks::ActivationFormat::kF32);
  EXPECT_EQ(blocks::GetBlockFormat(blocks::Format::kQ4_0).activation,
            blocks::ActivationFormat::kQ8_0);
  EXPECT_EQ(blocks::GetBlockFormat(blocks::Format::kQ6_K).activation,
            blocks::ActivationFormat::kQ8_K);
  EXPECT_EQ(blocks::GetBlockFormat(blocks::Format::kIq4Xs).activation,
            blocks::ActivationFormat::kQ8_K);
  EXPECT_EQ(blocks::GetBlockFormat(blocks::Format::kBf16).activation,
            blocks::ActivationFormat::kF32);
  EXPECT_EQ(blocks::FindBlockFormat("q4_k_", 5), nullptr);
  EXPECT_EQ(blocks::FindBlockFormat("q4_kx", 4)->id, blocks::Format::kQ4_K);  // (p, n) prefix
}

TEST(ShapeTest, QuantizedAndLogicalShapes) {
  absl::StatusOr<Shape> q = Q4_0Encoding().QuantizedShape(Shape{32, 64});
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(*q, (Shape{32, 36}));
  EXPECT_EQ(*Q4_0Encoding().LogicalShape(*q), (Shape{32, 64}));
  EXPECT_EQ(*Q8_0Encoding().QuantizedShape(Shape{2, 3, 96}), (Shape{2, 3, 102}));
  EXPECT_EQ(*Q4_KEncoding().QuantizedShape(Shape{512}), (Shape{288}));
  EXPECT_EQ(*Q5_KEncoding().LogicalShape(Shape{4, 352}), (Shape{4, 512}));
  EXPECT_EQ(*Q6_KEncoding().QuantizedShape(Shape{1, 256}), (Shape{1, 210}));
  EXPECT_EQ(*BFloat16Encoding().QuantizedShape(Shape{3, 5}), (Shape{3, 10}));
  EXPECT_EQ(*Q4_0Encoding().QuantizedShape(Shape{0, 32}), (Shape{0, 18}));
}

TEST(ShapeTest, NotAMultipleNamesEncodingShapeAndMultiple) {
  absl::StatusOr<Shape> q = Q4_KEncoding().QuantizedShape(Shape{8, 64});
  ASSERT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(q.status().message()), HasSubstr("q4_k"));
  EXPECT_THAT(std::string(q.status().message()), HasSubstr("[8, 64]"));
  EXPECT_THAT(std::string(q.status().message()), HasSubstr("multiple of 256"));

  absl::StatusOr<Shape> s = Q4_0Encoding().QuantizedShape(Shape{});
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);

  absl::StatusOr<Shape> l = Q8_0Encoding().LogicalShape(Shape{2, 35});
  ASSERT_EQ(l.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(l.status().message()), HasSubstr("q8_0"));
  EXPECT_THAT(std::string(l.status().message()), HasSubstr("34-byte"));
}

TEST(QuantizeTest, RoundTripTagsAndShapes) {
  for (const QuantizationEncoding* enc : AllBuiltins()) {
    SCOPED_TRACE(std::string(enc->name()));
    const Shape shape{3, 512};  // rows of several blocks
    const std::vector<float> x = Gaussian(shape.num_elements(), 1);
    absl::StatusOr<Tensor> q = enc->Quantize(F32(shape, x));
    ASSERT_TRUE(q.ok()) << q.status();
    EXPECT_EQ(q->dtype(), DType::kUInt8);
    EXPECT_EQ(q->encoding(), enc->name());
    EXPECT_EQ(q->logical_shape(), shape);
    EXPECT_EQ(q->shape(), *enc->QuantizedShape(shape));
    // Each row of the quantized tensor equals the row codec applied to that row alone.
    const int64_t row_bytes = q->shape().dim(-1);
    std::vector<uint8_t> row(row_bytes);
    for (int r = 0; r < 3; ++r) {
      enc->QuantizeRow(x.data() + r * 512, row.data(), 512);
      EXPECT_EQ(0, std::memcmp(row.data(), q->bytes().data() + r * row_bytes, row_bytes));
    }
    absl::StatusOr<Tensor> y = enc->Dequantize(*q);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(y->shape(), shape);
    const std::vector<float> yv = FloatsOf(*y);
    double err = 0, ref = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      err += (yv[i] - x[i]) * (yv[i] - x[i]);
      ref += x[i] * x[i];
    }
    EXPECT_LT(std::sqrt(err / ref), 0.2);  // q4_0 is the coarsest: ~0.1 relative RMSE
  }
}

TEST(QuantizeTest, KnownQ8_0Block) {
  std::vector<float> x(32, 0.0f);
  x[0] = 127.0f;
  x[1] = -63.5f;  // roundf: half away from zero -> -64
  x[2] = 2.5f;    // -> 3
  absl::StatusOr<Tensor> q = Q8_0Encoding().Quantize(F32(Shape{32}, x));
  ASSERT_TRUE(q.ok());
  const uint8_t* b = q->bytes().data();
  EXPECT_EQ(b[0] | (b[1] << 8), 0x3c00);  // fp16 1.0
  EXPECT_EQ(static_cast<int8_t>(b[2]), 127);
  EXPECT_EQ(static_cast<int8_t>(b[3]), -64);
  EXPECT_EQ(static_cast<int8_t>(b[4]), 3);
  EXPECT_EQ(static_cast<int8_t>(b[5]), 0);
}

TEST(QuantizeTest, KnownQ4_0Block) {
  std::vector<float> x(32, 0.0f);
  x[0] = -8.0f;  // the signed max: d = -8 / -8 = 1
  x[1] = 7.0f;
  x[16] = 3.4f;  // 3.4 + 8.5 = 11.9 -> 11 (truncation)
  absl::StatusOr<Tensor> q = Q4_0Encoding().Quantize(F32(Shape{1, 32}, x));
  ASSERT_TRUE(q.ok());
  const uint8_t* b = q->bytes().data();
  EXPECT_EQ(b[0] | (b[1] << 8), 0x3c00);
  EXPECT_EQ(b[2], 0x00 | (11 << 4));  // element 0: q 0, element 16: q 11
  EXPECT_EQ(b[3], 15 | (8 << 4));     // element 1: 15.5 -> min(15, 15); element 17: 8
}

TEST(QuantizeTest, KnownQ4_1Block) {
  std::vector<float> x(32, 0.0f);
  x[0] = -1.0f;  // min: m = -1, d = (14 - -1) / 15 = 1
  x[1] = 14.0f;  // 15 + 0.5 -> 15
  absl::StatusOr<Tensor> q = (*FindEncoding("q4_1"))->Quantize(F32(Shape{1, 32}, x));
  ASSERT_TRUE(q.ok());
  const uint8_t* b = q->bytes().data();
  EXPECT_EQ(b[0] | (b[1] << 8), 0x3c00);  // d = 1
  EXPECT_EQ(b[2] | (b[3] << 8), 0xbc00);  // m = -1
  EXPECT_EQ(b[4], 0x10);                  // element 0: q 0; element 16: (0 + 1) + 0.5 -> 1
  EXPECT_EQ(b[5], 0x1f);                  // element 1: q 15; element 17: 1
}

TEST(QuantizeTest, KnownQ5_0Block) {
  std::vector<float> x(32, 0.0f);
  x[0] = -16.0f;  // the signed max: d = -16 / -16 = 1
  x[1] = 15.0f;   // 15 + 16.5 -> 31
  x[16] = 3.4f;   // 19.9 -> 19
  absl::StatusOr<Tensor> q = (*FindEncoding("q5_0"))->Quantize(F32(Shape{1, 32}, x));
  ASSERT_TRUE(q.ok());
  const uint8_t* b = q->bytes().data();
  EXPECT_EQ(b[0] | (b[1] << 8), 0x3c00);
  // Every element but 0 has the 5th bit (zeros quantize to 16).
  EXPECT_EQ(b[2] | (b[3] << 8) | (b[4] << 16) | (static_cast<uint32_t>(b[5]) << 24), 0xfffffffeu);
  EXPECT_EQ(b[6], 0x30);  // element 0: 0; element 16: 19 & 15
  EXPECT_EQ(b[7], 0x0f);  // element 1: 31 & 15; element 17: 16 & 15
}

TEST(QuantizeTest, KnownIq4NlBlock) {
  std::vector<float> x(32, 0.0f);
  x[0] = -127.0f;  // the signed max: d = -127 / -127 = 1, level 0 exactly
  x[1] = 113.0f;   // level 15
  x[2] = 7.0f;     // halfway between levels 1 and 13 at d = 1
  absl::StatusOr<Tensor> q = (*FindEncoding("iq4_nl"))->Quantize(F32(Shape{1, 32}, x));
  ASSERT_TRUE(q.ok());
  const uint8_t* b = q->bytes().data();
  // The encoding quantizes as llama-quantize does (GGML's quantize_iq4_nl, scale search): the
  // best scale is slightly above 1 (7 -> level 1 fits better than 13), fp16 1.
  EXPECT_EQ(b[0] | (b[1] << 8), 0x3c00);
  EXPECT_EQ(b[2], 0x80);  // element 0: index 0; element 16 (0): index 8 (level 1)
  EXPECT_EQ(b[3], 0x8f);
  EXPECT_EQ(b[4], 0x88);  // element 2: index 8 (level 1)
  // GGML's quantize_row_iq4_nl_ref (no search) keeps d = 1 - 9e-6 and the tie goes up: 7 -> 13.
  uint8_t ref[18];
  quantization_internal::QuantizeRowIq4NlRef(x.data(), ref, 32);
  EXPECT_EQ(ref[0] | (ref[1] << 8), 0x3c00);
  EXPECT_EQ(ref[4], 0x89);
}

TEST(QuantizeTest, RejectsNonF32) {
  absl::StatusOr<Tensor> t = Tensor::Create(DType::kInt32, Shape{2, 32});
  ASSERT_TRUE(t.ok());
  absl::StatusOr<Tensor> q = Q4_0Encoding().Quantize(*t);
  ASSERT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(q.status().message()), HasSubstr("f32"));
  EXPECT_THAT(std::string(q.status().message()), HasSubstr("i32[2, 32]"));
}

TEST(QuantizeTest, RejectsBadLastDimension) {
  absl::StatusOr<Tensor> q = Q8_0Encoding().Quantize(F32(Shape{2, 48}, Gaussian(96, 2)));
  ASSERT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(q.status().message()), HasSubstr("q8_0"));
  EXPECT_THAT(std::string(q.status().message()), HasSubstr("[2, 48]"));
  EXPECT_THAT(std::string(q.status().message()), HasSubstr("multiple of 32"));
}

TEST(QuantizeTest, RejectsNanAndInfNamingTheFlatIndex) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    for (const QuantizationEncoding* enc : AllBuiltins()) {
      std::vector<float> x = Gaussian(4 * 256, 3);
      x[777] = bad;
      x[900] = bad;  // the first one is reported
      absl::StatusOr<Tensor> q = enc->Quantize(F32(Shape{4, 256}, x));
      ASSERT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument) << enc->name();
      EXPECT_THAT(std::string(q.status().message()), HasSubstr("flat index 777"));
    }
  }
}

TEST(QuantizeTest, NanReportedFromAParallelRun) {
  std::unique_ptr<pthreadpool, decltype(&pthreadpool_destroy)> pool(pthreadpool_create(2),
                                                                    pthreadpool_destroy);
  std::vector<float> x = Gaussian(64 * 1024, 4);
  x[50000] = std::numeric_limits<float>::quiet_NaN();
  x[63000] = std::numeric_limits<float>::infinity();
  absl::StatusOr<Tensor> q = Q4_0Encoding().Quantize(F32(Shape{64, 1024}, x), pool.get());
  ASSERT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(q.status().message()), HasSubstr("flat index 50000"));
}

TEST(QuantizeTest, HugeValuesMatchGgmlInfScale) {
  // Documented behaviour (as GGML): a block whose scale overflows fp16 quantizes without error
  // and stores an infinite scale; dequantized values are then +-inf or NaN.
  std::vector<float> x(32, 1.0f);
  x[5] = 1e30f;
  absl::StatusOr<Tensor> q = Q8_0Encoding().Quantize(F32(Shape{32}, x));
  ASSERT_TRUE(q.ok()) << q.status();
  const uint8_t* b = q->bytes().data();
  EXPECT_EQ(b[0] | (b[1] << 8), 0x7c00);  // fp16 +inf
  absl::StatusOr<Tensor> y = Q8_0Encoding().Dequantize(*q);
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(std::isinf(FloatsOf(*y)[5]));
  EXPECT_TRUE(std::isnan(FloatsOf(*y)[0]));  // q = 0 times inf
}

TEST(QuantizeTest, SubnormalScaleGivesZeroQuants) {
  // GGML's undefined case: 1/d overflows. edgeq writes zero quants and a zero scale.
  for (const QuantizationEncoding* enc : {&Q4_0Encoding(), &Q8_0Encoding()}) {
    std::vector<float> x(32);
    for (int i = 0; i < 32; ++i)
      x[i] = (i % 3 - 1) * 1e-40f * (1 + i);  // |max| 3.2e-39: 1/d is inf
    absl::StatusOr<Tensor> q = enc->Quantize(F32(Shape{32}, x));
    ASSERT_TRUE(q.ok());
    for (size_t i = 2; i < q->bytes().size(); ++i) EXPECT_EQ(q->bytes()[i], 0) << enc->name();
    absl::StatusOr<Tensor> y = enc->Dequantize(*q);
    ASSERT_TRUE(y.ok());
    for (float v : FloatsOf(*y)) EXPECT_EQ(v, 0.0f) << enc->name();
  }
}

TEST(DequantizeTest, Errors) {
  absl::StatusOr<Tensor> f = Tensor::Create(DType::kFloat32, Shape{2, 18});
  absl::StatusOr<Tensor> d = Q4_0Encoding().Dequantize(*f);
  ASSERT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("u8"));

  absl::StatusOr<Tensor> bytes = Tensor::Create(DType::kUInt8, Shape{2, 20});
  d = Q4_0Encoding().Dequantize(*bytes);
  ASSERT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("20 bytes"));
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("18-byte"));

  absl::StatusOr<Tensor> q = Q8_0Encoding().Quantize(F32(Shape{2, 32}, Gaussian(64, 5)));
  ASSERT_TRUE(q.ok());
  d = Q4_0Encoding().Dequantize(*q);  // 68 bytes per row: a whole number of... no: 68 % 18 != 0
  ASSERT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("q8_0"));

  // Wrong tag with a compatible byte count.
  absl::StatusOr<Tensor> q4 = Q4_0Encoding().Quantize(F32(Shape{2, 32 * 17}, Gaussian(1088, 6)));
  ASSERT_TRUE(q4.ok());  // 17 * 18 = 306 bytes per row = 9 Q8_0 blocks
  d = Q8_0Encoding().Dequantize(*q4);
  ASSERT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("tagged with encoding 'q4_0'"));
}

TEST(DequantizeTest, UntaggedBytesDecodeToTheDerivedShape) {
  const std::vector<float> x = Gaussian(2 * 64, 7);
  absl::StatusOr<Tensor> q = Q4_0Encoding().Quantize(F32(Shape{2, 64}, x));
  ASSERT_TRUE(q.ok());
  absl::StatusOr<Tensor> raw =
      Tensor::FromValues<uint8_t>(q->shape(), absl::MakeConstSpan(q->bytes()));
  ASSERT_TRUE(raw.ok());
  ASSERT_FALSE(raw->is_quantized());
  absl::StatusOr<Tensor> a = Q4_0Encoding().Dequantize(*raw);
  absl::StatusOr<Tensor> b = Q4_0Encoding().Dequantize(*q);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->shape(), (Shape{2, 64}));
  EXPECT_EQ(0, std::memcmp(a->raw_data(), b->raw_data(), a->size_bytes()));
}

TEST(ParallelTest, TwoThreadsGiveIdenticalBytes) {
  std::unique_ptr<pthreadpool, decltype(&pthreadpool_destroy)> pool(pthreadpool_create(2),
                                                                    pthreadpool_destroy);
  ASSERT_NE(pool, nullptr);
  for (const QuantizationEncoding* enc : AllBuiltins()) {
    SCOPED_TRACE(std::string(enc->name()));
    // A shape with many tasks and one with a single long row (split at blocks), both large enough
    // for the pool (core/parallel.h's kMinParallelWork) when dequantizing too.
    for (const Shape& shape : {Shape{33, 1024}, Shape{1, 256 * 160}}) {
      const std::vector<float> x = Gaussian(shape.num_elements(), 8);
      const Tensor t = F32(shape, x);
      absl::StatusOr<Tensor> serial = enc->Quantize(t);
      absl::StatusOr<Tensor> parallel = enc->Quantize(t, pool.get());
      ASSERT_TRUE(serial.ok() && parallel.ok());
      ASSERT_EQ(serial->size_bytes(), parallel->size_bytes());
      EXPECT_EQ(0, std::memcmp(serial->raw_data(), parallel->raw_data(), serial->size_bytes()));
      absl::StatusOr<Tensor> ys = enc->Dequantize(*serial);
      absl::StatusOr<Tensor> yp = enc->Dequantize(*serial, pool.get());
      ASSERT_TRUE(ys.ok() && yp.ok());
      EXPECT_EQ(0, std::memcmp(ys->raw_data(), yp->raw_data(), ys->size_bytes()));
    }
  }
}

// A user encoding with a per-row scale: rows must be given to QuantizeRow whole.
class RowScaleEncoding : public QuantizationEncoding {
 public:
  explicit RowScaleEncoding(std::string name) : name_(std::move(name)) {}
  absl::string_view name() const override { return name_; }
  BlockParameters block_parameters() const override { return {4, 4}; }
  void QuantizeRow(const float* x, uint8_t* out, int64_t n) const override {
    float amax = 0;
    for (int64_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
    // Byte i = round(x / amax * 127) + 128; the row's scale is stored nowhere: good enough to
    // check that rows arrive whole (a split row would have another amax).
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<uint8_t>(128 + std::lround(amax > 0 ? x[i] / amax * 127 : 0));
    }
  }
  void DequantizeRow(const uint8_t* in, float* y, int64_t n) const override {
    for (int64_t i = 0; i < n; ++i) y[i] = (in[i] - 128) / 127.0f;
  }

 private:
  std::string name_;
};

// ---- CheckQuantizedTensor: the crafted cases a checkpoint could carry ----

// A u8 tensor of `bytes` zero bytes in shape [.., bytes], tagged (encoding, logical).
Tensor Tagged(DType dtype, const Shape& physical, const std::string& encoding,
              const Shape& logical) {
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, physical);
  EXPECT_TRUE(t.ok()) << t.status();
  t->SetQuantization(encoding, logical);
  return *t;
}

TEST(CheckQuantizedTensorTest, AcceptsWellFormedAndUntaggedTensors) {
  EXPECT_TRUE(
      CheckQuantizedTensor("w", Tagged(DType::kUInt8, Shape({4, 2 * 18}), "q4_0", Shape({4, 64})))
          .ok());
  EXPECT_TRUE(CheckQuantizedTensor(
                  "w", Tagged(DType::kUInt8, Shape({2, 3, 210}), "q6_k", Shape({2, 3, 256})))
                  .ok());
  absl::StatusOr<Tensor> q = Q4_KEncoding().Quantize(F32(Shape({2, 256}), std::vector<float>(512)));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_TRUE(CheckQuantizedTensor("w", *q).ok());
  absl::StatusOr<Tensor> plain = Tensor::Create(DType::kFloat32, Shape({0, 3}));
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(CheckQuantizedTensor("x", *plain).ok());
}

TEST(CheckQuantizedTensorTest, CutBytesNameTensorEncodingShapeAndCounts) {
  // The file: token_embd.weight cut to one Q4_0 block, its logical shape kept.
  const absl::Status s = CheckQuantizedTensor(
      "token_embd.weight", Tagged(DType::kUInt8, Shape({18}), "q4_0", Shape({32000, 288})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'token_embd.weight'"));
  EXPECT_THAT(s.message(), HasSubstr("encoding 'q4_0'"));
  EXPECT_THAT(s.message(), HasSubstr("[32000, 288]"));
  EXPECT_THAT(s.message(), HasSubstr("expected 5184000 bytes (32000 rows x 9 blocks x 18 bytes)"));
  EXPECT_THAT(s.message(), HasSubstr("got 18"));
}

TEST(CheckQuantizedTensorTest, InflatedLogicalRowsAreRefused) {
  const absl::Status s =
      CheckQuantizedTensor("w", Tagged(DType::kUInt8, Shape({4, 36}), "q8_0", Shape({400, 32})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("expected 13600 bytes (400 rows x 1 blocks x 34 bytes)"));
  EXPECT_THAT(s.message(), HasSubstr("got 144"));
}

TEST(CheckQuantizedTensorTest, RowsOfTheWrongLengthAreRefused) {
  // Right total, wrong row length: [2, 72] bytes for logical [4, 64] q4_0 (rows of 36 bytes).
  const absl::Status s =
      CheckQuantizedTensor("w", Tagged(DType::kUInt8, Shape({2, 72}), "q4_0", Shape({4, 64})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("last byte dimension must be one row's 36 bytes"));
}

TEST(CheckQuantizedTensorTest, RaggedKIsRefused) {
  const absl::Status s =
      CheckQuantizedTensor("w", Tagged(DType::kUInt8, Shape({4, 144}), "q4_k", Shape({4, 300})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("last dimension 300 is not a multiple of 256"));
}

TEST(CheckQuantizedTensorTest, UnknownEncodingIsRefused) {
  const absl::Status s =
      CheckQuantizedTensor("w", Tagged(DType::kUInt8, Shape({4, 18}), "q3_zz", Shape({4, 32})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("unknown encoding 'q3_zz'"));
  EXPECT_THAT(s.message(), HasSubstr("'w'"));
}

TEST(CheckQuantizedTensorTest, TagMustBeTheRegisteredSpelling) {
  const absl::Status s =
      CheckQuantizedTensor("w", Tagged(DType::kUInt8, Shape({4, 18}), "Q4_0", Shape({4, 32})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("must be the registered name 'q4_0'"));
}

TEST(CheckQuantizedTensorTest, QuantizedTagOnF32IsRefused) {
  const absl::Status s =
      CheckQuantizedTensor("w", Tagged(DType::kFloat32, Shape({4, 18}), "q4_0", Shape({4, 32})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("must be u8, got f32"));
}

TEST(CheckQuantizedTensorTest, ZeroDimensionAndScalarAreRefused) {
  absl::Status s =
      CheckQuantizedTensor("w", Tagged(DType::kUInt8, Shape({0, 18}), "q4_0", Shape({0, 32})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("logical dimension 0 is 0"));
  s = CheckQuantizedTensor("w", Tagged(DType::kUInt8, Shape({4, 0}), "q4_0", Shape({4, 0})));
  EXPECT_THAT(s.message(), HasSubstr("logical dimension 1 is 0"));
  s = CheckQuantizedTensor("w", Tagged(DType::kUInt8, Shape({18}), "q4_0", Shape()));
  EXPECT_THAT(s.message(), HasSubstr("rank >= 1"));
}

TEST(RegistryTest, BuiltinsAreRegistered) {
  const std::vector<std::string> names = EncodingRegistry::Global().Names();
  for (const char* n :
       {"bf16", "f16", "iq4_nl", "q4_0", "q4_1", "q4_k", "q5_0", "q5_1", "q5_k", "q6_k", "q8_0"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  absl::StatusOr<const QuantizationEncoding*> e = FindEncoding("q5_k");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, &Q5_KEncoding());
}

TEST(RegistryTest, RegisterFindDuplicateUnknown) {
  ASSERT_TRUE(
      EncodingRegistry::Global().Register(std::make_unique<RowScaleEncoding>("test_row")).ok());
  absl::StatusOr<const QuantizationEncoding*> e = FindEncoding("test_row");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->name(), "test_row");

  absl::Status dup =
      EncodingRegistry::Global().Register(std::make_unique<RowScaleEncoding>("test_row"));
  EXPECT_EQ(dup.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(dup.message()), HasSubstr("test_row"));
  EXPECT_EQ(EncodingRegistry::Global().Register(std::make_unique<RowScaleEncoding>("q4_0")).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(EncodingRegistry::Global().Register(std::make_unique<RowScaleEncoding>("")).code(),
            absl::StatusCode::kInvalidArgument);

  // Names are matched ignoring case, and must be unique ignoring case.
  EXPECT_EQ(*FindEncoding("TEST_ROW"), *e);
  EXPECT_EQ(*FindEncoding("Q4_K"), &Q4_KEncoding());
  EXPECT_EQ(*FindEncoding("q4_K"), &Q4_KEncoding());
  EXPECT_EQ(*FindEncoding("BF16"), &BFloat16Encoding());
  EXPECT_EQ(
      EncodingRegistry::Global().Register(std::make_unique<RowScaleEncoding>("Test_Row")).code(),
      absl::StatusCode::kAlreadyExists);

  absl::StatusOr<const QuantizationEncoding*> unknown = FindEncoding("q3_xyz");
  ASSERT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("q3_xyz"));
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("q4_0, q4_1, q4_k"));
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("test_row"));

  // A user encoding gets whole rows, serial or parallel.
  std::unique_ptr<pthreadpool, decltype(&pthreadpool_destroy)> pool(pthreadpool_create(2),
                                                                    pthreadpool_destroy);
  std::vector<float> x = Gaussian(8 * 8192, 9);
  x[3] = 100.0f;  // row 0's scale
  const Tensor t = F32(Shape{8, 8192}, x);
  for (pthreadpool_t p : {static_cast<pthreadpool_t>(nullptr), pool.get()}) {
    absl::StatusOr<Tensor> q = (*e)->Quantize(t, p);
    ASSERT_TRUE(q.ok()) << q.status();
    EXPECT_EQ(q->bytes()[3], 255);                       // 100 / 100 * 127 + 128
    EXPECT_NEAR(q->bytes()[4], 128, 1);                  // tiny relative to 100
    EXPECT_GT(std::abs(q->bytes()[8192 + 1] - 128), 0);  // row 1 has its own scale
    absl::StatusOr<Tensor> y = (*e)->Dequantize(*q, p);
    ASSERT_TRUE(y.ok());
    EXPECT_EQ(y->shape(), (Shape{8, 8192}));
  }
}

}  // namespace
}  // namespace edgeq
