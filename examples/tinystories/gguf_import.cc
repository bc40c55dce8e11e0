#include "examples/tinystories/gguf_import.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"

namespace edgeq {
namespace tinystories {
namespace {

class Reader {
 public:
  Reader(const std::string& data, const std::string& path) : data_(data), path_(path) {}

  absl::Status Need(uint64_t n) const {
    if (n > data_.size() - pos_) {
      return absl::InvalidArgumentError(
          absl::StrFormat("GGUF '%s' is truncated: %d bytes needed at offset %d, file has %d",
                          path_, n, pos_, data_.size()));
    }
    return absl::OkStatus();
  }
  template <typename T>
  absl::StatusOr<T> Get() {
    EDGEQ_RETURN_IF_ERROR(Need(sizeof(T)));
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  absl::StatusOr<std::string> String() {
    EDGEQ_ASSIGN_OR_RETURN(uint64_t len, Get<uint64_t>());
    EDGEQ_RETURN_IF_ERROR(Need(len));
    std::string s = data_.substr(pos_, len);
    pos_ += len;
    return s;
  }
  size_t pos() const { return pos_; }
  void Seek(size_t p) { pos_ = p; }

 private:
  const std::string& data_;
  const std::string& path_;
  size_t pos_ = 0;
};

// A metadata value reduced to what the importer uses.
struct Value {
  bool is_number = false;
  double number = 0;
  std::string str;
  std::vector<std::string> strings;
  std::vector<float> floats;
};

size_t ScalarSize(uint32_t type) {
  switch (type) {
    case 0:
    case 1:
    case 7:
      return 1;
    case 2:
    case 3:
      return 2;
    case 4:
    case 5:
    case 6:
      return 4;
    case 10:
    case 11:
    case 12:
      return 8;
    default:
      return 0;
  }
}

absl::StatusOr<double> ReadNumber(Reader& r, uint32_t type) {
  switch (type) {
    case 0: {
      EDGEQ_ASSIGN_OR_RETURN(uint8_t v, r.Get<uint8_t>());
      return v;
    }
    case 1: {
      EDGEQ_ASSIGN_OR_RETURN(int8_t v, r.Get<int8_t>());
      return v;
    }
    case 2: {
      EDGEQ_ASSIGN_OR_RETURN(uint16_t v, r.Get<uint16_t>());
      return v;
    }
    case 3: {
      EDGEQ_ASSIGN_OR_RETURN(int16_t v, r.Get<int16_t>());
      return v;
    }
    case 4: {
      EDGEQ_ASSIGN_OR_RETURN(uint32_t v, r.Get<uint32_t>());
      return v;
    }
    case 5: {
      EDGEQ_ASSIGN_OR_RETURN(int32_t v, r.Get<int32_t>());
      return v;
    }
    case 6: {
      EDGEQ_ASSIGN_OR_RETURN(float v, r.Get<float>());
      return v;
    }
    case 7: {
      EDGEQ_ASSIGN_OR_RETURN(uint8_t v, r.Get<uint8_t>());
      return v;
    }
    case 10: {
      EDGEQ_ASSIGN_OR_RETURN(uint64_t v, r.Get<uint64_t>());
      return static_cast<double>(v);
    }
    case 11: {
      EDGEQ_ASSIGN_OR_RETURN(int64_t v, r.Get<int64_t>());
      return static_cast<double>(v);
    }
    case 12: {
      EDGEQ_ASSIGN_OR_RETURN(double v, r.Get<double>());
      return v;
    }
    default:
      return absl::InvalidArgumentError(absl::StrFormat("GGUF: unknown value type %d", type));
  }
}

absl::StatusOr<Value> ReadValue(Reader& r, uint32_t type) {
  Value v;
  if (type == 8) {
    EDGEQ_ASSIGN_OR_RETURN(v.str, r.String());
  } else if (type == 9) {
    EDGEQ_ASSIGN_OR_RETURN(uint32_t item_type, r.Get<uint32_t>());
    EDGEQ_ASSIGN_OR_RETURN(uint64_t count, r.Get<uint64_t>());
    if (item_type == 8) {
      for (uint64_t i = 0; i < count; ++i) {
        EDGEQ_ASSIGN_OR_RETURN(std::string s, r.String());
        v.strings.push_back(std::move(s));
      }
    } else if (item_type == 6) {
      EDGEQ_RETURN_IF_ERROR(r.Need(count * 4));
      for (uint64_t i = 0; i < count; ++i) {
        EDGEQ_ASSIGN_OR_RETURN(float f, r.Get<float>());
        v.floats.push_back(f);
      }
    } else {
      const size_t size = ScalarSize(item_type);
      if (size == 0) {
        return absl::InvalidArgumentError(
            absl::StrFormat("GGUF: unsupported array item type %d", item_type));
      }
      EDGEQ_RETURN_IF_ERROR(r.Need(count * size));
      r.Seek(r.pos() + count * size);
    }
  } else {
    EDGEQ_ASSIGN_OR_RETURN(v.number, ReadNumber(r, type));
    v.is_number = true;
  }
  return v;
}

// GGUF tensor name -> llama2.c/Meta name.
std::string MapName(const std::string& gguf) {
  static const std::map<std::string, std::string> kTop = {
      {"token_embd.weight", TokenEmbeddingName()},
      {"output_norm.weight", FinalNormName()},
      {"output.weight", ClassifierName()}};
  auto it = kTop.find(gguf);
  if (it != kTop.end()) return it->second;
  int layer = -1;
  char rest[64] = {0};
  if (std::sscanf(gguf.c_str(), "blk.%d.%63s", &layer, rest) != 2 || layer < 0) return "";
  const std::string r = rest;
  if (r == "attn_norm.weight") return AttentionNormName(layer);
  if (r == "attn_q.weight") return WqName(layer);
  if (r == "attn_k.weight") return WkName(layer);
  if (r == "attn_v.weight") return WvName(layer);
  if (r == "attn_output.weight") return WoName(layer);
  if (r == "ffn_norm.weight") return FfnNormName(layer);
  if (r == "ffn_gate.weight") return W1Name(layer);
  if (r == "ffn_down.weight") return W2Name(layer);
  if (r == "ffn_up.weight") return W3Name(layer);
  return "";
}

}  // namespace

absl::StatusOr<GgufModel> LoadGgufLlama(const std::string& path, int max_seq_len) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrFormat("model file '%s' cannot be opened", path));
  std::stringstream buffer;
  buffer << file.rdbuf();
  auto data = std::make_shared<std::string>(buffer.str());
  Reader r(*data, path);
  EDGEQ_ASSIGN_OR_RETURN(uint32_t magic, r.Get<uint32_t>());
  if (magic != 0x46554747u) {  // "GGUF"
    return absl::InvalidArgumentError(absl::StrFormat("'%s' is not a GGUF file (bad magic)", path));
  }
  EDGEQ_ASSIGN_OR_RETURN(uint32_t version, r.Get<uint32_t>());
  if (version != 2 && version != 3) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "GGUF '%s' has version %d; only versions 2 and 3 are supported", path, version));
  }
  EDGEQ_ASSIGN_OR_RETURN(uint64_t n_tensors, r.Get<uint64_t>());
  EDGEQ_ASSIGN_OR_RETURN(uint64_t n_kv, r.Get<uint64_t>());
  if (n_tensors > (1u << 20) || n_kv > (1u << 20)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "GGUF '%s': implausible counts (%d tensors, %d keys)", path, n_tensors, n_kv));
  }
  std::map<std::string, Value> kv;
  for (uint64_t i = 0; i < n_kv; ++i) {
    EDGEQ_ASSIGN_OR_RETURN(std::string key, r.String());
    EDGEQ_ASSIGN_OR_RETURN(uint32_t type, r.Get<uint32_t>());
    EDGEQ_ASSIGN_OR_RETURN(Value v, ReadValue(r, type));
    kv[key] = std::move(v);
  }
  auto str = [&](const std::string& key) { return kv.count(key) ? kv[key].str : std::string(); };
  if (str("general.architecture") != "llama") {
    return absl::InvalidArgumentError(
        absl::StrFormat("GGUF '%s': general.architecture is '%s', expected 'llama'", path,
                        str("general.architecture")));
  }
  auto num = [&](const std::string& key) -> absl::StatusOr<int> {
    auto it = kv.find(key);
    if (it == kv.end() || !it->second.is_number) {
      return absl::InvalidArgumentError(
          absl::StrFormat("GGUF '%s': missing numeric key '%s'", path, key));
    }
    return static_cast<int>(it->second.number);
  };
  GgufModel out;
  LlamaConfig& c = out.weights.config;
  EDGEQ_ASSIGN_OR_RETURN(c.dim, num("llama.embedding_length"));
  EDGEQ_ASSIGN_OR_RETURN(c.hidden_dim, num("llama.feed_forward_length"));
  EDGEQ_ASSIGN_OR_RETURN(c.n_layers, num("llama.block_count"));
  EDGEQ_ASSIGN_OR_RETURN(c.n_heads, num("llama.attention.head_count"));
  c.n_kv_heads = kv.count("llama.attention.head_count_kv")
                     ? static_cast<int>(kv["llama.attention.head_count_kv"].number)
                     : c.n_heads;
  EDGEQ_ASSIGN_OR_RETURN(c.seq_len, num("llama.context_length"));
  if (max_seq_len > 0 && c.seq_len > max_seq_len) c.seq_len = max_seq_len;
  if (kv.count("llama.attention.layer_norm_rms_epsilon")) {
    c.norm_eps = static_cast<float>(kv["llama.attention.layer_norm_rms_epsilon"].number);
  }
  if (kv.count("llama.rope.freq_base")) {
    c.rope_theta = static_cast<float>(kv["llama.rope.freq_base"].number);
  }
  const Value& tokens = kv["tokenizer.ggml.tokens"];
  const Value& scores = kv["tokenizer.ggml.scores"];
  c.vocab_size = kv.count("llama.vocab_size") ? static_cast<int>(kv["llama.vocab_size"].number)
                                              : static_cast<int>(tokens.strings.size());
  // Tensor infos.
  struct Info {
    std::string name;
    std::vector<int64_t> dims;
    uint32_t type;
    uint64_t offset;
  };
  std::vector<Info> infos;
  for (uint64_t i = 0; i < n_tensors; ++i) {
    Info info;
    EDGEQ_ASSIGN_OR_RETURN(info.name, r.String());
    EDGEQ_ASSIGN_OR_RETURN(uint32_t n_dims, r.Get<uint32_t>());
    if (n_dims == 0 || n_dims > 4) {
      return absl::InvalidArgumentError(
          absl::StrFormat("GGUF '%s': tensor '%s' has %d dims", path, info.name, n_dims));
    }
    for (uint32_t d = 0; d < n_dims; ++d) {
      EDGEQ_ASSIGN_OR_RETURN(uint64_t dim, r.Get<uint64_t>());
      if (dim > (1ull << 32)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("GGUF '%s': tensor '%s' dim %d is %d", path, info.name, d, dim));
      }
      info.dims.insert(info.dims.begin(), static_cast<int64_t>(dim));  // row-major order
    }
    EDGEQ_ASSIGN_OR_RETURN(info.type, r.Get<uint32_t>());
    EDGEQ_ASSIGN_OR_RETURN(info.offset, r.Get<uint64_t>());
    infos.push_back(std::move(info));
  }
  uint64_t alignment = 32;
  if (kv.count("general.alignment"))
    alignment = static_cast<uint64_t>(kv["general.alignment"].number);
  if (alignment == 0) alignment = 32;
  const uint64_t data_start = (r.pos() + alignment - 1) / alignment * alignment;
  bool has_output = false;
  for (const Info& info : infos) {
    const std::string name = MapName(info.name);
    if (name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("GGUF '%s': unexpected tensor '%s' for a llama model", path, info.name));
    }
    if (info.type != 0) {
      return absl::UnimplementedError(absl::StrFormat(
          "GGUF '%s': tensor '%s' has GGML type %d; this importer reads F32 (type 0) only", path,
          info.name, info.type));
    }
    EDGEQ_ASSIGN_OR_RETURN(Shape shape, Shape::Create(info.dims));
    const uint64_t bytes = 4 * static_cast<uint64_t>(shape.num_elements());
    if (data_start + info.offset > data->size() ||
        bytes > data->size() - data_start - info.offset) {
      return absl::InvalidArgumentError(
          absl::StrFormat("GGUF '%s': tensor '%s' (%s) lies beyond the end of the file", path,
                          info.name, shape.ToString()));
    }
    EDGEQ_ASSIGN_OR_RETURN(
        Tensor t,
        Tensor::View(DType::kFloat32, shape, data->data() + data_start + info.offset, bytes, data));
    if (name == ClassifierName()) has_output = true;
    out.weights.tensors[name] = std::move(t);
  }
  // Converters from llama2.c write the shared classifier out as its own copy: detect it.
  if (has_output) {
    const Tensor& emb = out.weights.tensors[TokenEmbeddingName()];
    const Tensor& cls = out.weights.tensors[ClassifierName()];
    if (emb.shape() == cls.shape() &&
        std::memcmp(emb.raw_data(), cls.raw_data(), emb.size_bytes()) == 0) {
      out.weights.tensors.erase(ClassifierName());
      has_output = false;
    }
  }
  c.shared_classifier = !has_output;
  EDGEQ_RETURN_IF_ERROR(out.weights.Validate());
  if (!tokens.strings.empty()) {
    std::vector<float> s = scores.floats;
    if (s.size() != tokens.strings.size()) s.assign(tokens.strings.size(), 0.0f);
    // SentencePiece vocabularies in GGUF spell the space as U+2581; llama2.c's as ' '.
    std::vector<std::string> pieces = tokens.strings;
    for (std::string& piece : pieces) {
      for (size_t at = piece.find("\xE2\x96\x81"); at != std::string::npos;
           at = piece.find("\xE2\x96\x81", at + 1)) {
        piece.replace(at, 3, " ");
      }
    }
    EDGEQ_ASSIGN_OR_RETURN(Tokenizer tok, Tokenizer::FromPieces(std::move(pieces), std::move(s)));
    out.tokenizer = std::move(tok);
  }
  return out;
}

}  // namespace tinystories
}  // namespace edgeq
