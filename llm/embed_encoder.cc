#include "llm/embed_encoder.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/formats.h"
#include "core/status_macros.h"
#include "llm/ops.h"

namespace edgeq {
namespace llm {
namespace {

// Graph rows of a block holding `rows` real ones: a multiple of 32 (few distinct graphs).
int64_t BlockRows(int64_t rows) { return (rows + 31) / 32 * 32; }

// Pooled rows [first, first + n) of hidden [t, dim] into `out` (unnormalized).
std::vector<float> Pool(const float* h, int64_t first, int64_t n, int64_t dim, Pooling pooling) {
  if (pooling == Pooling::kNone) {
    return std::vector<float>(h + first * dim, h + (first + n) * dim);
  }
  if (pooling == Pooling::kCls || pooling == Pooling::kLast) {
    const float* row = h + (pooling == Pooling::kCls ? first : first + n - 1) * dim;
    return std::vector<float>(row, row + dim);
  }
  std::vector<double> sum(dim, 0.0);
  for (int64_t r = first; r < first + n; ++r) {
    for (int64_t k = 0; k < dim; ++k) sum[k] += h[r * dim + k];
  }
  std::vector<float> v(dim);
  for (int64_t k = 0; k < dim; ++k) v[k] = static_cast<float>(sum[k] / n);
  return v;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Encoder>> Encoder::Load(const std::string& path,
                                                       const EncoderOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint c, checkpoint::OpenCheckpoint(path));
  std::unique_ptr<Encoder> e(new Encoder());
  e->file_ = c.file;
  e->dict_ = std::move(c.dict);
  absl::Status s = e->Init(options);
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  return e;
}

absl::StatusOr<std::unique_ptr<Encoder>> Encoder::Load(checkpoint::TensorDict dict,
                                                       const EncoderOptions& options) {
  std::unique_ptr<Encoder> e(new Encoder());
  e->dict_ = std::move(dict);
  EDGEQ_RETURN_IF_ERROR(e->Init(options));
  return e;
}

absl::Status Encoder::Init(const EncoderOptions& options) {
  EDGEQ_RETURN_IF_ERROR(RegisterLlmOps());
  if (options.num_threads < 1 || options.num_threads > kMaxSessionThreads ||
      options.max_block_rows < 1 || options.max_block_rows > (1 << 16)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "encoder options: %d threads, %d block rows; expected 1..%d threads and 1..65536 rows",
        options.num_threads, options.max_block_rows, kMaxSessionThreads));
  }
  max_rows_ = options.max_block_rows;
  EDGEQ_ASSIGN_OR_RETURN(config_, arch::EncoderConfigFromMetadata(dict_));
  {  // Built once unloaded: every tensor's presence and shape, and none left unread.
    const WeightReader reader(dict_, &used_);
    EDGEQ_RETURN_IF_ERROR(arch::BuildEncoderGraph(reader, config_, 1).status());
    EDGEQ_RETURN_IF_ERROR(arch::BuildDenseGraph(reader, config_).status());
  }
  for (const std::string& name : dict_.Keys()) {
    if (used_.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor %s is not used by the %s encoder; expected only its embeddings, norms and "
          "layers",
          name, config_.architecture));
    }
  }
  if (dict_.HasMetadata("tokenizer.ggml.model")) {
    EDGEQ_ASSIGN_OR_RETURN(tokenizer::Tokenizer tok, tokenizer::Tokenizer::FromGguf(dict_));
    tokenizer_ = std::make_unique<tokenizer::Tokenizer>(std::move(tok));
  }
  SessionOptions so;
  so.num_threads = options.num_threads;
  session_ = std::make_unique<InferenceSession>(std::move(so));
  const WeightReader reader(dict_, &used_);
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<Graph> dense, arch::BuildDenseGraph(reader, config_));
  if (dense != nullptr) {
    EDGEQ_ASSIGN_OR_RETURN(edgeq::CompiledGraph m, session_->Load(*dense));
    dense_ = std::make_unique<edgeq::CompiledGraph>(std::move(m));
  }
  return absl::OkStatus();
}

absl::Status Encoder::Dense(absl::Span<float> v) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor x, Tensor::Create(DType::kFloat32, {1, config_.dim}));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> xv, x.MutableValues<float>());
  std::copy(v.begin(), v.end(), xv.begin());
  const NamedTensor in[] = {{io::kHidden, x}};
  EDGEQ_ASSIGN_OR_RETURN(TensorMap out, dense_->Execute(in));
  EDGEQ_ASSIGN_OR_RETURN(Tensor y, out.Get(io::kHidden));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> yv, y.Values<float>());
  std::copy(yv.begin(), yv.end(), v.begin());
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<int>>> Encoder::Tokenize(
    absl::Span<const std::string> texts) const {
  if (tokenizer_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "the %s model has no vocabulary (tokenizer.ggml.model); expected one to tokenize texts",
        config_.architecture));
  }
  std::vector<std::vector<int>> out;
  for (size_t i = 0; i < texts.size(); ++i) {
    EDGEQ_ASSIGN_OR_RETURN(
        std::vector<int32_t> ids,
        tokenizer_->Encode(texts[i], {.add_special = true, .parse_special = true}));
    if (ids.empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("text %d encodes to no tokens; expected at least one", i));
    }
    out.emplace_back(ids.begin(), ids.end());
  }
  return out;
}

Pooling Encoder::default_pooling() const {
  switch (config_.pooling_type) {
    case 0:
      return Pooling::kNone;
    case 2:
      return Pooling::kCls;
    case 3:
      return Pooling::kLast;
    default:
      return Pooling::kMean;
  }
}

absl::StatusOr<edgeq::CompiledGraph*> Encoder::GraphOfRows(int64_t t) {
  auto it = graphs_.find(t);
  if (it != graphs_.end()) return it->second.get();
  const WeightReader reader(dict_, &used_);
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, arch::BuildEncoderGraph(reader, config_, t));
  EDGEQ_ASSIGN_OR_RETURN(edgeq::CompiledGraph m, session_->Load(*g));
  auto model = std::make_unique<edgeq::CompiledGraph>(std::move(m));
  edgeq::CompiledGraph* p = model.get();
  graphs_.emplace(t, std::move(model));
  return p;
}

absl::Status Encoder::RunBlock(absl::Span<const std::vector<int>> seqs, Pooling pooling,
                               int normalize, std::vector<std::vector<float>>* out) {
  int64_t rows = 0;
  for (const std::vector<int>& s : seqs) rows += static_cast<int64_t>(s.size());
  const int64_t t = BlockRows(rows), dim = config_.dim;
  EDGEQ_ASSIGN_OR_RETURN(Tensor tokens, Tensor::Create(DType::kInt32, {t}));
  EDGEQ_ASSIGN_OR_RETURN(Tensor positions, Tensor::Create(DType::kInt32, {t}));
  EDGEQ_ASSIGN_OR_RETURN(Tensor mask, Tensor::Full({t, t}, -1e30f));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> tok, tokens.MutableValues<int32_t>());
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> pos, positions.MutableValues<int32_t>());
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> m, mask.MutableValues<float>());
  // Each sequence's rows see each other; the padding rows (token 0 at position 0) see the
  // padding rows.
  auto open = [&](int64_t first, int64_t n) {
    for (int64_t i = first; i < first + n; ++i) {
      std::fill(m.begin() + i * t + first, m.begin() + i * t + first + n, 0.0f);
    }
  };
  int64_t r = 0;
  for (const std::vector<int>& s : seqs) {
    for (size_t i = 0; i < s.size(); ++i, ++r) {
      tok[r] = s[i];
      pos[r] = static_cast<int32_t>(i);
    }
    open(r - static_cast<int64_t>(s.size()), static_cast<int64_t>(s.size()));
  }
  for (int64_t i = r; i < t; ++i) tok[i] = 0, pos[i] = 0;
  if (r < t) open(r, t - r);
  EDGEQ_ASSIGN_OR_RETURN(edgeq::CompiledGraph * g, GraphOfRows(t));
  std::vector<NamedTensor> in = {
      {io::kTokens, tokens}, {io::kPositions, positions}, {arch::kAttentionMask, mask}};
  Tensor mask_swa;
  if (arch::EncoderInfo(config_.arch).sliding_window_mask) {
    // The same sequence and positions at most window / 2 apart (llama.cpp's symmetric window).
    EDGEQ_ASSIGN_OR_RETURN(mask_swa, Tensor::Full({t, t}, -1e30f));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> ms, mask_swa.MutableValues<float>());
    const int64_t half = config_.sliding_window > 0 ? config_.sliding_window / 2 : t;
    for (int64_t i = 0; i < t * t; ++i) {
      const int64_t d = pos[i / t] - pos[i % t];
      if (m[i] == 0.0f && d >= -half && d <= half) ms[i] = 0.0f;
    }
    in.emplace_back(arch::kAttentionMaskSwa, mask_swa);
  }
  EDGEQ_ASSIGN_OR_RETURN(TensorMap result, g->Execute(in));
  EDGEQ_ASSIGN_OR_RETURN(Tensor hidden, result.Get(io::kHidden));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> h, hidden.Values<float>());
  int64_t first = 0;
  for (const std::vector<int>& s : seqs) {
    const int64_t n = static_cast<int64_t>(s.size());
    std::vector<float> v = Pool(h.data(), first, n, dim, pooling);
    for (size_t k = 0; k < v.size() && dense_ != nullptr; k += dim) {
      EDGEQ_RETURN_IF_ERROR(Dense(absl::MakeSpan(v).subspan(k, dim)));
    }
    for (size_t k = 0; k < v.size(); k += dim) {
      EDGEQ_RETURN_IF_ERROR(NormalizeEmbedding(absl::MakeSpan(v).subspan(k, dim), normalize));
    }
    out->push_back(std::move(v));
    first += n;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<float>>> Encoder::EmbedBatch(
    absl::Span<const std::vector<int>> sequences, Pooling pooling, int normalize) {
  EDGEQ_RETURN_IF_ERROR(NormalizeEmbedding({}, normalize));
  for (size_t i = 0; i < sequences.size(); ++i) {
    const std::vector<int>& s = sequences[i];
    if (s.empty() || static_cast<int64_t>(s.size()) > config_.context) {
      return absl::InvalidArgumentError(
          absl::StrFormat("sequence %d has %d tokens; expected 1 to context_length %d", i, s.size(),
                          config_.context));
    }
    for (int id : s) {
      if (id < 0 || id >= config_.vocab) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "sequence %d: token %d; expected an id in [0, %d)", i, id, config_.vocab));
      }
    }
  }
  std::vector<std::vector<float>> out;
  out.reserve(sequences.size());
  size_t first = 0;
  while (first < sequences.size()) {
    size_t last = first + 1;
    int64_t rows = static_cast<int64_t>(sequences[first].size());
    while (last < sequences.size() &&
           rows + static_cast<int64_t>(sequences[last].size()) <= max_rows_) {
      rows += static_cast<int64_t>(sequences[last++].size());
    }
    EDGEQ_RETURN_IF_ERROR(
        RunBlock(sequences.subspan(first, last - first), pooling, normalize, &out));
    first = last;
  }
  return out;
}

}  // namespace llm
}  // namespace edgeq
