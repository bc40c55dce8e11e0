#include "checkpoint/internal/json_input.h"

#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "core/bounded_input.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace checkpoint {
namespace internal {
namespace {

using json = nlohmann::json;

std::string TempFile(const std::string& name, const std::string& contents) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out << contents;
  return path;
}

TEST(ParseJsonBoundedTest, ParsesWithinTheBounds) {
  absl::StatusOr<json> j = ParseJsonBounded(R"({"a": [1, {"b": 2}], "b": {"a": 3}})", "x", 3);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ((*j)["a"][1]["b"], 2);
  EXPECT_EQ((*j)["b"]["a"], 3);
}

// F3: 200 KB of '[' used to reach nlohmann's recursive dump() in an error message.
TEST(ParseJsonBoundedTest, RefusesDeepNestingBeforeParsing) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  absl::StatusOr<json> j = ParseJsonBounded(deep, "deep.json", kMaxJsonDepth);
  EXPECT_EQ(j.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(j.status().message(), "deep.json: JSON nested deeper than 128"))
      << j.status();
}

// F13: nlohmann keeps the last of two equal keys; the reader refuses them.
TEST(ParseJsonBoundedTest, RefusesADuplicateKeyNamingIt) {
  for (const char* text : {R"({"a": 1, "b": 2, "a": 3})", R"({"x": {"k": 1, "k": 2}})",
                           R"([{"k": 1}, {"m": {"k": 1, "k": 1}}])"}) {
    absl::StatusOr<json> j = ParseJsonBounded(text, "dup.json", kMaxJsonDepth);
    EXPECT_EQ(j.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_TRUE(absl::StrContains(j.status().message(), "dup.json: key '")) << j.status();
    EXPECT_TRUE(absl::StrContains(j.status().message(), "appears twice")) << j.status();
  }
  // Equal keys in different objects (siblings, or nested) are fine.
  EXPECT_TRUE(ParseJsonBounded(R"([{"k": 1}, {"k": 2}, {"k": {"k": 3}}])", "ok", 4).ok());
}

TEST(ParseJsonBoundedTest, DuplicateKeysAreSeenInsideDiscardedValues) {
  // A callback that discards every value still leaves the duplicate-key check in place.
  absl::StatusOr<json> j = ParseJsonBounded(
      R"({"v": {"a": 1, "a": 2}})", "cb.json", kMaxJsonDepth,
      [](int, json::parse_event_t e, json&) { return e != json::parse_event_t::value; });
  EXPECT_EQ(j.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(j.status().message(), "key 'a' appears twice")) << j.status();
}

TEST(ParseJsonBoundedTest, CapsTheDuplicateKeyInTheMessage) {
  const std::string key(1 << 20, 'k');
  const std::string text = "{\"" + key + "\": 1, \"" + key + "\": 2}";
  absl::StatusOr<json> j = ParseJsonBounded(text, "big.json", kMaxJsonDepth);
  EXPECT_EQ(j.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(j.status().message().size(), 400u) << j.status().message().substr(0, 400);
}

TEST(ReadJsonObjectFileTest, RefusesNonObjectsAndEndlessStreams) {
  const std::string arr = TempFile("arr.json", "[1, 2]");
  absl::StatusOr<json> j = ReadJsonObjectFile(arr);
  EXPECT_EQ(j.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(j.status().message(), "expected a JSON object, found an array of 2"))
      << j.status();
  // F4 for JSON: /dev/zero is refused after kMaxJsonFileBytes, not read until memory runs out.
  if (::access("/dev/zero", R_OK) != 0) GTEST_SKIP() << "no /dev/zero";
  j = ReadJsonObjectFile("/dev/zero");
  EXPECT_EQ(j.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(j.status().message(), "longer than the limit")) << j.status();
  EXPECT_EQ(ReadJsonObjectFile(::testing::TempDir() + "/absent.json").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(JsonForErrorTest, ShowsShortValuesAndSizesOfContainers) {
  EXPECT_EQ(JsonForError(json(-64)), "-64");
  EXPECT_EQ(JsonForError(json(true)), "true");
  EXPECT_EQ(JsonForError(json("ab")), "'ab'");
  EXPECT_EQ(JsonForError(json::array({1, 2, 3})), "an array of 3 elements");
  EXPECT_EQ(JsonForError(json::object()), "an object with 0 keys");
  EXPECT_LT(JsonForError(json(std::string(1 << 20, 'x'))).size(), 100u);
}

}  // namespace
}  // namespace internal
}  // namespace checkpoint
}  // namespace edgeq
