// Writes the seed corpora of the fuzz targets past the parsers (run once; outputs are committed):
//   bazel run //tests/fuzz:make_hf_seeds -- $PWD/tests/fuzz/corpus
// hf_import: tiny Hugging Face directories of every architecture (from llm::RandomModel through
// convert::WriteHfCheckpointDir) and the hostile cases of issue 27 (F2 layer counts, F3 nesting, F7
// "00" layer index, F13 duplicate keys, booleans as strings, long names); hf_tokenizer: small
// tokenizer.json files and their hostile variants; chat_template: templates with each family's
// markers, as text and inside tokenizer_config.json, with messages; spm_model: SentencePiece
// tokenizer.model files (BPE/unigram, identity/nmt_nfkc, truncated, a group wire type, a length
// past the end).
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "checkpoint/safetensors.h"
#include "convert/hf_testing.h"
#include "llm/random_model.h"
#include "nlohmann/json.hpp"
#include "tests/fuzz/fuzz_files.h"

namespace {

using edgeq::fuzz::JoinParts;
using json = nlohmann::json;

std::string out_dir;

void Write(const std::string& target, const std::string& name, const std::string& bytes) {
  const std::string dir = out_dir + "/" + target;
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary).write(bytes.data(), bytes.size());
  std::printf("%s: %zu bytes\n", path.c_str(), bytes.size());
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A safetensors file with its JSON header passed through `edit`.
std::string EditHeader(const std::string& st, const std::function<std::string(std::string)>& edit) {
  uint64_t n;
  std::memcpy(&n, st.data(), 8);
  std::string header = edit(st.substr(8, n));
  header.resize((header.size() + 7) / 8 * 8, ' ');
  const uint64_t m = header.size();
  return std::string(reinterpret_cast<const char*>(&m), 8) + header + st.substr(8 + n);
}

std::string Deep(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

constexpr char kTokenizer[] =
    R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
"pre_tokenizer": {"type": "ByteLevel", "use_regex": true},
"added_tokens": [{"id": 3, "content": "<s>", "special": true}],
"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}]}})";
constexpr char kTokenizerSpm[] =
    R"({"model": {"type": "BPE", "vocab": {"<unk>": 0, "<0x41>": 1, "\u2581": 2, "a": 3, "\u2581a": 4},
"merges": [["\u2581", "a"]], "byte_fallback": true, "unk_token": "<unk>"},
"normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
"pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious"}})";
constexpr char kTokenizerSplit[] =
    R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "\u0120": 3}, "merges": ["a b"]},
"normalizer": {"type": "NFC"},
"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
 {"type": "Split", "pattern": {"Regex": "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s+(?!\\S)|\\s+"},
  "behavior": "Isolated", "invert": false},
 {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]}})";
constexpr char kTokenizerConfig[] =
    R"({"bos_token": "<s>", "add_bos_token": true, "add_eos_token": false,
"chat_template": "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"})";

void HfImportSeeds() {
  const std::vector<std::string> archs = {"llama", "qwen2",  "qwen3", "gemma3",
                                          "phi3",  "qwen35", "gemma4"};
  std::string llama_config, llama_st;
  for (const std::string& arch : archs) {
    edgeq::llm::RandomModelSpec s;
    s.name = "seed-" + arch;
    s.architecture = arch;
    s.dim = 8, s.layers = 1, s.heads = 2, s.kv_heads = 1, s.ffn = 8, s.vocab = 8, s.context = 16;
    s.seed = 3;
    if (arch == "llama") s.tied = false, s.llama3_rope = false;
    if (arch == "qwen3" || arch == "gemma3") s.head_dim = 4;
    if (arch == "gemma3") s.sliding_window = 4, s.sliding_window_pattern = 2;
    if (arch == "phi3") s.rope_original_context = 8, s.tied = false;
    if (arch == "qwen35") {  // a gated delta-net layer (1 key head, 2 value heads), then attention
      s.layers = 2, s.head_dim = 4, s.full_attention_interval = 2, s.rope_dims = 2;
      s.rope_sections = {1, 0, 0, 0}, s.ssm_state = 2, s.ssm_key_heads = 1;
      s.ssm_value_heads = 2, s.ssm_conv_kernel = 2;
    }
    if (arch == "gemma4") {  // sliding, full, then a shared-KV sliding layer
      s.layers = 3, s.head_dim = 4, s.head_dim_swa = 2, s.sliding_window = 4;
      s.sliding_window_pattern = 2, s.shared_kv_layers = 1, s.per_layer_dim = 2;
      s.double_wide_mlp = true, s.value_from_key = true, s.partial_rotary_full = 0.5f;
      s.final_logit_softcapping = 30.0f;
    }
    absl::StatusOr<edgeq::checkpoint::TensorDict> m = edgeq::llm::RandomModel(s);
    if (!m.ok()) {
      std::fprintf(stderr, "%s: %s\n", arch.c_str(), std::string(m.status().message()).c_str());
      std::exit(1);
    }
    const std::string dir = "/tmp/edgeq_hf_seed_" + arch;
    ::mkdir(dir.c_str(), 0755);
    if (!edgeq::convert::WriteHfCheckpointDir(s, *m, dir, 1).ok()) std::exit(1);
    const std::string config = ReadAll(dir + "/config.json");
    const std::string st = ReadAll(dir + "/model.safetensors");
    Write("hf_import", arch + ".txt", JoinParts({config, "", st, kTokenizer, kTokenizerConfig}));
    if (arch == "llama") llama_config = config, llama_st = st;
  }
  const json config = json::parse(llama_config);
  auto with = [&](const char* key, const json& v) {
    json c = config;
    c[key] = v;
    return c.dump(1);
  };
  auto seed = [&](const std::string& name, const std::string& c, const std::string& index,
                  const std::string& st) {
    Write("hf_import", name, JoinParts({c, index, st}));
  };
  // The index naming model.safetensors for every tensor.
  json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", json::object()}};
  {
    uint64_t n;
    std::memcpy(&n, llama_st.data(), 8);
    const json header = json::parse(llama_st.substr(8, n));
    for (auto it = header.begin(); it != header.end(); ++it) {
      if (it.key() != "__metadata__") index["weight_map"][it.key()] = "model.safetensors";
    }
  }
  seed("indexed.txt", llama_config, index.dump(1), llama_st);
  // F2: layer counts far above the tensors, and 2^31 (which the "below 2^31" check let through).
  seed("layers_1e7.txt", with("num_hidden_layers", 10000000), "", llama_st);
  seed("layers_2p31.txt", with("num_hidden_layers", int64_t{1} << 31), "", llama_st);
  seed("vocab_2p31.txt", with("vocab_size", int64_t{1} << 31), "", llama_st);
  seed("layers_4096.txt", with("num_hidden_layers", 4096), "", llama_st);
  seed("layers_0.txt", with("num_hidden_layers", 0), "", llama_st);
  // F14 for HF: a boolean as a string.
  seed("tied_string.txt", with("tie_word_embeddings", "false"), "", llama_st);
  seed("long_arch.txt", with("architectures", json::array({std::string(3000, 'A')})), "", llama_st);
  // F3: nesting in config.json, the index and the safetensors header.
  seed("deep_config.txt", "{\"x\": " + Deep(1000) + ", " + llama_config.substr(1), "", llama_st);
  seed("deep_index.txt", llama_config, "{\"x\": " + Deep(1000) + "}", llama_st);
  seed("deep_header.txt", llama_config, "", EditHeader(llama_st, [](std::string h) {
         return "{\"x\": {\"dtype\": \"F32\", \"shape\": " + Deep(1000) +
                ", \"data_offsets\": [0, 0]}, " + h.substr(1);
       }));
  // F13: duplicate keys.
  seed("dup_config.txt", "{\"num_hidden_layers\": 2, " + llama_config.substr(1), "", llama_st);
  seed("dup_index.txt", llama_config,
       absl::StrReplaceAll(index.dump(), {{"\"weight_map\":{",
                                           "\"weight_map\":{\"model.norm.weight\":"
                                           "\"model.safetensors\","}}),
       llama_st);
  seed("dup_header.txt", llama_config, "", EditHeader(llama_st, [](std::string h) {
         const size_t at = h.find("\"model.norm.weight\":");
         const size_t end = h.find('}', at);
         return "{" + h.substr(at, end + 1 - at) + "," + h.substr(1);
       }));
  // F7: a stray "00" layer index (the header's first tensor renamed).
  seed("layer_00.txt", llama_config, "", EditHeader(llama_st, [](std::string h) {
         return absl::StrReplaceAll(
             h, {{"model.layers.0.input_layernorm", "model.layers.00.x"},
                 {"model.layers.0.post_attention_layernorm", "model.layers.00.input_layernorm"}});
       }));
  seed("layer_plus0.txt", llama_config, "", EditHeader(llama_st, [](std::string h) {
         return absl::StrReplaceAll(
             h, {{"model.layers.0.input_layernorm", "model.layers.+0.input_layernorm"}});
       }));
}

void TokenizerSeeds() {
  auto seed = [](const std::string& name, const std::string& tok, const std::string& cfg) {
    Write("hf_tokenizer", name, JoinParts({tok, cfg, "Hello ab world 123 <s>\n"}));
  };
  seed("bytelevel.txt", kTokenizer, kTokenizerConfig);
  seed("spm.txt", kTokenizerSpm, "");
  seed("split.txt", kTokenizerSplit, R"({"add_bos_token": false})");
  const std::string t = kTokenizer;
  seed("deep.txt", "{\"x\": " + Deep(1000) + ", " + t.substr(1), "");
  seed("deep_config.txt", t, "{\"x\": " + Deep(1000) + "}");
  seed("dup_token.txt", absl::StrReplaceAll(t, {{"\"a\": 0,", "\"a\": 0, \"a\": 5,"}}), "");
  seed("dup_id.txt", absl::StrReplaceAll(t, {{"\"b\": 1,", "\"b\": 0,"}}), "");
  seed("bool_string.txt", t, R"({"add_bos_token": "true"})");
  seed("sparse_id.txt", absl::StrReplaceAll(t, {{"\"ab\": 2", "\"ab\": 2000000000"}}), "");
  seed("negative_id.txt", absl::StrReplaceAll(t, {{"\"ab\": 2", "\"ab\": -2"}}), "");
  seed("bad_regex.txt", absl::StrReplaceAll(kTokenizerSplit, {{"\\\\p{N}{1,3}", "(?<=a"}}), "");
}

// ---- spm_model: SentencePiece ModelProto files (a minimal protobuf writer). ----
void PbVarint(uint64_t v, std::string* out) {
  for (; v >= 0x80; v >>= 7) out->push_back(static_cast<char>((v & 0x7f) | 0x80));
  out->push_back(static_cast<char>(v));
}
void PbBytes(uint32_t field, const std::string& data, std::string* out) {
  PbVarint((field << 3) | 2, out);
  PbVarint(data.size(), out);
  *out += data;
}
void PbInt(uint32_t field, int64_t v, std::string* out) {
  PbVarint(field << 3, out);
  PbVarint(static_cast<uint64_t>(v), out);
}
std::string PbPiece(const std::string& text, float score, int type) {
  std::string p;
  PbBytes(1, text, &p);
  PbVarint((2 << 3) | 5, &p);
  p.append(reinterpret_cast<const char*>(&score), 4);
  if (type != 1) PbInt(3, type, &p);
  return p;
}
// <unk> <s> </s>, the 256 byte pieces (if `bytes`), "▁a", "b", "▁ab"; model_type and
// normalizer as given.
std::string SpmModel(int model_type, const std::string& normalizer, bool bytes) {
  std::string out;
  PbBytes(1, PbPiece("<unk>", 0, 2), &out);
  PbBytes(1, PbPiece("<s>", 0, 3), &out);
  PbBytes(1, PbPiece("</s>", 0, 3), &out);
  for (int b = 0; bytes && b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    PbBytes(1, PbPiece(name, 0, 6), &out);
  }
  PbBytes(1,
          PbPiece("\xe2\x96\x81"
                  "a",
                  -1, 1),
          &out);
  PbBytes(1, PbPiece("b", -2, 4), &out);
  PbBytes(1,
          PbPiece("\xe2\x96\x81"
                  "ab",
                  -3, 1),
          &out);
  std::string trainer;
  PbInt(3, model_type, &trainer);
  PbInt(35, bytes, &trainer);
  PbInt(43, -1, &trainer);
  PbBytes(2, trainer, &out);
  std::string norm;
  PbBytes(1, normalizer, &norm);
  PbInt(4, 0, &norm);
  PbBytes(3, norm, &out);
  return out;
}

void SpmModelSeeds() {
  const std::string good = SpmModel(2, "identity", true);
  Write("spm_model", "bpe_bytes.model", good);
  Write("spm_model", "bpe_no_bytes.model", SpmModel(2, "identity", false));
  Write("spm_model", "unigram.model", SpmModel(1, "identity", true));
  Write("spm_model", "nfkc.model", SpmModel(2, "nmt_nfkc", false));
  Write("spm_model", "truncated.model", good.substr(0, good.size() - 5));
  Write("spm_model", "group_wire.model", std::string("\x0b\x0c", 2) + good);
  Write("spm_model", "long_length.model", std::string("\x0a\xff\xff\xff\xff\x0f", 6) + good);
}

void ChatSeeds() {
  const std::vector<std::pair<std::string, std::string>> templates = {
      {"chatml", "<|im_start|>{{ m.role }}<|im_end|>"},
      {"qwen25", "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud"},
      {"qwen3", "<|im_start|>{{ reasoning_content }}</think>"},
      {"smollm2", "<|im_start|>You are a helpful AI assistant named SmolLM"},
      {"phi4", "<|im_start|><|im_sep|>"},
      {"llama3", "<|start_header_id|>{{ role }}<|end_header_id|>"},
      {"llama31", "<|start_header_id|><|end_header_id|>Cutting Knowledge Date: December 2023"},
      {"llama32", "<|start_header_id|><|end_header_id|>Cutting Knowledge Date strftime_now"},
      {"gemma", "{{ bos_token }}<start_of_turn>user"},
      {"phi3", "<|system|><|user|><|assistant|><|end|>"},
      {"phi3mini", "{{ bos_token }}<|user|><|assistant|><|end|>"},
      {"llama2", "[INST] <<SYS>> [/INST]"},
      {"mistral", "[INST] {{ m }} [/INST]"},
      {"name", "gemma"},
      {"unknown", "\x1b]0;title\x07{% for m in messages %}### {{ m }}"},
  };
  // Messages: first byte of a line picks the role (0 system, 1 user, 2 assistant, 3 the rest).
  const std::string messages = std::string("\x00", 1) +
                               "be brief\n\x01Hello\n\x02Hi <think>x</think> there\n\x01"
                               "again\n";
  const std::string odd =
      "\x01"
      "\x03tool\n\x01"
      "x\n";
  for (const auto& [name, text] : templates) {
    Write("chat_template", name + ".txt", std::string(1, '\x00') + JoinParts({text, messages}));
    Write("chat_template", name + "_config.txt",
          std::string(1, '\x01') + JoinParts({json({{"chat_template", text}}).dump(), odd}));
  }
  Write("chat_template", "list_config.txt",
        "\x01" + JoinParts({json({{"chat_template", json::array({{{"name", "default"},
                                                                  {"template", "<|im_start|>"}}})}})
                                .dump(),
                            messages}));
  Write("chat_template", "deep_config.txt",
        "\x01" + JoinParts({"{\"x\": " + Deep(1000) + ", \"chat_template\": \"chatml\"}", ""}));
  Write(
      "chat_template", "dup_config.txt",
      "\x01" + JoinParts({R"({"chat_template": "<|im_start|>", "chat_template": "[INST]"})", ""}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_hf_seeds CORPUS_DIR\n");
    return 2;
  }
  out_dir = argv[1];
  HfImportSeeds();
  TokenizerSeeds();
  ChatSeeds();
  SpmModelSeeds();
  return 0;
}
