#include "core/bounded_input.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace edgeq {
namespace {

std::string TempFile(const std::string& contents) {
  std::string path = ::testing::TempDir() + "/bounded_input_XXXXXX";
  const int fd = ::mkstemp(path.data());
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::write(fd, contents.data(), contents.size()), static_cast<ssize_t>(contents.size()));
  ::close(fd);
  return path;
}

TEST(ReadFileBoundedTest, ReadsAFileWithinTheLimit) {
  const std::string path = TempFile("hello");
  absl::StatusOr<std::string> s = ReadFileBounded(path, 5, "text");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, "hello");
}

TEST(ReadFileBoundedTest, RefusesAFileOverTheLimit) {
  const std::string path = TempFile("hello!");
  absl::StatusOr<std::string> s = ReadFileBounded(path, 5, "prompt file");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("prompt file"), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find("limit of 5 bytes"), std::string::npos) << s.status();
}

TEST(ReadFileBoundedTest, RefusesAnEndlessStream) {
  absl::StatusOr<std::string> s = ReadFileBounded("/dev/zero", 1 << 20, "text");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("longer than the limit of 1048576 bytes"), std::string::npos)
      << s.status();
}

TEST(ReadFileBoundedTest, MissingFileAndDirectory) {
  EXPECT_EQ(ReadFileBounded("/nonexistent/x", 10, "text").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(ReadFileBounded(::testing::TempDir(), 10, "text").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(QuoteForErrorTest, EscapesAndCuts) {
  EXPECT_EQ(QuoteForError("llama"), "'llama'");
  EXPECT_EQ(QuoteForError(std::string("a\0b\n", 4)), "'a\\x00b\\x0a'");
  EXPECT_EQ(QuoteForError(std::string(10 << 20, 'x'), 4), "'xxxx'... (10485760 bytes)");
}

TEST(ParseDecimalInt64Test, StrictDecimal) {
  EXPECT_EQ(ParseDecimalInt64("0"), 0);
  EXPECT_EQ(ParseDecimalInt64("17"), 17);
  EXPECT_EQ(ParseDecimalInt64("-5"), -5);
  EXPECT_EQ(ParseDecimalInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseDecimalInt64("-9223372036854775808"), INT64_MIN);
  for (const char* bad :
       {"", "-", "00", "01", "+0", "+1", " 1", "1 ", "0x1", "1e3", "-0", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999", "1.0"}) {
    EXPECT_FALSE(ParseDecimalInt64(bad).has_value()) << bad;
  }
}

TEST(CheckJsonDepthTest, CountsBracketsOutsideStrings) {
  EXPECT_TRUE(CheckJsonDepth(R"({"a": [1, {"b": "[[[[["}]})", 3, "x").ok());
  EXPECT_FALSE(CheckJsonDepth(R"({"a": [1, {"b": []}]})", 3, "x").ok());
  EXPECT_TRUE(CheckJsonDepth(R"({"a": "\"[[[["})", 1, "x").ok());
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  absl::Status s = CheckJsonDepth(deep, kMaxJsonDepth, "config.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("config.json: JSON nested deeper than 128 levels"), std::string::npos)
      << s;
}

}  // namespace
}  // namespace edgeq
