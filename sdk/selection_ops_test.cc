// sdk/selection.bzl's op table (kArchOps: the ops each architecture's graphs use, which a
// selective build keeps registered) against the graphs each architecture really builds: the
// decode and a prefill block graph of a small random model per architecture row.
#include <algorithm>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/op.h"
#include "gtest/gtest.h"
#include "llm/arch/arch_table.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "sdk/selection.h"

namespace edgeq {
namespace {

std::set<std::string> Split(const char* list) {
  std::set<std::string> out;
  for (absl::string_view s : absl::StrSplit(list, ',', absl::SkipEmpty())) out.emplace(s);
  return out;
}

const char* RowOf(const std::string& arch) {
  for (const auto& row : selection::kArchOps) {
    if (arch == row[0]) return row[1];
  }
  return nullptr;
}

// A small model of `arch`: its "-tiny" preset if it has one, else its first preset shrunk.
absl::StatusOr<llm::RandomModelSpec> SmallSpecOf(const std::string& arch) {
  std::vector<llm::RandomModelSpec> specs;
  for (const std::string& name : llm::RandomModelPresetNames()) {
    absl::StatusOr<llm::RandomModelSpec> s = llm::RandomModelPreset(name);
    if (!s.ok()) return s.status();
    if (s->architecture != arch) continue;
    if (absl::EndsWith(name, "-tiny")) return s;
    specs.push_back(*s);
  }
  if (specs.empty()) return absl::NotFoundError("no random preset of architecture " + arch);
  llm::RandomModelSpec s = specs.front();
  const bool grouped = s.kv_heads < s.heads;
  s.dim = 64;
  s.heads = 4;
  s.kv_heads = grouped ? 2 : 4;
  s.head_dim = s.head_dim > 0 ? 16 : 0;
  s.ffn = 96;
  s.layers = std::min(s.layers, 2);
  s.vocab = 128;
  s.context = 64;
  return s;
}

// The op names of the model's graph dumps ("  %5 = rms_norm(%1, %2)...").
std::set<std::string> OpsOf(const llm::Model& m) {
  std::set<std::string> ops;
  static const std::regex kNode(R"(^  %[0-9, %]+ = ([a-z_0-9]+)\()");
  for (absl::string_view line : absl::StrSplit(m.DebugString(), '\n')) {
    std::cmatch match;
    const std::string l(line);
    if (std::regex_search(l.c_str(), match, kNode)) ops.insert(match[1].str());
  }
  return ops;
}

TEST(SelectionOpsTest, EveryArchitectureRowListsTheOpsItsGraphsUse) {
  for (const llm::arch::ArchInfo& a : llm::arch::Architectures()) {
    SCOPED_TRACE(a.gguf_name);
    const char* row = RowOf(a.gguf_name);
    ASSERT_NE(row, nullptr) << "no ARCH_OPS row in sdk/selection.bzl";
    absl::StatusOr<llm::RandomModelSpec> spec = SmallSpecOf(a.gguf_name);
    ASSERT_TRUE(spec.ok()) << spec.status();
    absl::StatusOr<checkpoint::TensorDict> dict = llm::RandomModel(*spec);
    ASSERT_TRUE(dict.ok()) << dict.status();
    absl::StatusOr<std::unique_ptr<llm::Model>> m =
        llm::Model::Load(*dict, {.prefill_block = 4, .context_length = 64});
    ASSERT_TRUE(m.ok()) << m.status();
    const std::vector<int> tokens = {1, 2, 3, 4};
    ASSERT_TRUE((*m)->Prefill(tokens, 0).ok());
    const std::set<std::string> used = OpsOf(**m);
    ASSERT_FALSE(used.empty());
    const std::set<std::string> listed = Split(row);
    for (const std::string& op : used) {
      EXPECT_TRUE(listed.count(op) == 1) << "its graphs use '" << op << "'; the row lists " << row;
    }
    // The kept ops of a selective build are a subset of the registry: every name is an op.
    for (const std::string& op : listed) EXPECT_TRUE(OpRegistry::Global().Find(op).ok()) << op;
  }
}

TEST(SelectionOpsTest, EncoderOpsAreRegisteredOps) {
  const std::set<std::string> listed = Split(selection::kEncoderOps);
  EXPECT_EQ(listed.size(), 15u);
  for (const std::string& op : listed) EXPECT_TRUE(OpRegistry::Global().Find(op).ok()) << op;
}

TEST(SelectionOpsTest, TheDefaultBuildKeepsEveryOp) {
  EXPECT_STREQ(selection::kOps, "");
  EXPECT_TRUE(OpRegistry::Global().Find("moe").ok());
  EXPECT_TRUE(OpRegistry::Global().Find("gated_delta_net").ok());
}

}  // namespace
}  // namespace edgeq
