// Test helpers: reading the golden files of tests/testdata/tinystories (test-only).
#ifndef EDGEQ_EXAMPLES_TINYSTORIES_TESTING_H_
#define EDGEQ_EXAMPLES_TINYSTORIES_TESTING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace edgeq {
namespace tinystories {
namespace testing {

// Workspace-relative path inside a test's runfiles, e.g. "tests/testdata/tinystories/x.ids".
std::string TestDataPath(const std::string& relative);

// The real model file `name` ("stories260K.bin", "tok512.bin") from @edgeq_refdata//:models
// (../shared/models); tests that call it start with
// EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin"). A path that does not exist (so
// that opening it fails with the name) if it is unavailable.
std::string ModelPath(const std::string& name);

absl::StatusOr<std::string> ReadFile(const std::string& path);

// A golden run: `<stem>.ids` (prompt ids; full token sequence) and `<stem>.txt` (stdout).
struct GoldenRun {
  std::vector<int> prompt_ids;
  std::vector<int> tokens;
  std::string text;
};
absl::StatusOr<GoldenRun> ReadGolden(const std::string& stem);

// Space-separated integers.
std::vector<int> ParseIds(const std::string& line);

}  // namespace testing
}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_TESTING_H_
