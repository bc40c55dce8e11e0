// The body and head graphs' inputs and outputs are bound by name (llm/arch/common.h io::).
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

TEST(ModelIoTest, GraphsNameTheirInputsAndOutputs) {
  absl::StatusOr<RandomModelSpec> spec = RandomModelPreset("qwen3-0.6b");
  ASSERT_TRUE(spec.ok()) << spec.status();
  spec->layers = 2, spec->dim = 64, spec->heads = 4, spec->kv_heads = 2, spec->head_dim = 32;
  spec->ffn = 96, spec->vocab = 256;
  absl::StatusOr<checkpoint::TensorDict> dict = RandomModel(*spec);
  ASSERT_TRUE(dict.ok()) << dict.status();
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(*dict, {.context_length = 64});
  ASSERT_TRUE(m.ok()) << m.status();
  const int tokens[3] = {5, 9, 200};
  ASSERT_TRUE((*m)->Prefill(tokens, 0).ok());
  const std::string dump = (*m)->DebugString();
  for (const char* line :
       {"%0 = tokens : i32[1]\n", "%1 = positions : i32[1]\n", "%2 = cache.0.k : f16[2, 64, 32]\n",
        "%3 = cache.0.v : f16[2, 64, 32]\n", "%5 = cache.1.v : f16[2, 64, 32]\n", "store_kv=1",
        "  hidden = %", "%0 = hidden : f32[1, 64]\n", "  logits = %"}) {
    EXPECT_TRUE(absl::StrContains(dump, line)) << line << " not in\n" << dump;
  }
  // Issue 29: the attention layers write their K/V rows into the caches (store_kv); the rows are
  // no graph outputs.
  EXPECT_FALSE(absl::StrContains(dump, ".rows")) << dump;
  EXPECT_FALSE(absl::StrContains(dump, "input0")) << dump;
  EXPECT_FALSE(absl::StrContains(dump, "output1")) << dump;
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
