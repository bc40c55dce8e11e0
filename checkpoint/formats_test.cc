#include "checkpoint/formats.h"

#include "absl/strings/match.h"
#include "checkpoint/internal/testing.h"
#include "gtest/gtest.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace checkpoint {
namespace {

TEST(FormatsTest, DetectsByMagicThenExtension) {
  const uint8_t gguf[] = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
  EXPECT_EQ(*DetectFormat("x.bin", gguf), Format::kGguf);
  EXPECT_EQ(*DetectFormat("x.bin", {}), Format::kLlama2c);
  EXPECT_EQ(*DetectFormat("dir.v1/x.SAFETENSORS", {}), Format::kSafetensors);
  absl::StatusOr<Format> f = DetectFormat("x.onnx", {});
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(f.status().message(), "'onnx'"));
  EXPECT_FALSE(FormatFromExtension("dir.d/noext").ok());
}

// llama2.c -> .max -> GGUF -> safetensors -> .max: the tensors never change.
TEST(FormatsTest, ConvertsThroughEveryFormat) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  absl::StatusOr<OpenedCheckpoint> bin = OpenCheckpoint(bin_path);
  ASSERT_TRUE(bin.ok()) << bin.status();
  EXPECT_EQ(bin->format, Format::kLlama2c);
  const Tensor& emb = **bin->dict.Get("token_embd.weight");
  EXPECT_EQ(static_cast<const uint8_t*>(emb.raw_data()) - bin->file_bytes.data(), 28);
  const std::string dir = testing::TempDir();
  TensorDict current = bin->dict;
  for (const char* name : {"a.max", "b.gguf", "c.safetensors", "d.max", "e.bin"}) {
    const std::string path = dir + "/" + name;
    ASSERT_TRUE(WriteCheckpoint(current, path).ok()) << name;
    absl::StatusOr<OpenedCheckpoint> c = OpenCheckpoint(path, {.verify_data = true});
    ASSERT_TRUE(c.ok()) << c.status();
    for (const std::string& k : bin->dict.Keys()) {
      const Tensor& a = **bin->dict.Get(k);
      absl::StatusOr<const Tensor*> b = c->dict.Get(k);
      ASSERT_TRUE(b.ok()) << name << " " << k;
      ASSERT_EQ(a.shape(), (*b)->shape()) << name << " " << k;
      EXPECT_EQ(0, std::memcmp(a.raw_data(), (*b)->raw_data(), a.size_bytes())) << name << " " << k;
    }
    current = c->dict;
  }
  absl::StatusOr<OpenedCheckpoint> missing = OpenCheckpoint(dir + "/nope.gguf");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace checkpoint
}  // namespace edgeq
