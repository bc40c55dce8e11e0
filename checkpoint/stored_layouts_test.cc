// Stored layout tags in .max files: the quantized view Load gives, the registry, the round trip
// through Save, and the refusals of tags that do not fit their tensor.
#include "checkpoint/stored_layouts.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "checkpoint/max_format.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace checkpoint {
namespace {

constexpr char kName[] = "blk.0.attn_q.weight";

// q4_0 [16, 32] (GGML: 16 x 18 = 288 bytes) stored as 320 layout bytes.
TensorDict Stored(int64_t bytes = 320) {
  TensorDict d;
  std::vector<uint8_t> b(static_cast<size_t>(bytes));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 13 + 5);
  EXPECT_TRUE(d.Set(kName, *Tensor::FromValues<uint8_t>(Shape{bytes}, b)).ok());
  StoredLayoutTag tag;
  tag.tensor = kName;
  tag.layout = "q4_0_avx2_gemv";
  tag.encoding = "q4_0";
  tag.isa = "avx2";
  tag.version = 1;
  tag.n = 16;
  tag.k = 32;
  TagStoredLayout(tag, &d);
  return d;
}

absl::StatusOr<TensorDict> Reload(const std::string& bytes) {
  auto owner = std::make_shared<std::string>(bytes);
  return LoadFromBuffer(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(owner->data()), owner->size()), owner);
}

TEST(StoredLayoutsTest, LoadGivesARegisteredViewAndSaveWritesTheStoredBytes) {
  const std::string file = *SaveToString(Stored());
  const void* address = nullptr;
  {
    absl::StatusOr<TensorDict> d = Reload(file);
    ASSERT_TRUE(d.ok()) << d.status();
    const Tensor& t = **d->Get(kName);
    EXPECT_EQ(t.encoding(), "q4_0");
    EXPECT_EQ(t.logical_shape(), (Shape{16, 32}));
    EXPECT_EQ(t.size_bytes(), 288u);
    address = t.bytes().data();
    std::optional<StoredLayoutTag> tag = FindStoredLayout(address);
    ASSERT_TRUE(tag.has_value());
    EXPECT_EQ(tag->layout, "q4_0_avx2_gemv");
    EXPECT_EQ(tag->isa, "avx2");
    EXPECT_EQ(tag->bytes.size(), 320u);
    EXPECT_EQ(tag->bytes.data(), address);
    // Saved again: the same file, byte for byte.
    absl::StatusOr<std::string> again = SaveToString(*d);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(*again, file);
  }
  EXPECT_FALSE(FindStoredLayout(address).has_value());  // gone with the last view
}

TEST(StoredLayoutsTest, RefusesTagsThatDoNotFit) {
  const auto refused = [](const TensorDict& d, const std::string& want) {
    absl::StatusOr<TensorDict> r = Reload(*SaveToString(d));
    ASSERT_FALSE(r.ok()) << want;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(r.status().message(), want)) << r.status();
  };
  refused(Stored(287),
          "tensor 'blk.0.attn_q.weight' stored layout: 287 bytes, fewer than q4_0 [16, 32] needs "
          "(288)");
  TensorDict shape = Stored();
  shape.SetMetadata(std::string(kLayoutShapeKeyPrefix) + kName, MetadataValue::IntArray({16}));
  refused(shape, "edgeq.layout_shape.blk.0.attn_q.weight is [16]; expected [n, k], both positive");
  TensorDict names = Stored();
  names.SetMetadata(std::string(kLayoutKeyPrefix) + kName, MetadataValue::String("x"));
  refused(names, "expected string[3] (layout, encoding, ISA)");
  TensorDict orphan = Stored();
  orphan.SetMetadata(std::string(kLayoutKeyPrefix) + "gone",
                     MetadataValue::StringArray({"a", "q4_0", "avx2"}));
  refused(orphan, "tags a tensor the file does not hold");
  TensorDict k = Stored();
  k.SetMetadata(std::string(kLayoutShapeKeyPrefix) + kName,
                MetadataValue::IntArray({16, 33}, MetadataValue::Width::kU64));
  refused(k, "shape [16, 33] does not fit q4_0 (k a multiple of 32)");
}

}  // namespace
}  // namespace checkpoint
}  // namespace edgeq
