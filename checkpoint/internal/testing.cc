#include "checkpoint/internal/testing.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace edgeq {
namespace checkpoint {
namespace testing {

std::string TempDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void WriteFileOrDie(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(f.good()) << "cannot write " << path;
}

OwnedBuffer CopyToBuffer(const std::string& bytes) {
  const size_t n = (bytes.size() + 63) / 64 * 64 + 64;
  uint8_t* p = static_cast<uint8_t*>(std::aligned_alloc(64, n));
  if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
  OwnedBuffer b;
  b.owner = std::shared_ptr<const void>(p, [](const void* q) { std::free(const_cast<void*>(q)); });
  b.span = absl::MakeConstSpan(p, bytes.size());
  return b;
}

void ExpectSameTensors(const TensorDict& a, const TensorDict& b) {
  ASSERT_EQ(a.Keys(), b.Keys());
  for (const std::string& k : a.Keys()) {
    const Tensor& x = **a.Get(k);
    const Tensor& y = **b.Get(k);
    EXPECT_EQ(x.dtype(), y.dtype()) << k;
    EXPECT_EQ(x.shape(), y.shape()) << k;
    EXPECT_EQ(x.encoding(), y.encoding()) << k;
    EXPECT_EQ(x.logical_shape(), y.logical_shape()) << k;
    ASSERT_EQ(x.size_bytes(), y.size_bytes()) << k;
    if (x.size_bytes() > 0) {
      EXPECT_EQ(0, std::memcmp(x.raw_data(), y.raw_data(), x.size_bytes())) << k;
    }
  }
}

void ExpectSameMetadata(const TensorDict& a, const TensorDict& b) {
  ASSERT_EQ(a.MetadataKeys(), b.MetadataKeys());
  for (const std::string& k : a.MetadataKeys()) {
    const MetadataValue& x = **a.GetMetadata(k);
    const MetadataValue& y = **b.GetMetadata(k);
    EXPECT_TRUE(x == y) << k << ": " << x.TypeName() << " " << x.DebugString() << " vs "
                        << y.TypeName() << " " << y.DebugString();
  }
}

}  // namespace testing
}  // namespace checkpoint
}  // namespace edgeq
