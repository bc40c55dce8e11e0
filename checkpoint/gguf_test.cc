#include "checkpoint/gguf.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "checkpoint/internal/testing.h"
#include "gtest/gtest.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace checkpoint {
namespace {

using testing::CopyToBuffer;
using testing::ExpectSameMetadata;
using testing::ExpectSameTensors;
using testing::ReadFileOrDie;
using testing::TempDir;

absl::StatusOr<TensorDict> Parse(const std::string& bytes) {
  testing::OwnedBuffer b = CopyToBuffer(bytes);
  return ReadGgufFromBuffer(b.span, b.owner);
}

void Put32(std::string* s, uint32_t v) { s->append(reinterpret_cast<const char*>(&v), 4); }
void Put64(std::string* s, uint64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }
void PutStr(std::string* s, const std::string& v) {
  Put64(s, v.size());
  *s += v;
}

// A v3 file with no metadata and one tensor "t" of GGML `type` with dims {ne0, ne1}, followed
// by `data_bytes` bytes of data.
std::string OneTensorGguf(uint32_t type, uint64_t ne0, uint64_t ne1, size_t data_bytes,
                          uint64_t offset = 0) {
  std::string s = "GGUF";
  Put32(&s, 3);
  Put64(&s, 1);
  Put64(&s, 0);
  PutStr(&s, "t");
  Put32(&s, 2);
  Put64(&s, ne0);
  Put64(&s, ne1);
  Put32(&s, type);
  Put64(&s, offset);
  s.resize((s.size() + 31) / 32 * 32, '\0');
  s.append(data_bytes, '\x11');
  return s;
}

TEST(GgufTest, ReadsStories260K) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf_path, "models/stories260K.gguf");
  absl::StatusOr<TensorDict> d = ReadGguf(gguf_path);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->size(), 48u);
  EXPECT_EQ(d->MetadataKeys().size(), 19u);
  EXPECT_EQ(d->Keys()[0], "token_embd.weight");
  const Tensor& emb = **d->Get("token_embd.weight", DType::kFloat32);
  EXPECT_EQ(emb.shape(), (Shape{512, 64}));
  EXPECT_TRUE(emb.is_view());
  EXPECT_EQ((**d->Get("blk.0.attn_k.weight")).shape(), (Shape{32, 64}));
  EXPECT_EQ((**d->Get("blk.4.ffn_down.weight")).shape(), (Shape{64, 172}));
  EXPECT_EQ((**d->Get("output_norm.weight")).shape(), (Shape{64}));
  EXPECT_EQ(*d->GetString("general.architecture"), "llama");
  EXPECT_EQ(*d->GetInt("llama.block_count"), 5);
  EXPECT_EQ(*d->GetInt("llama.context_length"), 2048);
  EXPECT_EQ((*d->GetMetadata("llama.block_count"))->width(), MetadataValue::Width::kU32);
  EXPECT_EQ(*d->GetFloat("llama.attention.layer_norm_rms_epsilon"), static_cast<double>(1e-5f));
  const MetadataValue& tokens = **d->GetMetadata("tokenizer.ggml.tokens");
  ASSERT_EQ(tokens.size(), 512u);
  EXPECT_EQ(tokens.strings()[1], "<s>");
  EXPECT_EQ((*d->GetMetadata("tokenizer.ggml.scores"))->floats().size(), 512u);
  EXPECT_EQ((*d->GetMetadata("tokenizer.ggml.token_type"))->ints()[1], 3);
  // u32 0xFFFFFFFF stays unsigned.
  EXPECT_EQ(*d->GetInt("tokenizer.ggml.padding_token_id"), 4294967295);
}

// Writing what was read gives back the original file, byte for byte (same key order,
// alignment and tensor layout as llama.cpp's writer).
TEST(GgufTest, WriteOfReadIsByteIdenticalToTheOriginal) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf_path, "models/stories260K.gguf");
  absl::StatusOr<TensorDict> d = ReadGguf(gguf_path);
  ASSERT_TRUE(d.ok()) << d.status();
  absl::StatusOr<std::string> bytes = WriteGgufToString(*d);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const std::string original = ReadFileOrDie(gguf_path);
  ASSERT_EQ(bytes->size(), original.size());
  EXPECT_TRUE(*bytes == original);
  const std::string path = TempDir() + "/copy.gguf";
  ASSERT_TRUE(WriteGguf(*d, path).ok());
  EXPECT_TRUE(ReadFileOrDie(path) == original);
}

TEST(GgufTest, V1IsRefusedWithAClearMessage) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(v1_path, "models/tinyllamas-stories-260k-f32.v1.gguf");
  absl::StatusOr<TensorDict> d = ReadGguf(v1_path);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(d.status().message(), "GGUF version 1")) << d.status();
  EXPECT_TRUE(absl::StrContains(d.status().message(), "versions 2 and 3")) << d.status();
}

TEST(GgufTest, QuantizedRoundTripIsBitIdentical) {
  std::mt19937 rng(7);
  TensorDict d;
  struct Case {
    const char* enc;
    int64_t epb, bs;
  };
  const Case cases[] = {{"q4_0", 32, 18},   {"q8_0", 32, 34},   {"q4_k", 256, 144},
                        {"q5_k", 256, 176}, {"q6_k", 256, 210}, {"bf16", 1, 2},
                        {"q4_1", 32, 20},   {"q5_0", 32, 22},   {"q5_1", 32, 24},
                        {"iq4_nl", 32, 18}};
  for (const Case& c : cases) {
    const int64_t rows = 3, k = 512;
    std::vector<uint8_t> bytes(static_cast<size_t>(rows * k / c.epb * c.bs));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    Tensor t = *Tensor::FromValues<uint8_t>(Shape{rows, k / c.epb * c.bs}, bytes);
    t.SetQuantization(c.enc, Shape{rows, k});
    ASSERT_TRUE(d.Set(std::string("w.") + c.enc, t).ok());
  }
  ASSERT_TRUE(d.Set("f16", *Tensor::Create(DType::kFloat16, Shape{2, 3, 5})).ok());
  ASSERT_TRUE(d.Set("i32", *Tensor::FromValues<int32_t>(Shape{2}, {-1, 7})).ok());
  ASSERT_TRUE(d.Set("scalar", *Tensor::Full(Shape{}, 2.5f)).ok());
  d.SetMetadata("general.alignment", MetadataValue::Int(64, MetadataValue::Width::kU32));
  d.SetMetadata("a.bools", MetadataValue::BoolArray({true, false}));
  d.SetMetadata("a.i8", MetadataValue::Int(-5, MetadataValue::Width::kI8));
  d.SetMetadata("a.u16s", MetadataValue::IntArray({1, 65535}, MetadataValue::Width::kU16));
  d.SetMetadata("a.f64", MetadataValue::Float(0.1));
  d.SetMetadata("a.i64", MetadataValue::Int(-(int64_t{1} << 40)));
  d.SetMetadata("a.strs", MetadataValue::StringArray({"x", "", "\xe2\x96\x81the"}));
  absl::StatusOr<std::string> bytes = WriteGgufToString(d);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<TensorDict> back = Parse(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameTensors(d, *back);
  ExpectSameMetadata(d, *back);
  for (const std::string& k : back->Keys()) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>((**back->Get(k)).raw_data()) % 64, 0u) << k;
  }
  EXPECT_TRUE(*WriteGgufToString(*back) == *bytes);
  // GGUF dims are reversed: the q4_0 tensor's dims are {512, 3}.
  const size_t pos = bytes->find("w.q4_0");
  ASSERT_NE(pos, std::string::npos);
  uint64_t ne0;
  std::memcpy(&ne0, bytes->data() + pos + 6 + 4, 8);
  EXPECT_EQ(ne0, 512u);
}

TEST(GgufTest, UnsupportedTypesNameTypeAndTensor) {
  absl::StatusOr<TensorDict> d = Parse(OneTensorGguf(/*Q8_1=*/9, 32, 1, 36));
  EXPECT_EQ(d.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(d.status().message(), "tensor 't' has GGML type Q8_1 (9)"))
      << d.status();
  d = Parse(OneTensorGguf(99, 32, 1, 20));
  EXPECT_EQ(d.status().code(), absl::StatusCode::kUnimplemented);
  // A u8 tensor cannot be written.
  TensorDict u8;
  ASSERT_TRUE(u8.Set("bytes", *Tensor::Create(DType::kUInt8, Shape{4})).ok());
  absl::StatusOr<std::string> w = WriteGgufToString(u8);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(w.status().message(), "'bytes'")) << w.status();
}

TEST(GgufTest, BadFilesAreClearErrors) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf_path, "models/stories260K.gguf");
  ASSERT_TRUE(Parse(OneTensorGguf(2, 64, 2, 72)).ok());  // Q4_0 [2, 64]: 4 blocks, 72 bytes
  auto msg = [](const std::string& bytes) { return std::string(Parse(bytes).status().message()); };
  EXPECT_TRUE(absl::StrContains(msg(OneTensorGguf(2, 64, 2, 71)), "runs past the end"));
  EXPECT_TRUE(absl::StrContains(msg(OneTensorGguf(2, 48, 2, 72)), "multiple of 32"));
  // A quantized tensor with a zero dimension is refused by CheckQuantizedTensor (issue 14).
  EXPECT_TRUE(absl::StrContains(msg(OneTensorGguf(2, 64, 0, 0)),
                                "quantized tensor 't' (encoding 'q4_0', logical shape [0, 64]"))
      << msg(OneTensorGguf(2, 64, 0, 0));
  EXPECT_TRUE(absl::StrContains(msg(OneTensorGguf(2, 64, 0, 0)), "logical dimension 0 is 0"));
  EXPECT_TRUE(absl::StrContains(msg(OneTensorGguf(0, 4, 1, 64, /*offset=*/8)),
                                "not a multiple of the alignment"));
  EXPECT_TRUE(
      absl::StrContains(msg(OneTensorGguf(0, uint64_t{1} << 62, 1, 64)), "above the limit"));
  EXPECT_TRUE(absl::StrContains(msg("GGML"), "not a GGUF file"));
  std::string big_endian = OneTensorGguf(0, 4, 1, 16);
  big_endian[4] = 0;
  big_endian[7] = 3;
  EXPECT_TRUE(absl::StrContains(msg(big_endian), "big-endian")) << msg(big_endian);
  std::string huge = OneTensorGguf(0, 4, 1, 16);
  huge[8 + 7] = 0x7f;  // tensor count
  EXPECT_TRUE(absl::StrContains(msg(huge), "cannot fit")) << msg(huge);

  // Two tensors sharing bytes, and duplicate names.
  std::string two = "GGUF";
  Put32(&two, 3);
  Put64(&two, 2);
  Put64(&two, 0);
  for (const char* name : {"a", "b"}) {
    PutStr(&two, name);
    Put32(&two, 1);
    Put64(&two, 8);
    Put32(&two, 0);
    Put64(&two, 0);
  }
  two.resize((two.size() + 31) / 32 * 32, '\0');
  two.append(64, '\0');
  EXPECT_TRUE(absl::StrContains(msg(two), "'a' and 'b' overlap")) << msg(two);
  std::string dup = two;
  dup[dup.find('b', 24)] = 'a';
  EXPECT_TRUE(absl::StrContains(msg(dup), "duplicate tensor name 'a'")) << msg(dup);

  // Every truncation of the real file is an error, never a crash.
  const std::string real = ReadFileOrDie(gguf_path);
  for (size_t n = 0; n < 20000; n += 7) {
    EXPECT_FALSE(Parse(real.substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(Parse(real.substr(0, real.size() - 1)).ok());
}

// llama.cpp's vocabulary-only files have no tensors and end right after the metadata, without
// the padding up to the alignment; ggml reads them, and so do we.
// The writer checks the quantized-tensor invariant as the readers do (CheckQuantizedTensor): a
// tensor whose bytes do not match its encoding and logical shape is not written.
// Issue 27: names from the file are quoted short in errors, and tensor names have a ceiling.
TEST(GgufTest, HugeNamesAreRefusedOrQuotedShort) {
  const std::string huge(1 << 20, 'n');
  TensorDict d;
  ASSERT_TRUE(d.Set(huge, *Tensor::Full({2}, 1.0f)).ok());
  absl::StatusOr<std::string> bytes = WriteGgufToString(d);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<TensorDict> r = Parse(*bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(r.status().message().size(), 400u) << r.status().message().substr(0, 400);
  EXPECT_TRUE(absl::StrContains(r.status().message(),
                                "... (1048576 bytes): a name of 1048576 bytes; expected at most "
                                "1024"))
      << r.status();
  // A metadata key of 1 MB whose value type is invalid: the key is quoted short.
  TensorDict m;
  m.SetMetadata(huge, MetadataValue::Int(1));
  bytes = WriteGgufToString(m);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  std::string bad = *bytes;
  const size_t type_at = 4 + 4 + 8 + 8 + 8 + huge.size();  // magic, version, counts, key
  bad[type_at] = 99;
  r = Parse(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(r.status().message().size(), 400u) << r.status().message().substr(0, 400);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "(1048576 bytes)")) << r.status();
}

TEST(GgufTest, WriterRefusesQuantizedTensorsWhoseBytesDoNotMatch) {
  struct Case {
    const char* what;
    Shape physical;
    const char* encoding;
    Shape logical;
    const char* message;
  };
  const Case cases[] = {
      {"cut bytes", Shape{18}, "q4_0", Shape{64, 32},
       "expected 1152 bytes (64 rows x 1 blocks x 18 bytes), got 18"},
      {"ragged k", Shape{2, 144}, "q4_k", Shape{2, 250},
       "last dimension 250 is not a multiple of 256"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    TensorDict d;
    Tensor t = *Tensor::Create(DType::kUInt8, c.physical);
    t.SetQuantization(c.encoding, c.logical);
    ASSERT_TRUE(d.Set("blk.0.ffn_up.weight", t).ok());
    absl::StatusOr<std::string> bytes = WriteGgufToString(d);
    ASSERT_FALSE(bytes.ok());
    EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string msg(bytes.status().message());
    EXPECT_TRUE(absl::StrContains(msg, "'blk.0.ffn_up.weight'")) << msg;
    EXPECT_TRUE(absl::StrContains(msg, c.message)) << msg;
  }
}

TEST(GgufTest, MetadataOnlyFileMayEndBeforeThePadding) {
  std::string s = "GGUF";
  Put32(&s, 3);
  Put64(&s, 0);  // tensors
  Put64(&s, 1);  // key/values
  PutStr(&s, "general.name");
  Put32(&s, 8);  // string
  PutStr(&s, "vocab");
  ASSERT_NE(s.size() % 32, 0u);
  absl::StatusOr<TensorDict> dict = Parse(s);
  ASSERT_TRUE(dict.ok()) << dict.status();
  EXPECT_EQ(dict->size(), 0u);
  EXPECT_EQ(*dict->GetString("general.name"), "vocab");
}

TEST(GgufTest, BitFlipsNeverCrash) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf_path, "models/stories260K.gguf");
  const std::string real = ReadFileOrDie(gguf_path).substr(0, 14400);  // header + tensor infos
  std::mt19937 rng(1);
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bad = real;
    const size_t pos = rng() % 14152;
    bad[pos] = static_cast<char>(bad[pos] ^ (1 << (rng() % 8)));
    if (!Parse(bad).ok()) ++errors;
  }
  EXPECT_EQ(errors, 3000);  // the data section is cut off, so every parse must fail cleanly
}

}  // namespace
}  // namespace checkpoint
}  // namespace edgeq
