#include "grammar/grammar_testdata.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace edgeq {
namespace grammar {

absl::StatusOr<std::string> ExampleGrammarPath(absl::string_view name) {
  std::vector<std::string> roots;
  for (const char* var : {"TEST_SRCDIR", "RUNFILES_DIR"}) {
    if (const char* dir = std::getenv(var); dir != nullptr && *dir != '\0') roots.push_back(dir);
  }
  for (const std::string& root : roots) {
    const std::string repo = root + "/edgeq_refdata";
    if (access(repo.c_str(), F_OK) != 0) continue;
    const std::string missing = repo + "/grammars.MISSING";
    if (access(missing.c_str(), R_OK) == 0) {
      std::ifstream in(missing);
      std::stringstream reason;
      reason << in.rdbuf();
      std::string text = reason.str();
      while (!text.empty() && text.back() == '\n') text.pop_back();
      return absl::NotFoundError(absl::StrFormat(
          "reference data 'grammars/%s' unavailable: %s; put the shared test files in ../shared "
          "beside the clone (see README, 'Test data'), then run `bazel shutdown`",
          name, text));
    }
    const std::string path = absl::StrCat(repo, "/grammars/", name);
    if (access(path.c_str(), R_OK) == 0) return path;
    return absl::NotFoundError(
        absl::StrFormat("reference data 'grammars/%s' not found in %s", name, repo));
  }
  return absl::NotFoundError(absl::StrFormat(
      "reference data 'grammars/%s': no @edgeq_refdata runfiles (add @edgeq_refdata//:grammars "
      "to the test's data)",
      name));
}

}  // namespace grammar
}  // namespace edgeq
