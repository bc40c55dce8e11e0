#include "checkpoint/max_format.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/internal/file_io.h"
#include "checkpoint/internal/testing.h"
#include "gtest/gtest.h"
#include "xxhash.h"

namespace edgeq {
namespace checkpoint {
namespace {

using testing::ReadFileOrDie;
using testing::TempDir;
using testing::WriteFileOrDie;

TensorDict SampleDict() {
  TensorDict d;
  std::vector<float> w(6 * 5);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(i) - 3.0f;
  EXPECT_TRUE(d.Set("w", *Tensor::FromValues<float>(Shape{6, 5}, w)).ok());
  std::vector<uint8_t> q(2 * 18);
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<uint8_t>(i * 7 + 1);
  Tensor qt = *Tensor::FromValues<uint8_t>(Shape{2, 18}, q);
  qt.SetQuantization("q4_0", Shape{2, 32});
  EXPECT_TRUE(d.Set("blk.0.attn_q.weight", qt).ok());
  EXPECT_TRUE(d.Set("empty", *Tensor::Create(DType::kInt8, Shape{0, 3})).ok());
  EXPECT_TRUE(d.Set("half", *Tensor::Create(DType::kFloat16, Shape{3})).ok());
  d.SetMetadata("general.architecture", MetadataValue::String("llama"));
  d.SetMetadata("llama.block_count", MetadataValue::Int(5, MetadataValue::Width::kU32));
  d.SetMetadata("eps", MetadataValue::Float(1e-5, MetadataValue::Width::kF32));
  d.SetMetadata("big", MetadataValue::Int(-1, MetadataValue::Width::kU64));
  d.SetMetadata("flag", MetadataValue::Bool(true));
  d.SetMetadata("tokens", MetadataValue::StringArray({"<unk>", "a", ""}));
  d.SetMetadata("scores", MetadataValue::FloatArray({0.5, -1.25}, MetadataValue::Width::kF32));
  d.SetMetadata("ids", MetadataValue::IntArray({-3, 4}, MetadataValue::Width::kI16));
  return d;
}

void ExpectSameDict(const TensorDict& a, const TensorDict& b) {
  testing::ExpectSameTensors(a, b);
  testing::ExpectSameMetadata(a, b);
}

// Recomputes the header/table checksum after a test patched the table.
void FixChecksum(std::string* bytes) {
  uint64_t table_size;
  std::memcpy(&table_size, bytes->data() + 32, 8);
  XXH3_state_t s;
  XXH3_64bits_reset(&s);
  XXH3_64bits_update(&s, bytes->data(), 56);
  XXH3_64bits_update(&s, bytes->data() + 64, table_size);
  const uint64_t sum = XXH3_64bits_digest(&s);
  std::memcpy(&(*bytes)[56], &sum, 8);
}

absl::StatusOr<TensorDict> FromString(const std::string& bytes, const LoadOptions& o = {}) {
  auto owned = std::make_shared<std::string>(bytes);
  return LoadFromBuffer(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(owned->data()), owned->size()), owned,
      o);
}

TEST(MaxFormatTest, RoundTripIsZeroCopyAndAligned) {
  const TensorDict d = SampleDict();
  const std::string path = TempDir() + "/rt.max";
  ASSERT_TRUE(Save(d, path).ok());
  absl::StatusOr<TensorDict> loaded = Load(path, {.verify_data = true});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameDict(d, *loaded);
  for (const std::string& k : loaded->Keys()) {
    const Tensor& t = **loaded->Get(k);
    EXPECT_TRUE(t.is_view()) << k;
    EXPECT_FALSE(t.writable()) << k;
    if (t.size_bytes() > 0) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u) << k;
    }
  }
  // The views keep the mapping alive after the dict is gone.
  Tensor w = **loaded->Get("w");
  *loaded = TensorDict();
  EXPECT_EQ((*w.Values<float>())[29], 0.25f * 29 - 3.0f);
  EXPECT_EQ(Verify(path), absl::OkStatus());
  // No temporary file left behind.
  DIR* dir = opendir(TempDir().c_str());
  ASSERT_NE(dir, nullptr);
  while (dirent* e = readdir(dir)) EXPECT_FALSE(absl::StrContains(e->d_name, "rt.max.tmp"));
  closedir(dir);
}

TEST(MaxFormatTest, SaveToStringMatchesFileAndLayout) {
  const TensorDict d = SampleDict();
  const std::string path = TempDir() + "/layout.max";
  ASSERT_TRUE(Save(d, path).ok());
  const std::string bytes = *SaveToString(d);
  EXPECT_EQ(ReadFileOrDie(path), bytes);
  EXPECT_EQ(bytes.substr(0, 8), "EDGEQMAX");
  uint32_t version;
  std::memcpy(&version, bytes.data() + 8, 4);
  EXPECT_EQ(version, 1u);
  uint64_t data_offset, data_size;
  std::memcpy(&data_offset, bytes.data() + 40, 8);
  std::memcpy(&data_size, bytes.data() + 48, 8);
  EXPECT_EQ(data_offset % 64, 0u);
  EXPECT_EQ(data_offset + data_size, bytes.size());
  // First tensor's data is at the data offset: float -3.0f.
  float first;
  std::memcpy(&first, bytes.data() + data_offset, 4);
  EXPECT_EQ(first, -3.0f);
}

TEST(MaxFormatTest, EveryBitFlipInHeaderAndTableIsCaught) {
  const std::string good = *SaveToString(SampleDict());
  uint64_t data_offset;
  std::memcpy(&data_offset, good.data() + 40, 8);
  for (size_t i = 0; i < data_offset; ++i) {
    for (int bit = 0; bit < 8; bit += 3) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      // Padding bytes between the table and the data are not covered; they must be zero.
      absl::StatusOr<TensorDict> r = FromString(bad);
      uint64_t table_size;
      std::memcpy(&table_size, good.data() + 32, 8);
      if (i >= 64 + table_size) continue;
      EXPECT_FALSE(r.ok()) << "byte " << i << " bit " << bit;
    }
  }
}

TEST(MaxFormatTest, DataBitFlipIsCaughtByVerify) {
  std::string bad = *SaveToString(SampleDict());
  uint64_t data_offset;
  std::memcpy(&data_offset, bad.data() + 40, 8);
  bad[data_offset + 5] ^= 0x10;  // inside tensor "w"
  EXPECT_TRUE(FromString(bad).ok());
  absl::StatusOr<TensorDict> r = FromString(bad, {.verify_data = true});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "tensor 'w'")) << r.status();
  const std::string path = TempDir() + "/flip.max";
  WriteFileOrDie(path, bad);
  EXPECT_EQ(Verify(path).code(), absl::StatusCode::kDataLoss);
}

TEST(MaxFormatTest, TruncatedFilesAreErrors) {
  const std::string good = *SaveToString(SampleDict());
  for (size_t n = 0; n < good.size(); n += (n < 300 ? 1 : 37)) {
    absl::StatusOr<TensorDict> r = FromString(good.substr(0, n));
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << n;
  }
  absl::StatusOr<TensorDict> r = FromString(good.substr(0, good.size() - 1));
  EXPECT_TRUE(absl::StrContains(r.status().message(), "truncated")) << r.status();
  EXPECT_TRUE(absl::StrContains(FromString("GGUF....").status().message(), "EDGEQMAX"));
}

TEST(MaxFormatTest, NewerVersionIsAClearError) {
  std::string bytes = *SaveToString(SampleDict());
  bytes[8] = 2;
  absl::StatusOr<TensorDict> r = FromString(bytes);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "format version 2 is newer")) << r.status();
}

// Patches an otherwise valid file (checksum recomputed) to test the table checks.
TEST(MaxFormatTest, DuplicateOverlappingAndMisalignedTensors) {
  TensorDict d;
  ASSERT_TRUE(d.Set("aa", *Tensor::Full(Shape{16}, 1.0f)).ok());
  ASSERT_TRUE(d.Set("ab", *Tensor::Full(Shape{16}, 2.0f)).ok());
  const std::string good = *SaveToString(d);
  // Table: per tensor u32 len, name, 4 type bytes, u32 enc len, u64 dim, u64 off, len, sum.
  const size_t second = 64 + (4 + 2 + 4 + 4 + 8 + 24);
  ASSERT_EQ(good.substr(second + 4, 2), "ab");
  const size_t second_offset = second + 4 + 2 + 4 + 4 + 8;

  std::string dup = good;
  dup[second + 5] = 'a';
  FixChecksum(&dup);
  EXPECT_TRUE(absl::StrContains(FromString(dup).status().message(), "duplicate tensor name 'aa'"))
      << FromString(dup).status();

  std::string overlap = good;
  std::memset(&overlap[second_offset], 0, 8);
  FixChecksum(&overlap);
  EXPECT_TRUE(absl::StrContains(FromString(overlap).status().message(), "overlap"))
      << FromString(overlap).status();

  std::string misaligned = good;
  misaligned[second_offset] = 4;
  FixChecksum(&misaligned);
  EXPECT_TRUE(absl::StrContains(FromString(misaligned).status().message(), "not a multiple of 64"))
      << FromString(misaligned).status();

  std::string past = good;
  past[second_offset + 2] = 1;  // offset += 65536
  FixChecksum(&past);
  EXPECT_TRUE(absl::StrContains(FromString(past).status().message(), "past the end"))
      << FromString(past).status();

  std::string huge_count = good;
  huge_count[16 + 7] = 0x10;
  FixChecksum(&huge_count);
  EXPECT_EQ(FromString(huge_count).status().code(), absl::StatusCode::kInvalidArgument);
}

// A .max whose checksums are all valid but whose tensor `name` is (dtype, bytes) tagged
// (encoding, logical): written without Save's own check of the invariant.
std::string CraftedMax(DType dtype, const Shape& physical, const std::string& encoding,
                       const Shape& logical) {
  TensorDict d;
  EXPECT_TRUE(d.Set("w", *Tensor::Full({2, 3}, 1.0f)).ok());
  Tensor t = *Tensor::Create(dtype, physical);
  t.SetQuantization(encoding, logical);
  EXPECT_TRUE(d.Set("token_embd.weight", t).ok());
  absl::StatusOr<std::string> bytes = internal::SaveToStringUnchecked(d);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return *bytes;
}

// Issue 14: every crafted quantized tensor is refused at load, naming the tensor, the encoding,
// the logical shape and the byte counts, before anything reads its bytes.
struct BadQuantizedCase {
  const char* what;
  DType dtype;
  Shape physical;
  const char* encoding;
  Shape logical;
  const char* message;
};
const BadQuantizedCase kBadQuantizedCases[] = {
    {"cut bytes", DType::kUInt8, Shape{18}, "q4_0", Shape{32000, 288},
     "expected 5184000 bytes (32000 rows x 9 blocks x 18 bytes), got 18"},
    {"inflated logical rows", DType::kUInt8, Shape{2, 18}, "q4_0", Shape{64, 32},
     "expected 1152 bytes (64 rows x 1 blocks x 18 bytes), got 36"},
    {"ragged k", DType::kUInt8, Shape{2, 144}, "q4_k", Shape{2, 250},
     "last dimension 250 is not a multiple of 256"},
    {"unknown encoding", DType::kUInt8, Shape{2, 18}, "q4_9", Shape{2, 32},
     "unknown encoding 'q4_9'"},
    {"quantized tag on f32", DType::kFloat32, Shape{2, 18}, "q4_0", Shape{2, 32},
     "must be u8, got f32"},
    {"zero dimension", DType::kUInt8, Shape{0, 18}, "q4_0", Shape{0, 32},
     "logical dimension 0 is 0"},
};

TEST(MaxFormatTest, QuantizedTensorsWhoseBytesDoNotMatchAreRefused) {
  for (const BadQuantizedCase& c : kBadQuantizedCases) {
    SCOPED_TRACE(c.what);
    absl::StatusOr<TensorDict> d =
        FromString(CraftedMax(c.dtype, c.physical, c.encoding, c.logical));
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string msg(d.status().message());
    EXPECT_TRUE(absl::StrContains(msg, "'token_embd.weight'")) << msg;
    EXPECT_TRUE(absl::StrContains(msg, absl::StrCat("encoding '", c.encoding, "'"))) << msg;
    EXPECT_TRUE(absl::StrContains(msg, c.logical.ToString())) << msg;
    EXPECT_TRUE(absl::StrContains(msg, c.message)) << msg;
  }
}

TEST(MaxFormatTest, SaveRefusesQuantizedTensorsWhoseBytesDoNotMatch) {
  for (const BadQuantizedCase& c : kBadQuantizedCases) {
    SCOPED_TRACE(c.what);
    absl::StatusOr<Tensor> t = Tensor::Create(c.dtype, c.physical);
    ASSERT_TRUE(t.ok()) << t.status();
    t->SetQuantization(c.encoding, c.logical);
    TensorDict dict;
    ASSERT_TRUE(dict.Set("token_embd.weight", *std::move(t)).ok());
    absl::StatusOr<std::string> bytes = SaveToString(dict);
    ASSERT_FALSE(bytes.ok());
    EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string msg(bytes.status().message());
    EXPECT_TRUE(absl::StrContains(msg, "'token_embd.weight'")) << msg;
    EXPECT_TRUE(absl::StrContains(msg, c.message)) << msg;
  }
}

TEST(MaxFormatTest, MissingFileIsNotFound) {
  absl::StatusOr<TensorDict> r = Load(TempDir() + "/does_not_exist.max");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "does_not_exist.max"));
}

// A child process saves a large checkpoint over an existing one and is SIGKILLed mid-write:
// the old file must still load and verify.
TEST(MaxFormatTest, InterruptedSaveLeavesOldFileIntact) {
  const std::string path = TempDir() + "/atomic.max";
  TensorDict old_dict = SampleDict();
  ASSERT_TRUE(Save(old_dict, path).ok());
  const std::string old_bytes = ReadFileOrDie(path);

  const int64_t n = int64_t{24} << 20;  // 96 MB of f32: the write takes a while
  absl::StatusOr<Tensor> big = Tensor::Full(Shape{n}, 1.5f);
  ASSERT_TRUE(big.ok());
  TensorDict big_dict;
  ASSERT_TRUE(big_dict.Set("big", *big).ok());

  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    (void)Save(big_dict, path);
    _exit(0);
  }
  // Wait until the child's temporary file has data (the header is written first, after the
  // checksums are computed), then kill it. Bounded by wall time (qemu is slow).
  bool seen = false;
  bool exited = false;
  const time_t deadline = time(nullptr) + 20;
  while (!seen && !exited && time(nullptr) < deadline) {
    DIR* dir = opendir(TempDir().c_str());
    while (dirent* e = readdir(dir)) {
      if (absl::StartsWith(e->d_name, "atomic.max.tmp.")) {
        struct stat st;
        const std::string tmp = TempDir() + "/" + e->d_name;
        if (stat(tmp.c_str(), &st) == 0 && st.st_size > 0) seen = true;
      }
    }
    closedir(dir);
    int st = 0;
    if (!seen && waitpid(pid, &st, WNOHANG) == pid) exited = true;
    if (!seen && !exited) usleep(200);
  }
  ASSERT_FALSE(exited) << "the child finished or died before its write was observed";
  std::string listing;
  {
    DIR* dir = opendir(TempDir().c_str());
    while (dirent* e = readdir(dir)) {
      struct stat st;
      const std::string f = TempDir() + "/" + e->d_name;
      if (stat(f.c_str(), &st) == 0) listing += absl::StrCat(e->d_name, ":", st.st_size, " ");
    }
    closedir(dir);
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(seen) << "no temporary file with data appeared within 20 s: " << listing;
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child finished before it could be killed";
  EXPECT_EQ(ReadFileOrDie(path), old_bytes);
  absl::StatusOr<TensorDict> loaded = Load(path, {.verify_data = true});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameDict(old_dict, *loaded);
}

}  // namespace
}  // namespace checkpoint
}  // namespace edgeq
