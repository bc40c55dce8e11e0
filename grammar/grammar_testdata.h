// Paths of llama.cpp's example grammars for tests: ../shared/grammars, linked as
// @edgeq_refdata//:grammars (third_party/refdata/refdata.bzl). The shared ReferenceDataPath
// (tests/util/reference_data.h) accepts only models/, vocab/ and npm/ today, so this helper
// resolves grammars/ the same way (runfiles, then grammars.MISSING for the reason) and keeps its
// skip-or-fail rule (EDGEQ_REQUIRE_REFERENCE_DATA=1 fails instead of skipping).
#ifndef EDGEQ_GRAMMAR_GRAMMAR_TESTDATA_H_
#define EDGEQ_GRAMMAR_GRAMMAR_TESTDATA_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace grammar {

// The path of `name` ("json.gbnf") in @edgeq_refdata//:grammars; NotFound with the reason.
absl::StatusOr<std::string> ExampleGrammarPath(absl::string_view name);

}  // namespace grammar
}  // namespace edgeq

// Declares `std::string var`, the path of example grammar `name`; skips (or fails when
// reference data is required) like EDGEQ_REFERENCE_DATA_OR_SKIP.
#define EDGEQ_EXAMPLE_GRAMMAR_OR_SKIP(var, name)                                                  \
  std::string var;                                                                                \
  do {                                                                                            \
    absl::StatusOr<std::string> edgeq_grammar_path_ = ::edgeq::grammar::ExampleGrammarPath(name); \
    if (!edgeq_grammar_path_.ok()) {                                                              \
      if (::edgeq::testing::ReferenceDataRequired()) {                                            \
        FAIL() << edgeq_grammar_path_.status().message()                                          \
               << " (EDGEQ_REQUIRE_REFERENCE_DATA=1: reference data must be present)";            \
      }                                                                                           \
      GTEST_SKIP() << edgeq_grammar_path_.status().message();                                     \
    }                                                                                             \
    var = *std::move(edgeq_grammar_path_);                                                        \
  } while (0)

#endif  // EDGEQ_GRAMMAR_GRAMMAR_TESTDATA_H_
