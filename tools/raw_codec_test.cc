#include "tools/raw_codec.h"

#include <dirent.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "tools/command.h"

namespace edgeq {
namespace tools {
namespace {

using ::testing::HasSubstr;

std::string TempDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

std::string Path(const std::string& name) { return TempDir() + "/" + name; }

void WriteBytes(const std::string& path, const void* data, size_t n) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<float> Ramp(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = std::sin(0.37f * i) * (1 + i % 7);
  return v;
}

TEST(RawCodecTest, EncodeDecodeRoundTripMatchesTheLibrary) {
  const std::vector<float> x = Ramp(256);
  WriteBytes(Path("ramp.f32"), x.data(), x.size() * 4);
  for (const char* name : {"q4_0", "q8_0", "q4_k", "q5_k", "q6_k", "bf16"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::string> e = EncodeRawFile(name, Path("ramp.f32"), Path("ramp.bin"));
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_THAT(*e, HasSubstr("256 values"));
    const QuantizationEncoding* enc = *FindEncoding(name);
    const Tensor q = *enc->Quantize(*Tensor::FromValues<float>(Shape{256}, x));
    const std::string bin = ReadBytes(Path("ramp.bin"));
    ASSERT_EQ(bin.size(), q.size_bytes());
    EXPECT_EQ(0, std::memcmp(bin.data(), q.raw_data(), bin.size()));

    absl::StatusOr<std::string> d = DecodeRawFile(name, Path("ramp.bin"), Path("ramp.out.f32"));
    ASSERT_TRUE(d.ok()) << d.status();
    const Tensor y = *enc->Dequantize(q);
    const std::string out = ReadBytes(Path("ramp.out.f32"));
    ASSERT_EQ(out.size(), 256u * 4);
    EXPECT_EQ(0, std::memcmp(out.data(), y.raw_data(), out.size()));
  }
  // No temporary files are left behind.
  DIR* dir = opendir(TempDir().c_str());
  ASSERT_NE(dir, nullptr);
  for (dirent* e = readdir(dir); e != nullptr; e = readdir(dir)) {
    EXPECT_EQ(std::string(e->d_name).find(".tmp."), std::string::npos) << e->d_name;
  }
  closedir(dir);
}

TEST(RawCodecTest, Errors) {
  absl::StatusOr<std::string> r = EncodeRawFile("q4_0", Path("missing.f32"), Path("o.bin"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("missing.f32"));

  r = EncodeRawFile("q9_9", Path("missing.f32"), Path("o.bin"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("q9_9"));
  // The error lists every registered encoding, in the registry's order.
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr(absl::StrJoin(EncodingRegistry::Global().Names(), ", ")));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("q4_0, q4_1, q4_k"));

  const char odd[6] = {1, 2, 3, 4, 5, 6};
  WriteBytes(Path("odd.f32"), odd, 6);
  r = EncodeRawFile("q8_0", Path("odd.f32"), Path("o.bin"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("6 bytes"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("float32"));

  const std::vector<float> x33 = Ramp(33);
  WriteBytes(Path("x33.f32"), x33.data(), 33 * 4);
  r = EncodeRawFile("q4_0", Path("x33.f32"), Path("o.bin"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("33 values"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("multiple of 32"));

  std::vector<float> nan = Ramp(64);
  nan[40] = std::numeric_limits<float>::quiet_NaN();
  WriteBytes(Path("nan.f32"), nan.data(), 64 * 4);
  r = EncodeRawFile("q8_0", Path("nan.f32"), Path("o.bin"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("flat index 40"));

  WriteBytes(Path("q.bin"), odd, 6);
  r = DecodeRawFile("q4_0", Path("q.bin"), Path("o.f32"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("18-byte q4_0 blocks"));
  EXPECT_FALSE(std::ifstream(Path("o.f32")).good());  // nothing written on error
}

TEST(RawCodecTest, NeverOverwritesTheInput) {
  const std::vector<float> x = Ramp(32);
  WriteBytes(Path("self.f32"), x.data(), 32 * 4);
  absl::StatusOr<std::string> r = EncodeRawFile("q8_0", Path("self.f32"), Path("self.f32"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("input"));
  // The same file through another path.
  r = EncodeRawFile("q8_0", Path("self.f32"), TempDir() + "/./self.f32");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadBytes(Path("self.f32")).size(), 32u * 4);
}

TEST(RawCodecTest, EncodingsTableListsBlockParameters) {
  const std::string t = EncodingsTable();
  EXPECT_THAT(t, HasSubstr("values_per_block"));
  EXPECT_THAT(t, ::testing::ContainsRegex("q4_k +256 +144 +4.5"));
  EXPECT_THAT(t, ::testing::ContainsRegex("q4_0 +32 +18 +4.5"));
  EXPECT_THAT(t, ::testing::ContainsRegex("bf16 +1 +2 +16"));
}

TEST(CommandsTest, RegisteredAndCheckArguments) {
  const auto& commands = Commands();
  ASSERT_EQ(commands.count("encode-raw"), 1u);
  ASSERT_EQ(commands.count("decode-raw"), 1u);
  ASSERT_EQ(commands.count("encodings"), 1u);

  const std::vector<float> x = Ramp(64);
  WriteBytes(Path("cmd.f32"), x.data(), 64 * 4);
  Args a;
  a.command = "encode-raw";
  a.flags["encoding"] = "q4_0";
  a.positional = {Path("cmd.f32"), Path("cmd.bin")};
  EXPECT_EQ(commands.at("encode-raw").run(a), 0);
  EXPECT_EQ(ReadBytes(Path("cmd.bin")).size(), 2u * 18);

  // GGML's spelling and the registry's give the same blocks (issue 14: "Q4_K" was unknown).
  const std::vector<float> x256 = Ramp(256);
  WriteBytes(Path("cmd256.f32"), x256.data(), 256 * 4);
  std::string q4k[2];
  for (int i = 0; i < 2; ++i) {
    Args k = a;
    k.flags["encoding"] = i == 0 ? "Q4_K" : "q4_k";
    k.positional = {Path("cmd256.f32"), Path(i == 0 ? "upper.bin" : "lower.bin")};
    EXPECT_EQ(commands.at("encode-raw").run(k), 0) << k.flags["encoding"];
    q4k[i] = ReadBytes(k.positional[1]);
  }
  EXPECT_EQ(q4k[0].size(), 144u);
  EXPECT_EQ(q4k[0], q4k[1]);

  Args d = a;
  d.command = "decode-raw";
  d.positional = {Path("cmd.bin"), Path("cmd.out.f32")};
  EXPECT_EQ(commands.at("decode-raw").run(d), 0);
  EXPECT_EQ(ReadBytes(Path("cmd.out.f32")).size(), 64u * 4);

  Args missing_flag = a;
  missing_flag.flags.clear();
  EXPECT_EQ(commands.at("encode-raw").run(missing_flag), 1);
  Args bad_flag = a;
  bad_flag.flags["encodng"] = "q4_0";
  EXPECT_EQ(commands.at("encode-raw").run(bad_flag), 1);
  Args one_arg = a;
  one_arg.positional.pop_back();
  EXPECT_EQ(commands.at("encode-raw").run(one_arg), 1);

  Args list;
  list.command = "encodings";
  EXPECT_EQ(commands.at("encodings").run(list), 0);
}

}  // namespace
}  // namespace tools
}  // namespace edgeq
