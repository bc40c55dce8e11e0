#include "sdk/selection.h"

#include "gtest/gtest.h"

namespace edgeq {
namespace selection {
namespace {

static_assert(Selected("", "gemma4"), "the empty list keeps everything");
static_assert(Selected("llama,qwen3", "qwen3"), "a listed name");
static_assert(!Selected("llama,qwen3", "qwen"), "a prefix of a listed name is not listed");
static_assert(!Selected("llama,qwen3", "qwen35"), "nor a longer name");

TEST(SelectionTest, SelectedMatchesWholeNames) {
  EXPECT_TRUE(Selected("q4_0,q8_0", "q4_0"));
  EXPECT_TRUE(Selected("q4_0,q8_0", "q8_0"));
  EXPECT_FALSE(Selected("q4_0,q8_0", "q4"));
  EXPECT_FALSE(Selected("q4_0,q8_0", "q8_0,"));
  EXPECT_FALSE(Selected("q4_0,q8_0", ""));
  EXPECT_TRUE(Selected("", "anything"));
}

TEST(SelectionTest, BuiltWithSpacesTheList) {
  EXPECT_EQ(BuiltWith("llama,qwen3"), "llama, qwen3");
  EXPECT_EQ(BuiltWith("llama"), "llama");
}

// The default build keeps everything; a selective build's lists are what --define named.
TEST(SelectionTest, ListsOfThisBuild) {
  if (kArchs[0] != '\0' || kEncodings[0] != '\0' || kIsas[0] != '\0') {
    GTEST_SKIP() << "a selective build (edgeq_archs=" << kArchs << ")";
  }
  EXPECT_TRUE(Selected(kArchs, "gemma4"));
  EXPECT_TRUE(Selected(kEncodings, "iq4_xs"));
  EXPECT_TRUE(Selected(kIsas, "avx512vnni"));
}

}  // namespace
}  // namespace selection
}  // namespace edgeq
