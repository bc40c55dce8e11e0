#include "tests/util/reference_data.h"

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace edgeq {
namespace testing {
namespace {

TEST(ReferenceData, FindsSharedModels) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/PROVENANCE.txt");
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  EXPECT_NE(first.find("TinyStories"), std::string::npos) << path << ": " << first;
}

TEST(ReferenceData, MissingFileNamesItAndTheFolder) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(dir, "models/PROVENANCE.txt");
  absl::StatusOr<std::string> p = ReferenceDataPath("models/no-such-model.gguf");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(p.status().message().find("models/no-such-model.gguf"), absl::string_view::npos)
      << p.status();
}

TEST(ReferenceData, FolderNotInDataIsNamed) {
  // This test lists only :models in its data, so vocab/ is not in its runfiles.
  EDGEQ_REFERENCE_DATA_OR_SKIP(dir, "models/PROVENANCE.txt");
  absl::StatusOr<std::string> p = ReferenceDataPath("vocab/ggml-vocab-gpt-2.gguf");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("@edgeq_refdata//:vocab"), absl::string_view::npos)
      << p.status();
}

TEST(ReferenceData, RefusesPathsOutsideTheFolders) {
  absl::StatusOr<std::string> p = ReferenceDataPath("../etc/passwd");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("models/, vocab/, npm/ or grammars/"),
            absl::string_view::npos);
}

}  // namespace
}  // namespace testing
}  // namespace edgeq
