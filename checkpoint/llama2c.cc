#include "checkpoint/llama2c.h"

#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/internal/file_io.h"
#include "core/status_macros.h"

namespace edgeq {
namespace checkpoint {

namespace {

using internal::ByteReader;
using W = MetadataValue::Width;

constexpr size_t kHeaderBytes = 7 * 4;

absl::Status CheckConfig(const Llama2cConfig& c, absl::string_view context) {
  auto bad = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: invalid llama2.c config (dim %d, hidden %d, layers %d, heads %d, kv heads %d, "
        "vocab %d, seq %d): %s",
        context, c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, c.vocab_size, c.seq_len,
        what));
  };
  if (c.dim <= 0 || c.hidden_dim <= 0 || c.n_layers <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0 ||
      c.vocab_size <= 0 || c.seq_len <= 0) {
    return bad("every value must be positive");
  }
  if (c.dim % c.n_heads != 0) return bad("dim must be a multiple of n_heads");
  if ((c.dim / c.n_heads) % 2 != 0) return bad("the head size must be even (RoPE pairs)");
  if (c.n_kv_heads > c.n_heads || c.n_heads % c.n_kv_heads != 0) {
    return bad("n_heads must be a multiple of n_kv_heads");
  }
  return absl::OkStatus();
}

// One tensor of the file, in file order.
struct Slot {
  std::string name;  // "" for skipped data (the RoPE table)
  Shape shape;
};

// The file's arrays in order, each per-layer array split into layers. Element counts are
// bounded by the caller (the sum is checked against the file size with overflow checks).
std::vector<Slot> FileLayout(const Llama2cConfig& c) {
  const int64_t dim = c.dim, hidden = c.hidden_dim, L = c.n_layers, vocab = c.vocab_size;
  const int64_t kv_dim = dim / c.n_heads * c.n_kv_heads, head = dim / c.n_heads;
  std::vector<Slot> s;
  s.push_back({"token_embd.weight", Shape{vocab, dim}});
  auto per_layer = [&](const char* suffix, Shape shape) {
    for (int64_t l = 0; l < L; ++l) s.push_back({absl::StrCat("blk.", l, ".", suffix), shape});
  };
  per_layer("attn_norm.weight", Shape{dim});
  per_layer("attn_q.weight", Shape{dim, dim});
  per_layer("attn_k.weight", Shape{kv_dim, dim});
  per_layer("attn_v.weight", Shape{kv_dim, dim});
  per_layer("attn_output.weight", Shape{dim, dim});
  per_layer("ffn_norm.weight", Shape{dim});
  per_layer("ffn_gate.weight", Shape{hidden, dim});
  per_layer("ffn_down.weight", Shape{dim, hidden});
  per_layer("ffn_up.weight", Shape{hidden, dim});
  s.push_back({"output_norm.weight", Shape{dim}});
  s.push_back({"", Shape{c.seq_len, head}});  // legacy freq_cis_real + freq_cis_imag
  if (!c.shared_classifier) s.push_back({"output.weight", Shape{vocab, dim}});
  return s;
}

// Dict order: the order llama.cpp's converters use (token_embd, output_norm, output, then each
// block's attn_q, attn_k, attn_v, attn_output, attn_norm, ffn_gate, ffn_down, ffn_up, ffn_norm).
std::vector<std::string> DictOrder(const Llama2cConfig& c) {
  std::vector<std::string> names = {"token_embd.weight", "output_norm.weight"};
  if (!c.shared_classifier) names.push_back("output.weight");
  for (int l = 0; l < c.n_layers; ++l) {
    for (const char* suffix : {"attn_q", "attn_k", "attn_v", "attn_output", "attn_norm", "ffn_gate",
                               "ffn_down", "ffn_up", "ffn_norm"}) {
      names.push_back(absl::StrCat("blk.", l, ".", suffix, ".weight"));
    }
  }
  return names;
}

}  // namespace

void SetLlama2cConfigMetadata(const Llama2cConfig& c, TensorDict* d) {
  d->SetMetadata("general.architecture", MetadataValue::String("llama"));
  d->SetMetadata("llama.embedding_length", MetadataValue::Int(c.dim, W::kU32));
  d->SetMetadata("llama.feed_forward_length", MetadataValue::Int(c.hidden_dim, W::kU32));
  d->SetMetadata("llama.block_count", MetadataValue::Int(c.n_layers, W::kU32));
  d->SetMetadata("llama.attention.head_count", MetadataValue::Int(c.n_heads, W::kU32));
  d->SetMetadata("llama.attention.head_count_kv", MetadataValue::Int(c.n_kv_heads, W::kU32));
  d->SetMetadata("llama.context_length", MetadataValue::Int(c.seq_len, W::kU32));
  d->SetMetadata("llama.vocab_size", MetadataValue::Int(c.vocab_size, W::kU32));
  d->SetMetadata("llama.rope.dimension_count", MetadataValue::Int(c.dim / c.n_heads, W::kU32));
  d->SetMetadata("llama.attention.layer_norm_rms_epsilon", MetadataValue::Float(1e-5, W::kF32));
  d->SetMetadata("llama2c.shared_classifier", MetadataValue::Bool(c.shared_classifier));
}

absl::StatusOr<TensorDict> ReadLlama2cFromBuffer(absl::Span<const uint8_t> data,
                                                 std::shared_ptr<const void> owner) {
  ByteReader r(data, "llama2.c model");
  Llama2cConfig c;
  int32_t* fields[] = {&c.dim,        &c.hidden_dim, &c.n_layers, &c.n_heads,
                       &c.n_kv_heads, &c.vocab_size, &c.seq_len};
  for (int32_t* f : fields) {
    EDGEQ_ASSIGN_OR_RETURN(*f, r.I32("header"));
  }
  if (c.vocab_size < 0 && c.vocab_size != INT32_MIN) {
    c.vocab_size = -c.vocab_size;
    c.shared_classifier = false;
  }
  EDGEQ_RETURN_IF_ERROR(CheckConfig(c, "llama2.c model"));
  // Each dimension is at most 2^31, so any product of two fits in int64; sum the element
  // counts with overflow checks before building shapes.
  const int64_t dim = c.dim, hidden = c.hidden_dim, L = c.n_layers;
  const int64_t kv_dim = dim / c.n_heads * c.n_kv_heads, head = dim / c.n_heads;
  const int64_t limit = static_cast<int64_t>(data.size() / 4);
  int64_t total = 0;
  auto add = [&](int64_t a, int64_t b, int64_t n) {
    int64_t ab, p;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, n, &p) ||
        __builtin_add_overflow(total, p, &total)) {
      total = INT64_MAX;
    }
  };
  add(c.vocab_size, dim, 1);
  add(dim, 2, L);           // rms_att, rms_ffn
  add(dim, 2 * dim, L);     // wq, wo
  add(kv_dim, 2 * dim, L);  // wk, wv
  add(hidden, 3 * dim, L);  // w1, w2, w3
  add(dim, 1, 1);
  add(c.seq_len, head, 1);
  if (!c.shared_classifier) add(c.vocab_size, dim, 1);
  const int64_t expected_bytes =
      total > (INT64_MAX - static_cast<int64_t>(kHeaderBytes)) / 4 ? INT64_MAX : 28 + total * 4;
  if (total > limit || static_cast<uint64_t>(expected_bytes) != data.size()) {
    return r.Error(absl::StrFormat(
        "the header (dim %d, hidden %d, layers %d, heads %d, kv heads %d, vocab %d%s, seq %d) "
        "implies a %d-byte file, but it has %d bytes",
        c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, c.vocab_size,
        c.shared_classifier ? "" : " unshared", c.seq_len, expected_bytes, data.size()));
  }
  if (reinterpret_cast<uintptr_t>(data.data()) % 4 != 0) {
    return absl::InvalidArgumentError("llama2.c model: the buffer is not 4-byte aligned");
  }
  TensorDict tensors;
  size_t pos = kHeaderBytes;
  for (const Slot& s : FileLayout(c)) {
    const size_t bytes = static_cast<size_t>(s.shape.num_elements()) * 4;
    if (!s.name.empty()) {
      EDGEQ_ASSIGN_OR_RETURN(
          Tensor t, Tensor::View(DType::kFloat32, s.shape, data.data() + pos, bytes, owner));
      EDGEQ_RETURN_IF_ERROR(tensors.Set(s.name, std::move(t)));
    }
    pos += bytes;
  }
  TensorDict d;
  for (const std::string& name : DictOrder(c)) {
    EDGEQ_RETURN_IF_ERROR(d.Set(name, **tensors.Get(name)));
  }
  SetLlama2cConfigMetadata(c, &d);
  return d;
}

absl::StatusOr<TensorDict> ReadLlama2c(const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<const internal::MappedFile> file,
                         internal::MappedFile::Open(path));
  absl::StatusOr<TensorDict> dict = ReadLlama2cFromBuffer(file->span(), file);
  if (!dict.ok()) {
    return absl::Status(dict.status().code(), absl::StrCat(path, ": ", dict.status().message()));
  }
  return dict;
}

absl::StatusOr<Llama2cConfig> Llama2cConfigFromMetadata(const TensorDict& dict) {
  Llama2cConfig c;
  auto get = [&](const char* key, int32_t* out) -> absl::Status {
    int64_t v = 0;
    absl::StatusOr<std::string> text = dict.GetString(key);
    if (text.ok()) {  // e.g. from safetensors, whose metadata values are strings
      if (!absl::SimpleAtoi(*text, &v)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("metadata '%s' is \"%s\", expected an integer", key, *text));
      }
    } else {
      EDGEQ_ASSIGN_OR_RETURN(v, dict.GetInt(key));
    }
    if (v <= 0 || v > INT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrFormat("metadata '%s' is %d; expected 1..%d", key, v, INT32_MAX));
    }
    *out = static_cast<int32_t>(v);
    return absl::OkStatus();
  };
  EDGEQ_RETURN_IF_ERROR(get("llama.embedding_length", &c.dim));
  EDGEQ_RETURN_IF_ERROR(get("llama.feed_forward_length", &c.hidden_dim));
  EDGEQ_RETURN_IF_ERROR(get("llama.block_count", &c.n_layers));
  EDGEQ_RETURN_IF_ERROR(get("llama.attention.head_count", &c.n_heads));
  c.n_kv_heads = c.n_heads;
  if (dict.HasMetadata("llama.attention.head_count_kv")) {
    EDGEQ_RETURN_IF_ERROR(get("llama.attention.head_count_kv", &c.n_kv_heads));
  }
  EDGEQ_RETURN_IF_ERROR(get("llama.context_length", &c.seq_len));
  if (dict.HasMetadata("llama.vocab_size")) {
    EDGEQ_RETURN_IF_ERROR(get("llama.vocab_size", &c.vocab_size));
  } else {
    EDGEQ_ASSIGN_OR_RETURN(const Tensor* emb, dict.Get("token_embd.weight"));
    if (emb->rank() != 2 || emb->shape().dim(0) > INT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrFormat("token_embd.weight is %s, expected [vocab, dim]", emb->DebugString()));
    }
    c.vocab_size = static_cast<int32_t>(emb->shape().dim(0));
  }
  EDGEQ_RETURN_IF_ERROR(CheckConfig(c, "metadata"));
  c.shared_classifier = true;
  if (dict.HasMetadata("llama2c.shared_classifier") &&
      dict.GetBool("llama2c.shared_classifier").ok()) {
    // The reader stores a BOOL (GetInt refuses bools since the hostile-inputs issue).
    c.shared_classifier = *dict.GetBool("llama2c.shared_classifier");
  } else if (dict.Contains("output.weight")) {
    const Tensor& out = **dict.Get("output.weight");
    absl::StatusOr<const Tensor*> emb = dict.Get("token_embd.weight");
    c.shared_classifier = emb.ok() && (*emb)->size_bytes() == out.size_bytes() &&
                          (out.raw_data() == (*emb)->raw_data() ||
                           std::memcmp(out.raw_data(), (*emb)->raw_data(), out.size_bytes()) == 0);
  }
  return c;
}

namespace {

absl::Status WriteLlama2cTo(const TensorDict& dict, internal::Sink* sink) {
  EDGEQ_ASSIGN_OR_RETURN(Llama2cConfig c, Llama2cConfigFromMetadata(dict));
  std::string header;
  const int32_t vocab_field = c.shared_classifier ? c.vocab_size : -c.vocab_size;
  for (int32_t v :
       {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, vocab_field, c.seq_len}) {
    internal::PutU32(&header, static_cast<uint32_t>(v));
  }
  // Check everything before writing anything.
  std::vector<const Tensor*> order;
  const std::vector<Slot> layout = FileLayout(c);
  for (const Slot& s : layout) {
    if (s.name.empty()) {
      order.push_back(nullptr);
      continue;
    }
    absl::StatusOr<const Tensor*> t = dict.Get(s.name, DType::kFloat32);
    if (!t.ok()) {
      return absl::Status(t.status().code(),
                          absl::StrCat("llama2.c export: ", t.status().message()));
    }
    if ((*t)->is_quantized() || (*t)->shape() != s.shape) {
      return absl::InvalidArgumentError(
          absl::StrFormat("llama2.c export: tensor '%s' is %s, expected f32%s", s.name,
                          (*t)->DebugString(), s.shape.ToString()));
    }
    order.push_back(*t);
  }
  EDGEQ_RETURN_IF_ERROR(sink->Write(header));
  for (size_t i = 0; i < layout.size(); ++i) {
    if (order[i] == nullptr) {
      EDGEQ_RETURN_IF_ERROR(
          sink->WriteZeros(static_cast<size_t>(layout[i].shape.num_elements()) * 4));
    } else {
      EDGEQ_RETURN_IF_ERROR(sink->Write(order[i]->raw_data(), order[i]->size_bytes()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> WriteLlama2cToString(const TensorDict& dict) {
  std::string out;
  internal::StringSink sink(&out);
  EDGEQ_RETURN_IF_ERROR(WriteLlama2cTo(dict, &sink));
  return out;
}

absl::Status WriteLlama2c(const TensorDict& dict, const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<internal::AtomicFileWriter> writer,
                         internal::AtomicFileWriter::Create(path));
  EDGEQ_RETURN_IF_ERROR(WriteLlama2cTo(dict, writer.get()));
  return writer->Commit();
}

absl::StatusOr<Llama2cTokenizer> ReadLlama2cTokenizerFromBuffer(absl::Span<const uint8_t> data,
                                                                int vocab_size) {
  ByteReader r(data, "llama2.c tokenizer");
  Llama2cTokenizer tok;
  EDGEQ_ASSIGN_OR_RETURN(tok.max_token_length, r.I32("max_token_length"));
  if (tok.max_token_length <= 0) {
    return r.Error(
        absl::StrFormat("max_token_length is %d; expected a positive value", tok.max_token_length));
  }
  // A piece takes at least 8 bytes: bound the reservation by the file size.
  if (vocab_size > 0) {
    if (static_cast<size_t>(vocab_size) > r.remaining() / 8) {
      return r.Error(
          absl::StrFormat("%d pieces cannot fit in %d bytes", vocab_size, r.remaining()));
    }
    tok.pieces.reserve(vocab_size);
    tok.scores.reserve(vocab_size);
  }
  while (vocab_size > 0 ? tok.pieces.size() < static_cast<size_t>(vocab_size) : r.remaining() > 0) {
    const std::string what = absl::StrFormat("piece %d", tok.pieces.size());
    EDGEQ_ASSIGN_OR_RETURN(float score, r.F32(what + " score"));
    EDGEQ_ASSIGN_OR_RETURN(int32_t len, r.I32(what + " length"));
    if (len < 0) return r.Error(absl::StrFormat("%s has a negative length %d", what, len));
    EDGEQ_ASSIGN_OR_RETURN(absl::string_view bytes,
                           r.Bytes(static_cast<uint64_t>(len), what + " bytes"));
    tok.pieces.emplace_back(bytes);
    tok.scores.push_back(score);
  }
  if (r.remaining() != 0) {
    return r.Error(absl::StrFormat("%d bytes left after the %d pieces the model expects",
                                   r.remaining(), vocab_size));
  }
  return tok;
}

absl::StatusOr<Llama2cTokenizer> ReadLlama2cTokenizer(const std::string& path, int vocab_size) {
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<const internal::MappedFile> file,
                         internal::MappedFile::Open(path));
  absl::StatusOr<Llama2cTokenizer> tok = ReadLlama2cTokenizerFromBuffer(file->span(), vocab_size);
  if (!tok.ok()) {
    return absl::Status(tok.status().code(), absl::StrCat(path, ": ", tok.status().message()));
  }
  return tok;
}

}  // namespace checkpoint
}  // namespace edgeq
