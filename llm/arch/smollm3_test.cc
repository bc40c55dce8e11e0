// smollm3: its configuration, the layers without RoPE, and the Hugging Face import of
// SmolLM3ForCausalLM. Parity with llama.cpp: tests/parity/arch_parity_test.cc (TinySmolLM3,
// SmolLM3_3bFirst4Layers).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/tensor_dict.h"
#include "convert/hf_import.h"
#include "convert/hf_testing.h"
#include "gtest/gtest.h"
#include "llm/arch/model_config.h"
#include "llm/model.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::TensorDict;

RandomModelSpec TinySpec(int layers) {
  absl::StatusOr<RandomModelSpec> s = RandomModelPreset("smollm3-tiny");
  EXPECT_TRUE(s.ok()) << s.status();
  s->layers = layers;
  return *s;
}

// The same tensors and values under another general.architecture (its keys renamed).
TensorDict Relabel(const TensorDict& d, const std::string& from, const std::string& to) {
  TensorDict out;
  for (const std::string& name : d.Keys()) EXPECT_TRUE(out.Set(name, **d.Get(name)).ok());
  for (const std::string& key : d.MetadataKeys()) {
    const checkpoint::MetadataValue& v = **d.GetMetadata(key);
    if (key == "general.architecture") {
      out.SetMetadata(key, checkpoint::MetadataValue::String(to));
    } else if (absl::StartsWith(key, from + ".")) {
      out.SetMetadata(to + key.substr(from.size()), v);
    } else {
      out.SetMetadata(key, v);
    }
  }
  return out;
}

// Logits after each of `tokens` (decode steps).
std::vector<float> Logits(const TensorDict& d) {
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(d, {.context_length = 32});
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  std::vector<float> all;
  const int kTokens[] = {1, 300, 17, 450, 99, 5, 260, 42};
  for (int pos = 0; pos < 8; ++pos) {
    absl::StatusOr<absl::Span<const float>> l = (*m)->Forward(kTokens[pos], pos);
    EXPECT_TRUE(l.ok()) << l.status();
    if (!l.ok()) return {};
    all.insert(all.end(), l->begin(), l->end());
  }
  return all;
}

TEST(Smollm3Test, ConfigFromTheTableRow) {
  absl::StatusOr<TensorDict> d = RandomModel(TinySpec(8));
  ASSERT_TRUE(d.ok()) << d.status();
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(*d);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_STREQ(arch::Info(c->arch).gguf_name, "smollm3");
  EXPECT_EQ(c->rope_type, arch::RopeType::kNorm);
  EXPECT_EQ(c->ffn_activation, arch::Activation::kSilu);
  EXPECT_EQ(c->no_rope_layer_step, 4);
  EXPECT_FALSE(c->qk_norm);
  EXPECT_EQ(c->rope_freq_base, 5000000.0f);
  EXPECT_EQ(c->rms_norm_epsilon, 1e-6f);
  EXPECT_TRUE(absl::StartsWith(c->ToString(),
                               "smollm3: 8 layers, embedding 64, ffn 128, 4 heads "
                               "(2 kv, dim 16), vocab 512"))
      << c->ToString();
}

// Layers 0-2 have RoPE: a 3-layer smollm3 is the llama graph, bit for bit.
TEST(Smollm3Test, FirstThreeLayersAreLlamaLayers) {
  absl::StatusOr<TensorDict> d = RandomModel(TinySpec(3));
  ASSERT_TRUE(d.ok()) << d.status();
  const std::vector<float> smol = Logits(*d);
  const std::vector<float> llama = Logits(Relabel(*d, "smollm3", "llama"));
  ASSERT_EQ(smol.size(), 8u * 512);
  ASSERT_EQ(llama.size(), smol.size());
  EXPECT_EQ(std::memcmp(smol.data(), llama.data(), smol.size() * sizeof(float)), 0);
}

// Layer 3 has none: at position 0 (a rotation by 0) the logits are llama's, after it they differ.
TEST(Smollm3Test, FourthLayerHasNoRope) {
  absl::StatusOr<TensorDict> d = RandomModel(TinySpec(4));
  ASSERT_TRUE(d.ok()) << d.status();
  const std::vector<float> smol = Logits(*d);
  const std::vector<float> llama = Logits(Relabel(*d, "smollm3", "llama"));
  ASSERT_EQ(smol.size(), 8u * 512);
  ASSERT_EQ(llama.size(), smol.size());
  EXPECT_EQ(std::memcmp(smol.data(), llama.data(), 512 * sizeof(float)), 0) << "position 0";
  for (int pos = 1; pos < 8; ++pos) {
    double diff = 0;
    for (int i = 0; i < 512; ++i)
      diff = std::max(diff, double(std::abs(smol[pos * 512 + i] - llama[pos * 512 + i])));
    EXPECT_GT(diff, 1e-4) << "position " << pos << ": layer 3 rotated q and k";
  }
}

// SmolLM3ForCausalLM (llama.cpp's SmolLM3Model = LlamaModel: q/k rows permuted) back to the
// same GGUF tensors and metadata.
TEST(Smollm3Test, HfImportGivesTheOriginalTensors) {
  RandomModelSpec spec = TinySpec(4);
  spec.head_dim_keys = false;
  absl::StatusOr<TensorDict> m = RandomModel(spec);
  ASSERT_TRUE(m.ok()) << m.status();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/hf_smollm3");
  ASSERT_TRUE(convert::WriteHfCheckpointDir(spec, *m, dir, /*shards=*/2).ok());
  absl::StatusOr<TensorDict> got = convert::ImportHfCheckpoint(dir);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got->GetString("general.architecture"), "smollm3");
  EXPECT_EQ(got->size(), m->size());
  for (const std::string& name : m->Keys()) {
    absl::StatusOr<const Tensor*> t = got->Get(name);
    ASSERT_TRUE(t.ok()) << t.status();
    const Tensor& want = **m->Get(name);
    ASSERT_EQ((*t)->bytes().size(), want.bytes().size()) << name;
    EXPECT_EQ(std::memcmp((*t)->bytes().data(), want.bytes().data(), want.bytes().size()), 0)
        << name;
  }
  for (const std::string& key : m->MetadataKeys()) {
    if (key == "general.name") continue;
    absl::StatusOr<const checkpoint::MetadataValue*> v = got->GetMetadata(key);
    ASSERT_TRUE(v.ok()) << key;
    EXPECT_EQ(**v, **m->GetMetadata(key)) << key;
  }
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
