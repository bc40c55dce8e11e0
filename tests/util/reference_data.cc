#include "tests/util/reference_data.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace edgeq {
namespace testing {
namespace {

constexpr char kRepository[] = "edgeq_refdata";

bool IsDir(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// The runfiles folders this program may have, most specific first.
std::vector<std::string> RunfilesRoots() {
  std::vector<std::string> roots;
  for (const char* var : {"TEST_SRCDIR", "RUNFILES_DIR"}) {
    if (const char* dir = std::getenv(var); dir != nullptr && *dir != '\0') roots.push_back(dir);
  }
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) roots.push_back(std::string(exe, n) + ".runfiles");
  return roots;
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return std::string(absl::StripTrailingAsciiWhitespace(s.str()));
}

}  // namespace

bool ReferenceDataRequired() {
  const char* v = std::getenv("EDGEQ_REQUIRE_REFERENCE_DATA");
  return v != nullptr && std::string(v) == "1";
}

absl::StatusOr<std::string> ReferenceDataPath(absl::string_view relative) {
  const std::string rel(absl::StripPrefix(relative, "/"));
  const std::string folder = rel.substr(0, rel.find('/'));
  if ((folder != "models" && folder != "vocab" && folder != "npm" && folder != "grammars") ||
      absl::StrContains(rel, "..")) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "reference data '%s': expected a path under models/, vocab/, npm/ or grammars/", relative));
  }
  for (const std::string& root : RunfilesRoots()) {
    const std::string repo = absl::StrCat(root, "/", kRepository);
    if (!IsDir(repo)) continue;
    const std::string missing = absl::StrCat(repo, "/", folder, ".MISSING");
    if (access(missing.c_str(), R_OK) == 0) {
      const std::string hint = folder == "npm"
                                   ? "run tools/setup.sh to install the npm packages"
                                   : "put the shared test files in ../shared beside the clone "
                                     "(see README, 'Test data'), then run `bazel shutdown`";
      return absl::NotFoundError(absl::StrFormat("reference data '%s' unavailable: %s; %s", rel,
                                                 ReadSmallFile(missing), hint));
    }
    const std::string path = absl::StrCat(repo, "/", rel);
    if (access(path.c_str(), R_OK) == 0) return path;
    return absl::NotFoundError(absl::StrFormat(
        "reference data '%s' not found in %s/%s (is it listed in the target's data, as "
        "@edgeq_refdata//:%s?)",
        rel, repo, folder, folder));
  }
  return absl::NotFoundError(absl::StrFormat(
      "reference data '%s': this program has no @%s runfiles (add @%s//:%s to its data)", rel,
      kRepository, kRepository, folder));
}

}  // namespace testing
}  // namespace edgeq
