#include "tools/command.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace tools {
namespace {

TEST(ParseArgsTest, SplitsFlagsAndPositional) {
  const char* argv[] = {"edgeq",   "encode-raw", "--encoding=q4_0", "in.f32", "--verify",
                        "out.bin", "--",         "--literal"};
  Args a = ParseArgs(8, const_cast<char**>(argv), 2);
  ASSERT_EQ(a.positional.size(), 3u);
  EXPECT_EQ(a.positional[0], "in.f32");
  EXPECT_EQ(a.positional[1], "out.bin");
  EXPECT_EQ(a.positional[2], "--literal");
  EXPECT_EQ(a.Get("encoding"), "q4_0");
  EXPECT_EQ(a.Get("verify"), "true");
  EXPECT_EQ(a.Get("missing", "dflt"), "dflt");
}

TEST(ArgsTest, UnknownFlagNamesItAndTheExpectedOnes) {
  Args a;
  a.command = "inspect";
  a.flags["verfy"] = "true";
  absl::Status s = a.CheckFlags({"verify"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "unknown flag '--verfy' (expected --verify)");
  EXPECT_TRUE(a.CheckFlags({"verify", "verfy"}).ok());
  // Found by tests/fuzz/cli_args_fuzzer: a flag name is quoted, so a newline in it does not make
  // a second line (and a long one is cut).
  Args b;
  b.command = "inspect";
  b.flags["a\nb" + std::string(1000, 'x')] = "true";
  s = b.CheckFlags({"verify"});
  EXPECT_TRUE(absl::StartsWith(s.message(), "unknown flag '--a\\x0abxxx")) << s.message();
  EXPECT_EQ(std::string(s.message()).find('\n'), std::string::npos);
  EXPECT_LT(s.message().size(), 200u);
}

TEST(ArgsTest, PositionalCountAndIntegers) {
  Args a;
  a.command = "inspect";
  a.positional = {"x", "y"};
  absl::Status s = a.CheckPositional(1, "FILE");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "expected 1 argument, got 2 (usage: edgeq inspect FILE)");
  a.flags["threads"] = "2x";
  EXPECT_EQ(a.GetInt("threads", 1).status().message(),
            "--threads='2x': expected an integer in [-9223372036854775808, 9223372036854775807]");
  a.flags["threads"] = "3";
  EXPECT_EQ(*a.GetInt("threads", 1), 3);
  EXPECT_EQ(*a.GetInt("other", 7), 7);
  // Issue 27 F11: strict 64-bit decimal, range-checked ("+3" and "03" are not integers).
  for (const char* v : {"+3", "03", " 3", "3 ", "99999999999999999999"}) {
    a.flags["threads"] = v;
    EXPECT_FALSE(a.GetInt("threads", 1).ok()) << v;
  }
  a.flags["threads"] = "4294967297";
  EXPECT_EQ(a.GetInt("threads", 1, 1, 8).status().message(),
            "--threads='4294967297': expected an integer in [1, 8]");
}

}  // namespace
}  // namespace tools
}  // namespace edgeq
