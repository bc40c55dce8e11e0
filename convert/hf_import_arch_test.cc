// ImportHfCheckpoint of the architectures with code of their own: Qwen3_5ForCausalLM
// (convert/hf_qwen35.cc: the text_config layout, the multi-token-prediction tensors, the errors of
// the gated delta-net keys and tensors) and Gemma4ForCausalLM (convert/hf_gemma4.cc: its
// per-layer keys and tensors). Crafted config values never crash either. (The round trips of
// random models are hf_import_test's.)
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/tensor_dict.h"
#include "convert/hf_import.h"
#include "convert/hf_testing.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "llm/random_model.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace convert {
namespace {

using checkpoint::TensorDict;
using json = nlohmann::json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void EditConfig(const std::string& dir, const std::function<void(json*)>& edit) {
  ASSERT_EQ(EditHfConfig(dir, edit), absl::OkStatus());
}

// A tiny preset as a Hugging Face directory of 3 shards: qwen35's qwen3.5-tiny (2 key heads for
// 4 value heads, 8 layers: 3 and 7 full attention), gemma4's gemma4-tiny (10 layers: 4 and 9
// full, the last 5 shared-KV, per-layer width 16, head dims 16 sliding / 32 full, V = K on the
// full layers, double-wide FFN on the shared ones).
std::string ArchDir(const std::string& arch, const std::string& name) {
  absl::StatusOr<llm::RandomModelSpec> spec =
      llm::RandomModelPreset(arch == "qwen35" ? "qwen3.5-tiny" : arch + "-tiny");
  EXPECT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<std::string> dir = WriteRandomHfCheckpoint(*spec, name, 3);
  EXPECT_TRUE(dir.ok()) << dir.status();
  return dir.value_or("");
}

// qwen35 with its keys in a text_config object (the multimodal checkpoints' layout, which the
// converter merges over the top level), and with the multi-token-prediction block (mtp.*) that
// the import leaves out as the converter's --no-mtp does: the same tensors and keys.
TEST(HfImportQwen35, TextConfigAndMtpTensorsGiveTheSameModel) {
  const std::string dir = ArchDir("qwen35", "hf_qwen35_text_config");
  absl::StatusOr<TensorDict> plain = ImportHfCheckpoint(dir);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EditConfig(dir, [](json* c) {
    json text = *c;
    text.erase("architectures");
    *c = {{"architectures", {"Qwen3_5ForCausalLM"}},
          {"text_config", text},
          {"hidden_size", 1},  // the text_config's value wins
          {"mtp_num_hidden_layers", 1}};
  });
  TensorDict mtp;
  absl::StatusOr<TensorDict> shard =
      checkpoint::ReadSafetensors(dir + "/model-00001-of-00003.safetensors");
  ASSERT_TRUE(shard.ok()) << shard.status();
  for (const std::string& k : shard->Keys())
    ASSERT_TRUE(mtp.Set(k, *(*shard->Get(k))->Clone()).ok());
  ASSERT_TRUE(mtp.Set("mtp.fc.weight", *(*shard->Get("model.embed_tokens.weight"))->Clone()).ok());
  ASSERT_TRUE(mtp.Set("mtp.layers.0.input_layernorm.weight",
                      *Tensor::FromValues<float>(Shape{64}, std::vector<float>(64, 0.5f)))
                  .ok());
  shard = TensorDict();
  ASSERT_TRUE(checkpoint::WriteSafetensors(mtp, dir + "/model-00001-of-00003.safetensors").ok());
  json index = json::parse(ReadFile(dir + "/model.safetensors.index.json"));
  index["weight_map"]["mtp.fc.weight"] = "model-00001-of-00003.safetensors";
  index["weight_map"]["mtp.layers.0.input_layernorm.weight"] = "model-00001-of-00003.safetensors";
  WriteText(dir + "/model.safetensors.index.json", index.dump());

  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->Keys(), plain->Keys());
  for (const std::string& name : plain->Keys()) {
    const Tensor& a = **plain->Get(name);
    const Tensor& b = **got->Get(name);
    ASSERT_EQ(a.bytes().size(), b.bytes().size()) << name;
    EXPECT_EQ(std::memcmp(a.bytes().data(), b.bytes().data(), a.bytes().size()), 0) << name;
  }
  ASSERT_EQ(got->MetadataKeys(), plain->MetadataKeys());
  for (const std::string& key : plain->MetadataKeys()) {
    EXPECT_EQ(**got->GetMetadata(key), **plain->GetMetadata(key)) << key;
  }
  EXPECT_EQ((*got->GetMetadata("qwen35.block_count"))->ints(), std::vector<int64_t>{8});
  EXPECT_FALSE(got->HasMetadata("qwen35.nextn_predict_layers"));
}

// The gated delta-net keys: each missing or contradicting one is named with what it must be.
TEST(HfImportQwen35, LinearAttentionKeysAreRequiredAndChecked) {
  const std::string dir = ArchDir("qwen35", "hf_qwen35_keys");
  const json original = json::parse(ReadFile(dir + "/config.json"));
  auto expect = [&](const std::function<void(json*)>& edit, absl::StatusCode code,
                    const std::string& text) {
    WriteText(dir + "/config.json", original.dump());
    EditConfig(dir, edit);
    EXPECT_EQ(HfImportFailsWith(dir, code, text), absl::OkStatus());
  };
  expect([](json* c) { c->erase("linear_num_key_heads"); }, absl::StatusCode::kInvalidArgument,
         "config.json: missing key \"linear_num_key_heads\" (expected a positive integer)");
  expect([](json* c) { (*c)["linear_num_value_heads"] = 3; }, absl::StatusCode::kInvalidArgument,
         "key \"linear_num_value_heads\" is 3, expected a multiple of linear_num_key_heads 2");
  expect([](json* c) { (*c)["linear_value_head_dim"] = 32; }, absl::StatusCode::kInvalidArgument,
         "key \"linear_value_head_dim\" is 32, expected linear_key_head_dim 16 (edgeq's qwen35 "
         "runs value heads as wide as the key heads)");
  expect([](json* c) { (*c)["attn_output_gate"] = false; }, absl::StatusCode::kInvalidArgument,
         "key \"attn_output_gate\" is false, expected true");
  expect([](json* c) { (*c)["full_attention_interval"] = 2; }, absl::StatusCode::kInvalidArgument,
         "key \"layer_types\" is an array of 8 elements, expected a list of num_hidden_layers (8) "
         "strings, \"full_attention\" on every full_attention_interval-th (2) layer");
  expect([](json* c) { (*c)["rope_parameters"]["rope_type"] = "yarn"; },
         absl::StatusCode::kInvalidArgument,
         "key \"rope_parameters\".\"rope_type\" is 'yarn', expected \"default\"");
  expect([](json* c) { (*c)["rope_parameters"]["partial_rotary_factor"] = 0.1; },
         absl::StatusCode::kInvalidArgument,
         "key \"partial_rotary_factor\" is 0.1, expected a factor in (0, 1] giving an even number "
         "of rotated dimensions of head_dim 32");
  // Without layer_types the interval alone places the layers: interval 2 makes layer 1 a full
  // attention layer, whose tensors are not there.
  expect(
      [](json* c) {
        c->erase("layer_types");
        (*c)["full_attention_interval"] = 2;
      },
      absl::StatusCode::kNotFound, "no tensor for blk.1.attn_q.weight");
}

// A tensor whose shape disagrees with the linear_* keys is named with the shape they give.
TEST(HfImportQwen35, MisShapedLinearAttentionTensorsAreNamed) {
  const std::string dir = ArchDir("qwen35", "hf_qwen35_shape");
  const json original = json::parse(ReadFile(dir + "/config.json"));
  EditConfig(dir, [](json* c) { (*c)["linear_conv_kernel_dim"] = 3; });
  EXPECT_EQ(HfImportFailsWith(
                dir, absl::StatusCode::kInvalidArgument,
                "tensor 'model.layers.0.linear_attn.conv1d.weight' has shape [128, 4], expected "
                "[128, 3] (from config.json)"),
            absl::OkStatus());
  WriteText(dir + "/config.json", original.dump());
  EditConfig(dir, [](json* c) { (*c)["linear_key_head_dim"] = (*c)["linear_value_head_dim"] = 8; });
  EXPECT_EQ(HfImportFailsWith(
                dir, absl::StatusCode::kInvalidArgument,
                "tensor 'model.layers.0.linear_attn.conv1d.weight' has shape [128, 4], expected "
                "[64, 4] (from config.json)"),
            absl::OkStatus());
  WriteText(dir + "/config.json", original.dump());
  ASSERT_EQ(RemoveHfTensor(dir, "model.layers.2.linear_attn.A_log"), absl::OkStatus());
  EXPECT_EQ(HfImportFailsWith(dir, absl::StatusCode::kNotFound, "no tensor for blk.2.ssm_a"),
            absl::OkStatus());
}

// The crafted values the two tests below put in a config.json: wrong types, bounds and shapes.
const std::vector<json>& CraftedValues() {
  static const auto* const kValues =
      new std::vector<json>{json("x"),       json(-1),      json(0),
                            json(1e300),     json(nullptr), json::array(),
                            json::object(),  json(3),       json(int64_t{1} << 40),
                            json({1, 2, 3}), json(0.5),     json(true)};
  return *kValues;
}

// Imports `dir` with config.json replaced by each config `each_config` gives (through its `run`
// argument): none may crash; returns {errors, imports}.
std::pair<int, int> ImportCraftedConfigs(
    const std::string& dir,
    const std::function<void(const std::function<void(const json&)>&)>& each_config) {
  int errors = 0, total = 0;
  each_config([&](const json& c) {
    WriteText(dir + "/config.json", c.dump());
    errors += !ImportHfCheckpoint(dir).ok();
    ++total;
  });
  return {errors, total};
}

// run(c) for each config c: `original` with the value at `at` replaced by each crafted value.
template <typename Run>
void EachCrafted(const json& original, const json::json_pointer& at, const Run& run) {
  for (const json& v : CraftedValues()) {
    json c = original;
    c[at] = v;
    run(c);
  }
}

// Every config.json key (and every rope_parameters entry) of a qwen35 directory replaced by
// crafted values: an error or a model, never a crash (the reorder and A_log paths run on every
// import that gets that far).
TEST(HfImportQwen35, CraftedConfigValuesNeverCrash) {
  const std::string dir = ArchDir("qwen35", "hf_qwen35_crafted");
  const json original = json::parse(ReadFile(dir + "/config.json"));
  const auto [errors, total] = ImportCraftedConfigs(dir, [&](const auto& run) {
    for (auto it = original.begin(); it != original.end(); ++it) {
      const bool nest = it.key() != "architectures";
      EachCrafted(original, json::json_pointer() / it.key(), [&](const json& c) {
        run(c);
        if (nest) run(json{{"architectures", original["architectures"]}, {"text_config", c}});
      });
    }
    const json& rope = original["rope_parameters"];
    for (auto it = rope.begin(); it != rope.end(); ++it) {
      EachCrafted(original, json::json_pointer("/rope_parameters") / it.key(), run);
    }
    EachCrafted(original, json::json_pointer("/text_config"), run);
  });
  EXPECT_GT(errors, total / 2);
}

// gemma4's per-layer keys: each missing or contradicting one is named with what it must be.
TEST(HfImportGemma4, PerLayerKeysAreRequiredAndChecked) {
  const std::string dir = ArchDir("gemma4", "hf_gemma4_keys");
  const json original = json::parse(ReadFile(dir + "/config.json"));
  auto expect = [&](const std::function<void(json*)>& edit, absl::StatusCode code,
                    const std::string& text) {
    WriteText(dir + "/config.json", original.dump());
    EditConfig(dir, edit);
    EXPECT_EQ(HfImportFailsWith(dir, code, text), absl::OkStatus());
  };
  expect([](json* c) { (*c)["layer_types"][2] = "linear_attention"; },
         absl::StatusCode::kInvalidArgument,
         "key \"layer_types\" is an array of 10 elements, expected a list of num_hidden_layers "
         "(10) strings \"sliding_attention\" or \"full_attention\"");
  expect([](json* c) { c->erase("num_kv_shared_layers"); }, absl::StatusCode::kInvalidArgument,
         "missing key \"num_kv_shared_layers\" (expected an integer in 0..10)");
  expect([](json* c) { (*c)["rope_parameters"]["full_attention"]["rope_type"] = "default"; },
         absl::StatusCode::kInvalidArgument,
         "key \"rope_parameters\".\"full_attention\".\"rope_type\" is 'default', expected "
         "\"proportional\"");
  expect([](json* c) { (*c)["rope_parameters"]["full_attention"].erase("partial_rotary_factor"); },
         absl::StatusCode::kInvalidArgument,
         "missing key \"rope_parameters\".\"full_attention\".\"partial_rotary_factor\"");
  expect([](json* c) { (*c)["rope_parameters"].erase("full_attention"); },
         absl::StatusCode::kInvalidArgument, "missing key \"rope_parameters\".\"full_attention\"");
  expect([](json* c) { (*c)["num_experts"] = 128; }, absl::StatusCode::kInvalidArgument,
         "key \"num_experts\" is 128, expected absent or 0");
  expect([](json* c) { (*c)["attn_logit_softcapping"] = 50.0; }, absl::StatusCode::kInvalidArgument,
         "key \"attn_logit_softcapping\" is 50.0, expected absent or null");
  // Shapes the keys give: the full layers' head dimension, the shared layers' double-wide FFN,
  // the per-layer width, and V = K.
  expect([](json* c) { (*c)["global_head_dim"] = 64; }, absl::StatusCode::kInvalidArgument,
         "tensor 'model.layers.4.self_attn.k_norm.weight' has shape [32], expected [64] (from "
         "config.json)");
  expect([](json* c) { (*c)["use_double_wide_mlp"] = false; }, absl::StatusCode::kInvalidArgument,
         "tensor 'model.layers.5.mlp.down_proj.weight' has shape [64, 256], expected [64, 128]");
  expect([](json* c) { (*c)["hidden_size_per_layer_input"] = 8; },
         absl::StatusCode::kInvalidArgument,
         "tensor 'model.embed_tokens_per_layer.weight' has shape [512, 160], expected [512, 80]");
  expect([](json* c) { (*c)["attention_k_eq_v"] = false; }, absl::StatusCode::kNotFound,
         "no tensor for blk.4.attn_v.weight");
}

// A shared-KV layer's K projection (which Gemma 4 does not run) is taken as the converter takes
// it, checked against the layer's shape; a missing per-layer tensor is named.
TEST(HfImportGemma4, SharedLayerKvIsOptionalAndPerLayerTensorsRequired) {
  const std::string dir = ArchDir("gemma4", "hf_gemma4_shared");
  absl::StatusOr<TensorDict> shard =
      checkpoint::ReadSafetensors(dir + "/model-00001-of-00003.safetensors");
  ASSERT_TRUE(shard.ok()) << shard.status();
  TensorDict copy;
  for (const std::string& k : shard->Keys()) {
    ASSERT_TRUE(copy.Set(k, *(*shard->Get(k))->Clone()).ok());
  }
  shard = TensorDict();
  // Layer 9 is full: 2 KV heads of 32.
  ASSERT_TRUE(copy.Set("model.layers.9.self_attn.k_proj.weight",
                       *Tensor::FromValues<float>(Shape{64, 64}, std::vector<float>(64 * 64, 0.5f)))
                  .ok());
  ASSERT_TRUE(checkpoint::WriteSafetensors(copy, dir + "/model-00001-of-00003.safetensors").ok());
  json index = json::parse(ReadFile(dir + "/model.safetensors.index.json"));
  index["weight_map"]["model.layers.9.self_attn.k_proj.weight"] =
      "model-00001-of-00003.safetensors";
  WriteText(dir + "/model.safetensors.index.json", index.dump());
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->Contains("blk.9.attn_k.weight"));
  EXPECT_EQ((*got->Get("blk.9.attn_k.weight"))->shape(), Shape({64, 64}));
  EXPECT_FALSE(got->Contains("blk.9.attn_v.weight"));

  ASSERT_EQ(RemoveHfTensor(dir, "model.layers.2.per_layer_input_gate.weight"), absl::OkStatus());
  EXPECT_EQ(
      HfImportFailsWith(dir, absl::StatusCode::kNotFound, "no tensor for blk.2.inp_gate.weight"),
      absl::OkStatus());
}

// Every config.json key and rope_parameters entry of a gemma4 directory set to crafted values:
// an error or a model, never a crash.
TEST(HfImportGemma4, CraftedConfigValuesNeverCrash) {
  const std::string dir = ArchDir("gemma4", "hf_gemma4_crafted");
  const json original = json::parse(ReadFile(dir + "/config.json"));
  const auto [errors, total] = ImportCraftedConfigs(dir, [&](const auto& run) {
    for (auto it = original.begin(); it != original.end(); ++it) {
      EachCrafted(original, json::json_pointer() / it.key(), run);
    }
    for (const char* kind : {"full_attention", "sliding_attention"}) {
      const json::json_pointer at = json::json_pointer("/rope_parameters") / kind;
      for (const char* key : {"rope_type", "partial_rotary_factor", "rope_theta"}) {
        EachCrafted(original, at / key, run);
      }
      EachCrafted(original, at, run);
    }
  });
  EXPECT_GT(errors, total / 2);
}

}  // namespace
}  // namespace convert
}  // namespace edgeq
