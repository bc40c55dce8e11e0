#include "llm/state_file.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/bounded_input.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "xxhash.h"

namespace edgeq {
namespace llm {
namespace {

constexpr char kMagic[8] = {'E', 'D', 'G', 'E', 'Q', 'S', 'T', '1'};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8;
// A state file is at most this big (a 1M-position KV cache of a large model is well below).
constexpr size_t kMaxStateBytes = size_t{1} << 40;
constexpr int kMaxRank = 8;

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void Bytes(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  void Str(absl::string_view s) {
    Put<uint32_t>(static_cast<uint32_t>(s.size()));
    out_.append(s.data(), s.size());
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

// Reads the payload; every read past its end fails with the field named.
class Reader {
 public:
  Reader(absl::string_view in, absl::string_view what) : in_(in), what_(what) {}
  template <typename T>
  absl::StatusOr<T> Get(absl::string_view field) {
    T v;
    EDGEQ_ASSIGN_OR_RETURN(absl::string_view b, Take(sizeof(T), field));
    std::memcpy(&v, b.data(), sizeof(T));
    return v;
  }
  absl::StatusOr<absl::string_view> Take(uint64_t n, absl::string_view field) {
    if (n > in_.size() - pos_) {
      return absl::DataLossError(absl::StrFormat("%s is truncated: %s needs %d bytes, %d left",
                                                 what_, field, n, in_.size() - pos_));
    }
    absl::string_view b = in_.substr(pos_, n);
    pos_ += n;
    return b;
  }
  absl::StatusOr<absl::string_view> Str(absl::string_view field) {
    EDGEQ_ASSIGN_OR_RETURN(uint32_t n, Get<uint32_t>(field));
    return Take(n, field);
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  absl::string_view in_;
  absl::string_view what_;
  size_t pos_ = 0;
};

// One parsed sequence tensor: its dims as saved (the position axis holds n tokens).
struct SavedTensor {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> dims;
  int position_axis = -1;
  absl::string_view bytes;
};

struct ParsedState {
  std::vector<int> tokens;
  std::vector<float> pending;
  std::string sampler;
  std::vector<SavedTensor> tensors;
};

// Bytes of the slices a tensor is saved as: `outer` runs of `run` bytes (the positions before
// n on the position axis), `stride` bytes apart in the model's tensor.
struct Layout {
  int64_t outer = 1, run = 0, stride = 0;
};
Layout LayoutOf(const Tensor& t, int axis, int64_t n) {
  const std::vector<int64_t>& d = t.shape().dims();
  const int64_t elem = t.num_elements() > 0 ? t.size_bytes() / t.num_elements() : 0;
  if (axis < 0) return {1, static_cast<int64_t>(t.size_bytes()), 0};
  Layout l;
  int64_t inner = elem;
  for (int i = 0; i < static_cast<int>(d.size()); ++i) {
    if (i < axis) l.outer *= d[i];
    if (i > axis) inner *= d[i];
  }
  l.run = n * inner;
  l.stride = d[axis] * inner;
  return l;
}

absl::StatusOr<ParsedState> ParsePayload(absl::string_view payload, Model& model,
                                         absl::string_view what) {
  Reader r(payload, what);
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view desc, r.Str("the model description"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t fingerprint, r.Get<uint64_t>("the weights fingerprint"));
  const std::string mine = ModelDescription(model);
  if (desc != mine) {
    return absl::InvalidArgumentError(absl::StrFormat("%s is for another model: %s; expected %s",
                                                      what, QuoteForError(desc, 120), mine));
  }
  if (fingerprint != WeightsFingerprint(model)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s is for another model: same shape (%s) but the weights differ", what, mine));
  }
  ParsedState s;
  EDGEQ_ASSIGN_OR_RETURN(uint32_t n, r.Get<uint32_t>("the token count"));
  if (static_cast<int64_t>(n) > model.context_length()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s holds %d tokens; this model's context holds %d", what, n, model.context_length()));
  }
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view tb, r.Take(uint64_t{n} * 4, "the tokens"));
  s.tokens.resize(n);
  if (n > 0) std::memcpy(s.tokens.data(), tb.data(), tb.size());
  for (int t : s.tokens) {
    if (t < 0 || t >= model.config().vocab_size) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: token %d is outside the vocabulary [0, %d)", what, t, model.config().vocab_size));
    }
  }
  EDGEQ_ASSIGN_OR_RETURN(uint32_t nl, r.Get<uint32_t>("the logits count"));
  if (nl != 0 && static_cast<int>(nl) != model.config().vocab_size) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s holds %d logits; expected 0 or the vocabulary's %d", what, nl,
                        model.config().vocab_size));
  }
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view lb, r.Take(uint64_t{nl} * 4, "the logits"));
  s.pending.resize(nl);
  if (nl > 0) std::memcpy(s.pending.data(), lb.data(), lb.size());
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view sampler, r.Str("the sampler state"));
  s.sampler = std::string(sampler);
  EDGEQ_ASSIGN_OR_RETURN(uint32_t nt, r.Get<uint32_t>("the tensor count"));
  for (uint32_t i = 0; i < nt; ++i) {
    SavedTensor t;
    EDGEQ_ASSIGN_OR_RETURN(absl::string_view name, r.Str("a tensor name"));
    t.name = std::string(name);
    EDGEQ_ASSIGN_OR_RETURN(uint32_t dtype, r.Get<uint32_t>("a tensor type"));
    if (dtype >= static_cast<uint32_t>(kNumDTypes)) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: tensor %s has type %d; expected < %d",
                                                        what, QuoteForError(t.name), dtype,
                                                        kNumDTypes));
    }
    t.dtype = static_cast<DType>(dtype);
    EDGEQ_ASSIGN_OR_RETURN(uint32_t rank, r.Get<uint32_t>("a tensor rank"));
    if (rank > kMaxRank) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: tensor %s has rank %d; expected <= %d",
                                                        what, QuoteForError(t.name), rank,
                                                        kMaxRank));
    }
    for (uint32_t k = 0; k < rank; ++k) {
      EDGEQ_ASSIGN_OR_RETURN(int64_t d, r.Get<int64_t>("a tensor dimension"));
      t.dims.push_back(d);
    }
    EDGEQ_ASSIGN_OR_RETURN(t.position_axis, r.Get<int32_t>("a tensor's position axis"));
    EDGEQ_ASSIGN_OR_RETURN(uint64_t bytes, r.Get<uint64_t>("a tensor's byte count"));
    EDGEQ_ASSIGN_OR_RETURN(t.bytes, r.Take(bytes, absl::StrCat("tensor ", t.name, "'s bytes")));
    s.tensors.push_back(std::move(t));
  }
  if (!r.done()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s has bytes after its last tensor", what));
  }
  return s;
}

// Checks that the saved tensors are exactly the model's sequence tensors, in its order, with
// its types and dims (the position axis: n tokens, within the model's context).
absl::Status CheckTensors(const ParsedState& s, const std::vector<Model::SequenceTensor>& mine,
                          absl::string_view what) {
  if (s.tensors.size() != mine.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s holds %d sequence tensors; this model has %d", what, s.tensors.size(), mine.size()));
  }
  const int64_t n = static_cast<int64_t>(s.tokens.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    const SavedTensor& t = s.tensors[i];
    const Model::SequenceTensor& m = mine[i];
    std::vector<int64_t> want = m.tensor->shape().dims();
    if (m.position_axis >= 0) want[m.position_axis] = n;
    if (t.name != m.name || t.dtype != m.tensor->dtype() || t.dims != want ||
        t.position_axis != m.position_axis) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: sequence tensor %d is %s %s[%s] (position axis %d); expected %s %s[%s] (%d)", what,
          i, QuoteForError(t.name), DTypeName(t.dtype), absl::StrJoin(t.dims, ","), t.position_axis,
          m.name, DTypeName(m.tensor->dtype()), absl::StrJoin(want, ","), m.position_axis));
    }
    const Layout l = LayoutOf(*m.tensor, m.position_axis, n);
    if (static_cast<uint64_t>(l.outer * l.run) != t.bytes.size()) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: tensor %s holds %d bytes; expected %d",
                                                        what, m.name, t.bytes.size(),
                                                        l.outer * l.run));
    }
  }
  return absl::OkStatus();
}

// Checks the header and the checksum; returns the payload.
absl::StatusOr<absl::string_view> Payload(absl::string_view bytes, absl::string_view what) {
  if (bytes.size() < kHeaderBytes) {
    return absl::DataLossError(
        absl::StrFormat("%s is truncated: %d bytes; a state starts with a %d-byte header", what,
                        bytes.size(), kHeaderBytes));
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s is not an edgeq session state: it starts with %s; expected \"EDGEQST1\"", what,
        QuoteForError(bytes.substr(0, 8))));
  }
  uint32_t version;
  uint64_t size, sum;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&size, bytes.data() + 16, 8);
  std::memcpy(&sum, bytes.data() + 24, 8);
  if (version != kStateFileVersion) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s has format version %d; expected %d", what, version, kStateFileVersion));
  }
  if (size != bytes.size() - kHeaderBytes) {
    return absl::DataLossError(
        absl::StrFormat("%s is truncated or padded: its header says %d payload bytes, it has %d",
                        what, size, bytes.size() - kHeaderBytes));
  }
  absl::string_view payload = bytes.substr(kHeaderBytes);
  if (XXH64(payload.data(), payload.size(), 0) != sum) {
    return absl::DataLossError(
        absl::StrFormat("%s is corrupted: its XXH64 checksum does not match", what));
  }
  return payload;
}

}  // namespace

std::string ModelDescription(const Model& model) {
  const ModelConfig& c = model.config();
  return absl::StrFormat("%s dim %d layers %d heads %d/%d head_dim %d ffn %d vocab %d kv %s",
                         c.architecture, c.embedding_length, c.block_count, c.head_count,
                         c.head_count_kv, c.head_dim, c.feed_forward_length, c.vocab_size,
                         KvCacheTypeName(model.kv_cache_type()));
}

uint64_t WeightsFingerprint(const Model& model) {
  XXH64_state_t* h = XXH64_createState();
  XXH64_reset(h, 0);
  const checkpoint::TensorDict& w = model.weights();
  std::vector<std::string> keys = w.Keys();
  std::sort(keys.begin(), keys.end());
  for (const std::string& name : keys) {
    const Tensor& t = **w.Get(name);
    const std::string head = absl::StrCat(name, "|", DTypeName(t.dtype()), "|", t.encoding(), "|",
                                          t.shape().ToString(), "|", t.size_bytes(), "|");
    XXH64_update(h, head.data(), head.size());
    const size_t edge = std::min<size_t>(4096, t.size_bytes());
    const uint8_t* p = static_cast<const uint8_t*>(t.raw_data());
    XXH64_update(h, p, edge);
    XXH64_update(h, p + t.size_bytes() - edge, edge);
  }
  const uint64_t sum = XXH64_digest(h);
  XXH64_freeState(h);
  return sum;
}

absl::StatusOr<std::string> SaveSessionState(Model& model, const Session& session,
                                             const TokenSampler* sampler) {
  Writer w;
  w.Str(ModelDescription(model));
  w.Put<uint64_t>(WeightsFingerprint(model));
  const std::vector<int>& tokens = session.tokens();
  w.Put<uint32_t>(static_cast<uint32_t>(tokens.size()));
  for (int t : tokens) w.Put<int32_t>(t);
  const std::vector<float>& pending = session.pending_logits();
  w.Put<uint32_t>(static_cast<uint32_t>(pending.size()));
  w.Bytes(pending.data(), pending.size() * sizeof(float));
  w.Str(sampler != nullptr ? sampler->SaveState() : std::string());
  const std::vector<Model::SequenceTensor> list = model.SequenceTensors();
  w.Put<uint32_t>(static_cast<uint32_t>(list.size()));
  const int64_t n = static_cast<int64_t>(tokens.size());
  for (const Model::SequenceTensor& st : list) {
    const Tensor& t = *st.tensor;
    w.Str(st.name);
    w.Put<uint32_t>(static_cast<uint32_t>(t.dtype()));
    w.Put<uint32_t>(static_cast<uint32_t>(t.rank()));
    for (int i = 0; i < t.rank(); ++i) {
      w.Put<int64_t>(i == st.position_axis ? n : t.shape().dim(i));
    }
    w.Put<int32_t>(st.position_axis);
    const Layout l = LayoutOf(t, st.position_axis, n);
    w.Put<uint64_t>(static_cast<uint64_t>(l.outer * l.run));
    const char* base = static_cast<const char*>(t.raw_data());
    for (int64_t o = 0; o < l.outer; ++o) w.Bytes(base + o * l.stride, l.run);
  }
  std::string out(kHeaderBytes, '\0');
  std::memcpy(&out[0], kMagic, sizeof(kMagic));
  const uint32_t version = kStateFileVersion;
  const uint64_t size = w.out().size(), sum = XXH64(w.out().data(), w.out().size(), 0);
  std::memcpy(&out[8], &version, 4);
  std::memcpy(&out[16], &size, 8);
  std::memcpy(&out[24], &sum, 8);
  out += w.out();
  return out;
}

absl::StatusOr<std::vector<int>> SessionStateTokens(absl::string_view bytes, Model& model,
                                                    absl::string_view what) {
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view payload, Payload(bytes, what));
  EDGEQ_ASSIGN_OR_RETURN(ParsedState s, ParsePayload(payload, model, what));
  EDGEQ_RETURN_IF_ERROR(CheckTensors(s, model.SequenceTensors(), what));
  return s.tokens;
}

absl::Status LoadSessionState(absl::string_view bytes, Model& model, Session& session,
                              TokenSampler* sampler, absl::string_view what) {
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view payload, Payload(bytes, what));
  EDGEQ_ASSIGN_OR_RETURN(ParsedState s, ParsePayload(payload, model, what));
  const std::vector<Model::SequenceTensor> list = model.SequenceTensors();
  EDGEQ_RETURN_IF_ERROR(CheckTensors(s, list, what));
  if (sampler != nullptr) {
    // Checked and applied before anything else changes: it is the last step that can fail.
    const absl::Status st = sampler->LoadState(s.sampler);
    if (!st.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", st.message()));
  }
  const int64_t n = static_cast<int64_t>(s.tokens.size());
  for (size_t i = 0; i < list.size(); ++i) {
    Tensor& t = *list[i].tensor;
    const Layout l = LayoutOf(t, list[i].position_axis, n);
    char* base = static_cast<char*>(t.raw_mutable_data());
    for (int64_t o = 0; o < l.outer; ++o) {
      std::memcpy(base + o * l.stride, s.tensors[i].bytes.data() + o * l.run, l.run);
    }
  }
  // A model with recurrent layers continues only from the end of what its states hold.
  model.set_processed_positions(static_cast<int>(n));
  session.Restore(std::move(s.tokens), std::move(s.pending));
  return absl::OkStatus();
}

absl::Status SaveSessionStateFile(const std::string& path, Model& model, const Session& session,
                                  const TokenSampler* sampler) {
  EDGEQ_ASSIGN_OR_RETURN(std::string bytes, SaveSessionState(model, session, sampler));
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return absl::UnavailableError(absl::StrFormat("cannot write session state %s: %s",
                                                  QuoteForError(tmp), std::strerror(errno)));
  }
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool flushed = std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    std::remove(tmp.c_str());
    return absl::UnavailableError(
        absl::StrFormat("cannot write session state %s: %s", QuoteForError(path), err));
  }
  return absl::OkStatus();
}

absl::Status LoadSessionStateFile(const std::string& path, Model& model, Session& session,
                                  TokenSampler* sampler) {
  EDGEQ_ASSIGN_OR_RETURN(std::string bytes, ReadFileBounded(path, kMaxStateBytes, "session state"));
  return LoadSessionState(bytes, model, session, sampler, path);
}

absl::StatusOr<int> LoadPromptCache(const std::string& path, Model& model, Session& session,
                                    absl::Span<const int> prompt) {
  if (access(path.c_str(), F_OK) != 0) return 0;
  EDGEQ_ASSIGN_OR_RETURN(std::string bytes, ReadFileBounded(path, kMaxStateBytes, "prompt cache"));
  EDGEQ_ASSIGN_OR_RETURN(std::vector<int> tokens, SessionStateTokens(bytes, model, path));
  if (tokens.size() > prompt.size() || !std::equal(tokens.begin(), tokens.end(), prompt.begin())) {
    return 0;
  }
  EDGEQ_RETURN_IF_ERROR(LoadSessionState(bytes, model, session, nullptr, path));
  return static_cast<int>(tokens.size());
}

}  // namespace llm
}  // namespace edgeq
