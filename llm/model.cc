#include "llm/model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checkpoint/formats.h"
#include "checkpoint/mapped_file.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"
#include "llm/arch/recurrent_state.h"
#include "llm/load_progress.h"
#include "llm/ops.h"
#include "llm/rope_frequencies.h"
#include "quantization/block_layout.h"
#include "quantization/encoding.h"
#include "runtime/custom_op.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;

constexpr int kDefaultMaxContext = 4096;

using arch::Key;

absl::StatusOr<Tensor> ToF32(const Tensor& t) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DType::kFloat32, t.shape()));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> dst, out.MutableValues<float>());
  const uint16_t* src = static_cast<const uint16_t*>(t.raw_data());
  for (size_t i = 0; i < dst.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, src + i, 2);
    dst[i] = blocks::Fp16ToFloat(h);
  }
  return out;
}

// The graphs of llm/arch/common.h for this model's KV cache type.
absl::StatusOr<std::unique_ptr<Graph>> BuildBody(const WeightReader& dict, const ModelConfig& c,
                                                 int64_t ctx, KvCacheType cache_type,
                                                 const Tensor& inv_freq, const Tensor& inv_freq_swa,
                                                 int64_t t, int64_t ffn_chunk_rows, BodyRows rows) {
  return BuildBodyGraph(dict, c, ctx, cache_type, inv_freq, inv_freq_swa, t, ffn_chunk_rows, rows);
}
absl::StatusOr<std::unique_ptr<Graph>> BuildHead(const WeightReader& dict, const ModelConfig& c) {
  return BuildHeadGraph(dict, c);
}

// Drops the pages of `mapping` in the 64 KiB-aligned windows (Linux's default fault_around_bytes)
// that hold [data, data + bytes), clipped to the mapping.
void ReleaseFaultAroundWindow(absl::Span<const uint8_t> mapping, const void* data, size_t bytes) {
  constexpr uintptr_t kWindow = 64 * 1024;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(mapping.data()), hi = lo + mapping.size();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
  if (mapping.empty() || begin < lo || end > hi) return;
  const uintptr_t from = std::max(lo, begin / kWindow * kWindow);
  const uintptr_t to = std::min(hi, (end + kWindow - 1) / kWindow * kWindow);
  checkpoint::ReleaseMappedPages(mapping, reinterpret_cast<const void*>(from), to - from);
}

}  // namespace

absl::StatusOr<Model::Block> Model::LoadBlock(int64_t t, BodyRows rows) {
  Block b;
  b.t = t;
  EDGEQ_RETURN_IF_ERROR(CompileBlock(b, rows));
  EDGEQ_ASSIGN_OR_RETURN(b.tokens, Tensor::Create(DType::kInt32, {t}));
  EDGEQ_ASSIGN_OR_RETURN(b.positions, Tensor::Create(DType::kInt32, {t}));
  return b;
}

absl::Status Model::CompileBlock(Block& b, BodyRows rows) {
  const WeightReader weights(weights_, &used_tensors_);
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                         BuildBody(weights, config_, context_, kv_cache_type_, inv_freq_,
                                   inv_freq_swa_, b.t, ffn_chunk_rows_, rows));
  const auto start = std::chrono::steady_clock::now();
  EDGEQ_ASSIGN_OR_RETURN(edgeq::CompiledGraph model, session_->Load(*graph, arena_));
  prepare_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  model.EnableProfiling(profiling_);
  b.GraphFor(rows) = std::make_unique<edgeq::CompiledGraph>(std::move(model));
  // The compiled graph keeps what it runs (kernels, constants): a prefill block's nodes
  // (thousands at the 1B shape's ubatch, in row chunks) would only feed DebugString.
  if (b.t == 1) b.graph = std::move(graph);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Model>> Model::Load(const std::string& path,
                                                   const ModelOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint c, checkpoint::OpenCheckpoint(path));
  ModelOptions with_mapping = options;
  with_mapping.mapped_file = c.file_bytes;
  absl::StatusOr<std::unique_ptr<Model>> m = Load(c.dict, with_mapping);
  if (!m.ok())
    return absl::Status(m.status().code(), absl::StrCat(path, ": ", m.status().message()));
  return m;
}

absl::StatusOr<std::unique_ptr<Model>> Model::Load(const TensorDict& dict,
                                                   const ModelOptions& options) {
  EDGEQ_RETURN_IF_ERROR(RegisterLlmOps());
  EDGEQ_ASSIGN_OR_RETURN(ModelConfig c, ModelConfig::FromMetadata(dict));
  EDGEQ_RETURN_IF_ERROR(CheckOptions(options, c));
  std::unique_ptr<Model> m(new Model());
  c.gelu_fp16_table = options.gelu_fp16_table;
  m->config_ = c;
  m->kv_cache_type_ = options.kv_cache_type;
  m->ffn_chunk_rows_ = options.ffn_chunk_rows;
  m->context_ = options.context_length > 0 ? options.context_length
                                           : std::min(c.context_length, kDefaultMaxContext);
  m->weight_bytes_ = dict.TotalBytes();
  EDGEQ_RETURN_IF_ERROR(m->AdoptWeights(dict));
  EDGEQ_ASSIGN_OR_RETURN(m->inv_freq_, RopeFrequencies(c, m->weights_, m->context_, false));
  EDGEQ_ASSIGN_OR_RETURN(m->inv_freq_swa_, RopeFrequencies(c, m->weights_, m->context_, true));
  EDGEQ_RETURN_IF_ERROR(m->CheckEveryTensorUsed(dict));
  auto progress = std::make_shared<LoadProgress>(options.on_progress, m->weight_bytes_);
  progress->Report(0.0f);
  EDGEQ_RETURN_IF_ERROR(progress->status());
  m->CreateSession(options, progress);
  EDGEQ_RETURN_IF_ERROR(m->LoadGraphs(options.prefill_block));
  EDGEQ_RETURN_IF_ERROR(progress->status());
  EDGEQ_RETURN_IF_ERROR(m->AllocateKvCache());
  progress->Finish();
  EDGEQ_RETURN_IF_ERROR(progress->status());
  return m;
}

absl::Status Model::CheckOptions(const ModelOptions& options, const ModelConfig& c) {
  if (options.prefill_block < 0 || options.prefill_block > kMaxUbatchSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("ModelOptions.prefill_block (ubatch) must be in [0, %d], got %d",
                        kMaxUbatchSize, options.prefill_block));
  }
  if (options.ffn_chunk_rows < kFfnChunkAuto) {
    return absl::InvalidArgumentError(
        absl::StrFormat("ModelOptions.ffn_chunk_rows must be -1 (automatic) or >= 0, got %d",
                        options.ffn_chunk_rows));
  }
  if (options.context_length < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "ModelOptions.context_length must be >= 0, got %d", options.context_length));
  }
  if (options.num_threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("ModelOptions.num_threads must be >= 1, got %d", options.num_threads));
  }
  for (int l = 0; l < c.CachedLayers(); ++l) {
    if (options.kv_cache_type == KvCacheType::kQ8_0 && c.LayerHeadDim(l) % 32 != 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "the q8_0 KV cache needs a head dimension that is a multiple of 32; this model's is %d "
          "(use the f32 cache)",
          c.LayerHeadDim(l)));
    }
  }
  return absl::OkStatus();
}

absl::Status Model::AdoptWeights(const TensorDict& dict) {
  // f16 matrices run as "f16"-encoded weights (the same bytes, viewed as uint8 blocks of one
  // value: qmatmul's f16 kernels, the gather's f16 decoder); other f16 tensors (norms, factors)
  // become f32.
  for (const std::string& name : dict.Keys()) {
    const Tensor& t = **dict.Get(name);
    if (!t.is_quantized() && t.dtype() == DType::kFloat16 && t.rank() == 2) {
      auto keep = std::make_shared<Tensor>(t);
      EDGEQ_ASSIGN_OR_RETURN(
          Tensor f16, Tensor::View(DType::kUInt8, Shape({t.shape().dim(0), 2 * t.shape().dim(1)}),
                                   t.raw_data(), t.size_bytes(), keep));
      f16.SetQuantization("f16", t.shape());
      EDGEQ_RETURN_IF_ERROR(weights_.Set(name, std::move(f16)));
    } else if (!t.is_quantized() && t.dtype() == DType::kFloat16) {
      EDGEQ_ASSIGN_OR_RETURN(Tensor f32, ToF32(t));
      EDGEQ_RETURN_IF_ERROR(weights_.Set(name, std::move(f32)));
    } else {
      EDGEQ_RETURN_IF_ERROR(weights_.Set(name, t));
    }
  }
  for (const std::string& key : dict.MetadataKeys()) {
    weights_.SetMetadata(key, **dict.GetMetadata(key));
  }
  return absl::OkStatus();
}

absl::Status Model::CheckEveryTensorUsed(const TensorDict& dict) {
  // The graphs built once without loading them: every tensor's presence and shape is checked
  // before anything is allocated or repacked for them.
  {
    const WeightReader reader(weights_, &used_tensors_);
    EDGEQ_RETURN_IF_ERROR(BuildBody(reader, config_, context_, kv_cache_type_, inv_freq_,
                                    inv_freq_swa_, 1, 0, BodyRows::kAll)
                              .status());
    EDGEQ_RETURN_IF_ERROR(BuildHead(reader, config_).status());
  }
  // Every tensor of the file must be used: one the graphs would ignore (a layer beyond the
  // declared ones, an unknown or misspelt name) means the file is not what its metadata says.
  for (const char* name :
       {"rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight"}) {
    if (dict.Contains(name)) used_tensors_.insert(name);
  }
  for (const std::string& name : dict.Keys()) {
    if (used_tensors_.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor %s is not used by the %s model (%s = %d); expected only the tensors of its "
          "layers, embedding, output and RoPE factors",
          QuoteForError(name), config_.architecture, Key(config_.architecture, "block_count"),
          config_.block_count));
    }
  }
  return absl::OkStatus();
}

void Model::CreateSession(const ModelOptions& options, std::shared_ptr<LoadProgress> progress) {
  SessionOptions so{.num_threads = options.num_threads, .isa_cap = options.isa_cap};
  so.on_constant_copied = [progress](const void*, size_t bytes) { progress->Add(bytes); };
  if (!options.mapped_file.empty()) {
    const absl::Span<const uint8_t> mapping = options.mapped_file;
    so.on_constant_copied = [this, mapping, progress](const void* data, size_t bytes) {
      ReleaseCopiedWeight(mapping, data, bytes);
      progress->Add(bytes);
    };
    auto release = std::make_shared<checkpoint::ProgressivePageRelease>(mapping);
    so.on_constant_bytes_read = [release](const void* data, size_t bytes_read) {
      release->BytesRead(data, bytes_read);
    };
    // A gathered embedding row's page fault maps up to 64 KiB of the file around it (the
    // kernel's fault-around), which would stay resident: 130 MiB for 2048 rows of the 1B shape's
    // tied q6_k table, whose classifier reads its own repacked copy. The window is dropped as
    // soon as the row is decoded (it comes back from the page cache if read again).
    so.on_constant_row_read = [mapping](const void* data, size_t bytes) {
      ReleaseFaultAroundWindow(mapping, data, bytes);
    };
  }
  session_ = std::make_unique<InferenceSession>(std::move(so));
  // One activation arena for every body graph (decode and the prefill blocks): only one runs at a
  // time. The head keeps its own, since PrefillAll reads a block's hidden rows while it runs.
  arena_ = std::make_shared<ActivationArena>();
}

absl::Status Model::LoadGraphs(int prefill_block) {
  EDGEQ_ASSIGN_OR_RETURN(decode_, LoadBlock(1));
  // The prefill blocks are built on first use (BlockOfSize).
  block_sizes_ = PrefillBlockSizes(static_cast<int>(std::min<int64_t>(prefill_block, context_)));
  blocks_.resize(block_sizes_.size());
  EDGEQ_ASSIGN_OR_RETURN(head_graph_, BuildHead(WeightReader(weights_, &used_tensors_), config_));
  const auto head_start = std::chrono::steady_clock::now();
  head_arena_ = std::make_shared<ActivationArena>();
  EDGEQ_ASSIGN_OR_RETURN(edgeq::CompiledGraph head, session_->Load(*head_graph_, head_arena_));
  prepare_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - head_start).count();
  head_ = std::make_unique<edgeq::CompiledGraph>(std::move(head));
  EDGEQ_ASSIGN_OR_RETURN(head_input_,
                         Tensor::Create(DType::kFloat32, {1, config_.embedding_length}));
  return absl::OkStatus();
}

absl::Status Model::AllocateKvCache() {
  const int64_t ctx = context_, kvh = config_.head_count_kv;
  // Attention layers with a cache of their own: not recurrent (lfm2, qwen35), not shared (gemma4).
  for (int l = 0; l < config_.block_count; ++l) {
    if (!config_.HasKvCache(l)) continue;  // recurrent (states below) or shared-KV
    const int64_t hs = config_.LayerHeadDim(l);
    const TensorType type = arch::KvCacheTensorType(kv_cache_type_, kvh, ctx, hs);
    Tensor kc, vc;
    EDGEQ_ASSIGN_OR_RETURN(kc, Tensor::Create(type.dtype, type.shape));
    EDGEQ_ASSIGN_OR_RETURN(vc, Tensor::Create(type.dtype, type.shape));
    k_cache_.push_back(std::move(kc));
    v_cache_.push_back(std::move(vc));
    cache_names_.push_back({l, io::KCache(l), io::VCache(l)});
  }
  // The recurrent states (zero) and the real-row count input (llm/arch/recurrent_state.h).
  EDGEQ_ASSIGN_OR_RETURN(states_, NewRecurrentStates(config_));
  for (size_t s = 0; s < states_.size(); ++s) {
    state_names_.push_back(io::State(static_cast<int>(s)));
    new_state_names_.push_back(io::NewState(static_cast<int>(s)));
  }
  EDGEQ_ASSIGN_OR_RETURN(real_rows_, Tensor::Create(DType::kInt32, {1}));
  EDGEQ_ASSIGN_OR_RETURN(output_row_, Tensor::Create(DType::kInt32, {1}));
  return absl::OkStatus();
}

uint64_t Model::recurrent_state_bytes() const {
  uint64_t bytes = 0;
  for (const Tensor& t : states_) bytes += t.size_bytes();
  return bytes;
}

absl::Status Model::StartRun(int pos) {
  if (states_.empty()) return absl::OkStatus();
  if (pos == 0) {
    ZeroRecurrentStates(&states_);
    processed_ = 0;
    return absl::OkStatus();
  }
  if (pos != processed_) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s has recurrent layers: a run must start at position 0 or %d (the end of what was "
        "processed), got %d",
        config_.architecture, processed_, pos));
  }
  return absl::OkStatus();
}

absl::Status Model::StoreStates(const TensorMap& out) {
  for (size_t s = 0; s < states_.size(); ++s) {
    EDGEQ_ASSIGN_OR_RETURN(Tensor next, out.Get(new_state_names_[s]));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> src, next.Values<float>());
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> dst, states_[s].MutableValues<float>());
    if (src.size() != dst.size()) {
      return absl::InternalError(
          absl::StrFormat("recurrent state %d: %d values, expected %d", s, src.size(), dst.size()));
    }
    std::memcpy(dst.data(), src.data(), dst.size() * sizeof(float));
  }
  return absl::OkStatus();
}

uint64_t Model::kv_cache_bytes() const {
  uint64_t bytes = 0;
  for (const Tensor& t : k_cache_) bytes += t.size_bytes();
  for (const Tensor& t : v_cache_) bytes += t.size_bytes();
  return bytes;
}

absl::StatusOr<Tensor> Model::RunBlock(Block& b, absl::Span<const int> tokens, int pos,
                                       BodyRows rows) {
  edgeq::CompiledGraph* model = b.GraphFor(rows).get();
  if (model == nullptr) {
    return absl::InternalError(absl::StrFormat("the %d-token block's graph is not built", b.t));
  }
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> tv, b.tokens.MutableValues<int32_t>());
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> pv, b.positions.MutableValues<int32_t>());
  const int64_t n = static_cast<int64_t>(tokens.size());
  for (int64_t i = 0; i < b.t; ++i) {
    tv[i] = i < n ? tokens[i] : 0;
    pv[i] = pos + static_cast<int>(i);
  }
  // NamedTensor holds pointers to these members, which stay in place during the call.
  std::vector<NamedTensor>& in = inputs_;
  in.clear();
  in.emplace_back(io::kTokens, b.tokens);
  in.emplace_back(io::kPositions, b.positions);
  const int kv_layers = static_cast<int>(k_cache_.size());
  for (int l = 0; l < kv_layers; ++l) {
    in.emplace_back(cache_names_[l].k, k_cache_[l]);
    in.emplace_back(cache_names_[l].v, v_cache_[l]);
  }
  if (!states_.empty()) {
    for (size_t s = 0; s < states_.size(); ++s) in.emplace_back(state_names_[s], states_[s]);
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> rows, real_rows_.MutableValues<int32_t>());
    rows[0] = static_cast<int32_t>(n);
    in.emplace_back(io::kRealRows, real_rows_);
  }
  if (model == b.row_model.get()) {
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> row, output_row_.MutableValues<int32_t>());
    row[0] = static_cast<int32_t>(n - 1);
    in.emplace_back(io::kOutputRow, output_row_);
  }
  // The attention layers write the block's K/V rows into the caches themselves (store_kv).
  EDGEQ_ASSIGN_OR_RETURN(TensorMap out, model->Execute(in));
  EDGEQ_RETURN_IF_ERROR(StoreStates(out));
  processed_ = pos + static_cast<int>(n);
  return out.Get(io::kHidden);
}

absl::StatusOr<absl::Span<const float>> Model::RunHead(const float* row) {
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> dst, head_input_.MutableValues<float>());
  std::memcpy(dst.data(), row, dst.size() * sizeof(float));
  const NamedTensor in[1] = {NamedTensor(io::kHidden, head_input_)};
  EDGEQ_ASSIGN_OR_RETURN(TensorMap out, head_->Execute(in));
  EDGEQ_ASSIGN_OR_RETURN(Tensor logits, out.Get(io::kLogits));
  return logits.Values<float>();
}

absl::Status Model::Check(absl::Span<const int> tokens, int pos) const {
  if (tokens.empty()) return absl::InvalidArgumentError("Prefill: no tokens given");
  for (int token : tokens) {
    if (token < 0 || token >= config_.vocab_size) {
      return absl::OutOfRangeError(
          absl::StrFormat("token %d is outside the vocabulary [0, %d)", token, config_.vocab_size));
    }
  }
  const int64_t end = static_cast<int64_t>(pos) + static_cast<int64_t>(tokens.size());
  if (pos < 0 || end > context_) {
    return absl::OutOfRangeError(absl::StrFormat("positions %d..%d are outside the context [0, %d)",
                                                 pos, end - 1, context_));
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Span<const float>> Model::Forward(int token, int pos) {
  const int one[1] = {token};
  return Prefill(absl::MakeConstSpan(one), pos);
}

absl::StatusOr<Model::Block*> Model::BlockOfSize(int size, BodyRows rows) {
  if (size <= 1) return &decode_;
  const size_t k = std::find(block_sizes_.begin(), block_sizes_.end(), size) - block_sizes_.begin();
  if (k == block_sizes_.size()) {
    return absl::InternalError(absl::StrFormat("no prefill block of %d tokens", size));
  }
  if (blocks_[k] == nullptr) {
    EDGEQ_ASSIGN_OR_RETURN(Block b, LoadBlock(size, rows));
    blocks_[k] = std::make_unique<Block>(std::move(b));
  } else if (blocks_[k]->GraphFor(rows) == nullptr) {
    EDGEQ_RETURN_IF_ERROR(CompileBlock(*blocks_[k], rows));
  }
  return blocks_[k].get();
}

absl::StatusOr<absl::Span<const float>> Model::Prefill(absl::Span<const int> tokens, int pos) {
  EDGEQ_RETURN_IF_ERROR(Check(tokens, pos));
  EDGEQ_RETURN_IF_ERROR(StartRun(pos));
  // Every block runs its output-row graph (the decode step: its one row): the last layer's
  // feed-forward only for the block's last token, whose hidden state is the whole output [1, dim].
  // Only the last block's is read; the earlier blocks need theirs for nothing (their K/V rows and
  // states are written before the last layer's selection), as llama.cpp's ubatches.
  Tensor hidden;
  size_t i = 0;
  for (int size : PlanPrefill(static_cast<int64_t>(tokens.size()), block_sizes_)) {
    EDGEQ_ASSIGN_OR_RETURN(Block * b, BlockOfSize(size, BodyRows::kOutputRow));
    const size_t n = std::min(tokens.size() - i, static_cast<size_t>(b->t));
    EDGEQ_ASSIGN_OR_RETURN(hidden, RunBlock(*b, tokens.subspan(i, n), pos + static_cast<int>(i),
                                            BodyRows::kOutputRow));
    i += n;
  }
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> h, hidden.Values<float>());
  if (static_cast<int64_t>(h.size()) != config_.embedding_length) {
    return absl::InternalError(
        absl::StrFormat("prefill gave %d hidden values, expected one row of %d", h.size(),
                        config_.embedding_length));
  }
  return RunHead(h.data());
}

absl::Status Model::PrefillAll(
    absl::Span<const int> tokens, int pos,
    const std::function<absl::Status(int, absl::Span<const float>)>& on_logits, int first) {
  EDGEQ_RETURN_IF_ERROR(Check(tokens, pos));
  EDGEQ_RETURN_IF_ERROR(StartRun(pos));
  size_t i = 0;
  const int64_t dim = config_.embedding_length;
  for (int size : PlanPrefill(static_cast<int64_t>(tokens.size()), block_sizes_)) {
    EDGEQ_ASSIGN_OR_RETURN(Block * b, BlockOfSize(size));
    const size_t n = std::min(tokens.size() - i, static_cast<size_t>(b->t));
    EDGEQ_ASSIGN_OR_RETURN(Tensor hidden,
                           RunBlock(*b, tokens.subspan(i, n), pos + static_cast<int>(i)));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> h, hidden.Values<float>());
    for (int64_t r = 0; r < static_cast<int64_t>(n); ++r) {
      if (static_cast<int64_t>(i) + r < first) continue;
      EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, RunHead(h.data() + r * dim));
      EDGEQ_RETURN_IF_ERROR(on_logits(static_cast<int>(i + r), logits));
    }
    i += n;
  }
  return absl::OkStatus();
}

std::vector<std::string> Model::MatmulKernels() const {
  std::vector<std::string> names;
  for (const edgeq::CompiledGraph* model : {decode_.model.get(), head_.get()}) {
    for (absl::string_view line : absl::StrSplit(model->DebugString(), '\n')) {
      const size_t arrow = line.find(" -> ");
      if (arrow == absl::string_view::npos || !absl::StrContains(line.substr(0, arrow), "matmul")) {
        continue;
      }
      std::string name(absl::StripAsciiWhitespace(line.substr(arrow + 4)));
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

std::vector<edgeq::CompiledGraph*> Model::Graphs() const {
  std::vector<edgeq::CompiledGraph*> graphs = {decode_.model.get()};
  for (const std::unique_ptr<Block>& b : blocks_) {
    if (b == nullptr) continue;
    if (b->model != nullptr) graphs.push_back(b->model.get());
    if (b->row_model != nullptr) graphs.push_back(b->row_model.get());
  }
  graphs.push_back(head_.get());
  return graphs;
}

uint64_t Model::activation_bytes() const { return arena_->bytes() + head_arena_->bytes(); }

Model::MemoryUse Model::Memory() const {
  MemoryUse m;
  std::set<const void*> seen;
  for (const edgeq::CompiledGraph* g : Graphs()) {
    for (const edgeq::CompiledGraph::ConstantUse& u : g->ConstantUses()) {
      if (!u.copied && seen.insert(u.data).second) m.weights_in_place += u.bytes;
    }
  }
  m.weights_repacked = session_->prepared_weight_bytes();
  m.kv_cache = kv_cache_bytes();
  m.recurrent_states = recurrent_state_bytes();
  m.activations = arena_->bytes();
  m.head = head_arena_->bytes();
  m.inputs = head_input_.size_bytes() + real_rows_.size_bytes() + output_row_.size_bytes() +
             decode_.tokens.size_bytes() + decode_.positions.size_bytes();
  for (const std::unique_ptr<Block>& b : blocks_) {
    if (b != nullptr) m.inputs += b->tokens.size_bytes() + b->positions.size_bytes();
  }
  return m;
}

std::vector<int> Model::loaded_block_sizes() const {
  std::vector<int> sizes;
  for (size_t k = 0; k < blocks_.size(); ++k) {
    if (blocks_[k] != nullptr) sizes.push_back(block_sizes_[k]);
  }
  return sizes;
}

void Model::ReleaseCopiedWeight(absl::Span<const uint8_t> mapping, const void* data, size_t bytes) {
  // A weight also read at run time (a tied embedding: the classifier's copy, and the gather reads
  // rows of the original) is released too: the gather faults back only the pages of the rows it
  // reads.
  if (!released_.insert(data).second) return;  // another graph's kernel shares the copy
  released_weight_bytes_ += checkpoint::ReleaseMappedPages(mapping, data, bytes);
}

void Model::EnableProfiling(bool on) {
  profiling_ = on;
  for (edgeq::CompiledGraph* g : Graphs()) g->EnableProfiling(on);
}

void Model::ResetProfile() {
  for (edgeq::CompiledGraph* g : Graphs()) g->ResetProfile();
}

std::vector<Model::OpTime> Model::Profile() const {
  std::vector<OpTime> rows;
  for (const edgeq::CompiledGraph* g : Graphs()) {
    for (const edgeq::CompiledGraph::KernelTime& k : g->Profile()) {
      if (k.calls == 0) continue;
      const size_t eq = k.label.find(" = ");
      std::string op = eq == std::string::npos ? k.label : k.label.substr(eq + 3);
      if (absl::StartsWith(op, "copy(")) op = "copy";
      auto it = std::find_if(rows.begin(), rows.end(),
                             [&](const OpTime& r) { return r.op == op && r.kernel == k.kernel; });
      if (it == rows.end()) {
        rows.push_back({op, k.kernel, 0, 0.0});
        it = rows.end() - 1;
      }
      it->calls += k.calls;
      it->seconds += k.seconds;
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const OpTime& a, const OpTime& b) { return a.seconds > b.seconds; });
  return rows;
}

std::string Model::DebugString() const {
  std::string s = absl::StrCat(decode_.graph->ToString(), decode_.model->DebugString());
  for (const std::unique_ptr<Block>& b : blocks_) {  // their graphs are freed
    if (b == nullptr) continue;
    if (b->model != nullptr) absl::StrAppend(&s, b->model->DebugString());
    if (b->row_model != nullptr) absl::StrAppend(&s, b->row_model->DebugString());
  }
  absl::StrAppend(&s, head_graph_->ToString(), head_->DebugString());
  return s;
}

}  // namespace llm
}  // namespace edgeq
