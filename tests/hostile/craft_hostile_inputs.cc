// Writes the crafted inputs of issue 27 ("hostile inputs") into a folder, for
// tests/hostile/hostile_inputs_test.sh: GGUF files whose metadata lies about the tensors they
// hold, Hugging Face directories with oversized or deeply nested JSON, stray tensors and
// duplicate keys, and files of non-finite weights. Each file is the base model with one thing
// changed, so that a refusal can only come from that change.
//
//   craft_hostile_inputs --base=M.gguf --out=DIR
//
// M.gguf: a small llama GGUF with a vocabulary (make_random_gguf --synthetic_vocab).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/gguf.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/tensor_dict.h"
#include "convert/hf_testing.h"
#include "core/status_macros.h"
#include "llm/random_model.h"

ABSL_FLAG(std::string, base, "", "a small llama GGUF with a vocabulary");
ABSL_FLAG(std::string, out, "", "folder to write the crafted inputs into");

namespace edgeq {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;

absl::Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Base with one metadata key replaced.
absl::Status WithKey(const TensorDict& base, const std::string& key, MetadataValue v,
                     const std::string& path) {
  TensorDict d = base;
  d.SetMetadata(key, std::move(v));
  return checkpoint::WriteGguf(d, path);
}

// Base with every f32 tensor filled with `value`.
absl::Status WithWeights(const TensorDict& base, float value, const std::string& path) {
  TensorDict d;
  for (const std::string& key : base.MetadataKeys()) {
    EDGEQ_ASSIGN_OR_RETURN(const MetadataValue* v, base.GetMetadata(key));
    d.SetMetadata(key, *v);
  }
  for (const std::string& name : base.Keys()) {
    EDGEQ_ASSIGN_OR_RETURN(const Tensor* t, base.Get(name));
    EDGEQ_ASSIGN_OR_RETURN(Tensor copy, t->Clone());
    if (t->dtype() == DType::kFloat32) {
      EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> f, copy.MutableValues<float>());
      for (float& x : f) x = value;
    }
    EDGEQ_RETURN_IF_ERROR(d.Set(name, std::move(copy)));
  }
  return checkpoint::WriteGguf(d, path);
}

std::string Deep(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A safetensors file: the 8-byte little-endian header length, the header, the data.
std::string Safetensors(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

absl::Status Run(const std::string& base_path, const std::string& out) {
  EDGEQ_ASSIGN_OR_RETURN(TensorDict base, checkpoint::ReadGguf(base_path));
  const std::string arch = "llama";
  // F1: a block count far above the two layers present.
  EDGEQ_RETURN_IF_ERROR(WithKey(base, arch + ".block_count",
                                MetadataValue::Int(int64_t{1} << 30, MetadataValue::Width::kU32),
                                out + "/f1_layers_2p30.gguf"));
  EDGEQ_RETURN_IF_ERROR(WithKey(base, arch + ".block_count",
                                MetadataValue::Int(int64_t{1} << 20, MetadataValue::Width::kU32),
                                out + "/f1_layers_2p20.gguf"));
  // F6: fewer layers declared than present; the count stored as a bool.
  EDGEQ_RETURN_IF_ERROR(WithKey(base, arch + ".block_count",
                                MetadataValue::Int(1, MetadataValue::Width::kU32),
                                out + "/f6_layers_1_of_2.gguf"));
  EDGEQ_RETURN_IF_ERROR(WithKey(base, arch + ".block_count", MetadataValue::Bool(true),
                                out + "/f6_layers_bool.gguf"));
  // F14: a tokenizer flag stored as a string.
  EDGEQ_RETURN_IF_ERROR(WithKey(base, "tokenizer.ggml.add_space_prefix",
                                MetadataValue::String("false"),
                                out + "/f14_add_space_prefix_string.gguf"));
  // A 10 MB architecture name.
  EDGEQ_RETURN_IF_ERROR(WithKey(base, "general.architecture",
                                MetadataValue::String(std::string(10 << 20, 'x')),
                                out + "/arch_10mb.gguf"));
  // Non-finite weights.
  EDGEQ_RETURN_IF_ERROR(
      WithWeights(base, std::numeric_limits<float>::quiet_NaN(), out + "/nan_weights.gguf"));
  EDGEQ_RETURN_IF_ERROR(
      WithWeights(base, std::numeric_limits<float>::infinity(), out + "/inf_weights.gguf"));

  // Hugging Face directories: a small llama, one safetensors file.
  llm::RandomModelSpec spec;
  spec.name = "hostile";
  spec.dim = 32;
  spec.layers = 2;
  spec.heads = 4;
  spec.kv_heads = 2;
  spec.ffn = 48;
  spec.vocab = 64;
  spec.context = 64;
  EDGEQ_ASSIGN_OR_RETURN(TensorDict hf_model, llm::RandomModel(spec));
  const std::string hf = out + "/hf_ok";
  EDGEQ_RETURN_IF_ERROR(convert::WriteHfCheckpointDir(spec, hf_model, hf, 1));
  EDGEQ_ASSIGN_OR_RETURN(std::string config, ReadText(hf + "/config.json"));
  EDGEQ_ASSIGN_OR_RETURN(std::string weights, ReadText(hf + "/model.safetensors"));
  const std::string sharded = out + "/hf_sharded";
  EDGEQ_RETURN_IF_ERROR(convert::WriteHfCheckpointDir(spec, hf_model, sharded, 2));
  EDGEQ_ASSIGN_OR_RETURN(std::string index, ReadText(sharded + "/model.safetensors.index.json"));

  // A copy of hf_ok with config.json (or another file) replaced.
  auto hf_dir = [&](const std::string& name, const std::string& cfg) -> absl::Status {
    const std::string dir = out + "/" + name;
    if (std::system(("mkdir -p '" + dir + "'").c_str()) != 0) {
      return absl::InternalError("mkdir " + dir);
    }
    EDGEQ_RETURN_IF_ERROR(WriteText(dir + "/config.json", cfg));
    return WriteText(dir + "/model.safetensors", weights);
  };
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    const size_t at = s.find(from);
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
  };
  // F2: a layer count of 10^7 and 2^31.
  const std::string layers_key = "\"num_hidden_layers\": 2";
  if (config.find(layers_key) == std::string::npos) {
    return absl::InternalError("config.json has no '" + layers_key + "': " + config);
  }
  EDGEQ_RETURN_IF_ERROR(
      hf_dir("f2_layers_1e7", replace(config, layers_key, "\"num_hidden_layers\": 10000000")));
  EDGEQ_RETURN_IF_ERROR(
      hf_dir("f2_layers_2p31", replace(config, layers_key, "\"num_hidden_layers\": 2147483648")));
  // F3: JSON nested 100000 deep in config.json, in the index, in a safetensors header.
  EDGEQ_RETURN_IF_ERROR(
      hf_dir("f3_deep_config", replace(config, "{", "{\"deep\": " + Deep(100000) + ",")));
  {
    const std::string dir = out + "/f3_deep_index";
    EDGEQ_RETURN_IF_ERROR(convert::WriteHfCheckpointDir(spec, hf_model, dir, 2));
    EDGEQ_RETURN_IF_ERROR(WriteText(dir + "/model.safetensors.index.json",
                                    replace(index, "{", "{\"deep\": " + Deep(100000) + ",")));
  }
  EDGEQ_RETURN_IF_ERROR(WriteText(
      out + "/f3_deep_header.safetensors",
      Safetensors("{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"deep\":" +
                      Deep(100000) + "}}",
                  std::string(4, '\0'))));
  // F7: a stray tensor whose layer index is spelled "00".
  {
    EDGEQ_ASSIGN_OR_RETURN(TensorDict st, checkpoint::ReadSafetensors(hf + "/model.safetensors"));
    EDGEQ_ASSIGN_OR_RETURN(const Tensor* norm, st.Get("model.layers.0.input_layernorm.weight"));
    EDGEQ_ASSIGN_OR_RETURN(Tensor stray, Tensor::Full(norm->shape(), 7.0f));
    EDGEQ_RETURN_IF_ERROR(st.Set("model.layers.00.input_layernorm.weight", std::move(stray)));
    const std::string dir = out + "/f7_layer_00";
    EDGEQ_RETURN_IF_ERROR(hf_dir("f7_layer_00", config));
    EDGEQ_RETURN_IF_ERROR(checkpoint::WriteSafetensors(st, dir + "/model.safetensors"));
  }
  // F8: a directory to convert onto its own weights file.
  EDGEQ_RETURN_IF_ERROR(hf_dir("f8_self", config));
  // F13: one tensor name twice in a safetensors header.
  EDGEQ_RETURN_IF_ERROR(
      WriteText(out + "/f13_duplicate_key.safetensors",
                Safetensors("{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                            "\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                            std::string(8, '\0'))));
  // F13 at scale: 25,000 tensor entries (1.6 MB of header), the first repeated last.
  {
    std::string header = "{";
    std::string data;
    for (int i = 0; i < 25000; ++i) {
      absl::StrAppend(&header, "\"t", i, "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[",
                      4 * i, ",", 4 * i + 4, "]},");
    }
    header += "\"t0\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    EDGEQ_RETURN_IF_ERROR(WriteText(out + "/f13_many_entries_duplicate.safetensors",
                                    Safetensors(header, std::string(4 * 25000, '\0'))));
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string base = absl::GetFlag(FLAGS_base), out = absl::GetFlag(FLAGS_out);
  if (base.empty() || out.empty()) {
    std::fprintf(stderr, "craft_hostile_inputs: --base and --out are required\n");
    return 2;
  }
  const absl::Status s = edgeq::Run(base, out);
  if (!s.ok()) {
    std::fprintf(stderr, "craft_hostile_inputs: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
