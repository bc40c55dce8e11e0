#include "examples/tinystories/testing.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace tinystories {
namespace testing {

std::string TestDataPath(const std::string& relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return absl::StrFormat("%s/%s/%s", srcdir, workspace, relative);
  }
  return relative;
}

std::string ModelPath(const std::string& name) {
  absl::StatusOr<std::string> path = edgeq::testing::ReferenceDataPath("models/" + name);
  return path.ok() ? *path : "models/" + name;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrFormat("cannot open '%s'", path));
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

std::vector<int> ParseIds(const std::string& line) {
  std::vector<int> ids;
  for (absl::string_view word : absl::StrSplit(line, ' ', absl::SkipWhitespace())) {
    ids.push_back(std::atoi(std::string(word).c_str()));
  }
  return ids;
}

absl::StatusOr<GoldenRun> ReadGolden(const std::string& stem) {
  const std::string base = TestDataPath("tests/testdata/tinystories/" + stem);
  absl::StatusOr<std::string> ids = ReadFile(base + ".ids");
  if (!ids.ok()) return ids.status();
  absl::StatusOr<std::string> text = ReadFile(base + ".txt");
  if (!text.ok()) return text.status();
  std::vector<std::string> lines = absl::StrSplit(*ids, '\n');
  if (lines.size() < 2) {
    return absl::InvalidArgumentError(absl::StrFormat("%s.ids: expected two lines", base));
  }
  GoldenRun run;
  run.prompt_ids = ParseIds(lines[0]);
  run.tokens = ParseIds(lines[1]);
  run.text = *text;
  return run;
}

}  // namespace testing
}  // namespace tinystories
}  // namespace edgeq
