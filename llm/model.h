// Llama-family decoders from GGUF (or any checkpoint edgeq reads) built as edgeq graphs.
//
//   EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<edgeq::llm::Model> model,
//                          edgeq::llm::Model::Load("SmolLM2-135M-Q8_0.gguf", {.num_threads = 2}));
//   EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, model->Prefill(prompt_ids, 0));
//   EDGEQ_ASSIGN_OR_RETURN(logits, model->Forward(next_token, prompt_ids.size()));
//
// The configuration comes from the GGUF metadata (ModelConfig::FromMetadata): general.architecture
// and its `<arch>.*` keys, as llama.cpp reads them. Supported architectures:
// SupportedArchitectures(): "llama" (Llama 1/2/3/3.1/3.2, TinyLlama, SmolLM/SmolLM2, llama2.c
// models), "qwen2" (Qwen2/2.5: q/k/v biases, NEOX RoPE), "qwen3" (per-head q/k RMSNorm), "gemma3"
// (embedding scaled by sqrt(dim), post-norms, GeGLU with tanh GELU, q/k norm, sliding-window
// layers with their own RoPE base between global ones, optional final logit soft-capping) and
// "phi3" (fused attn_qkv and gate/up, rope_factors_long/short, rope.scaling.attn_factor); the
// graph ops they need are in llm/ops.h. Covered: grouped query attention (head_count_kv), tied
// output (no output.weight: the classifier is token_embd), any rope.freq_base, RoPE frequency
// factors (rope_freqs.weight, or rope.scaling.type = llama3 from its keys), linear RoPE scaling,
// any head dimension (attention.key_length), and any mix of block types per tensor (f32 and the
// 14 block types of quantization/block_layout.h: f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k,
// q3_k, q4_k, q5_k, q6_k, iq4_nl, iq4_xs). A GGUF with a block type edgeq cannot read fails at
// Load with the tensor and the type named (the GGUF reader's error).
//
// Graphs: one "body" graph per block size (1 token: decode, built at Load; the prefill blocks of
// llm/prefill_plan.h, up to `prefill_block` tokens, with matrix-matrix kernels, each built on first
// use) from the embedding through the last block, and one "head" graph (output
// norm and classifier) run only where logits are asked for: Prefill computes the classifier for
// its last token only, and its block graphs (BodyRows::kOutputRow, built beside the all-rows
// graphs PrefillAll and embeddings run) keep only that token's row after the last layer's
// attention, as llama.cpp's, so that the last layer's feed-forward runs for one row. The KV cache
// is this class's memory ([kv heads, context, head dim] per layer and K/V), given to the graphs as
// inputs (zero copy); each layer's attention writes the step's new K/V rows into it in place. The
// body graphs share one activation arena (edgeq::ActivationArena: the largest graph's plan, not the
// sum), the head has its own. Weights are shared by the graphs (quantized ones are prepared once);
// the model keeps them (and a checkpoint's mapping) alive.
#ifndef EDGEQ_LLM_MODEL_H_
#define EDGEQ_LLM_MODEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "llm/arch/model_config.h"
#include "llm/load_progress.h"
#include "llm/prefill_plan.h"
#include "runtime/session.h"

namespace edgeq {
namespace llm {

struct ModelOptions {
  int num_threads = 1;
  kernels::Isa isa_cap = kernels::Isa::kBest;
  // The ubatch: the most prompt tokens per prefill Execute, in [0, kMaxUbatchSize] (0 or 1: one at
  // a time). The default is the one prefill rule's (llm/prefill_plan.h); front ends only override
  // it when the user asks. Activations grow with the blocks a prompt uses (activation_bytes()).
  int prefill_block = kDefaultUbatchSize;
  // The feed-forward of a prefill block runs in chunks of this many rows (llm/arch/common.h; -1,
  // the default: FfnChunkRows of the layer's width and the block, 64 rows for the 1B shape at the
  // ubatch 512, one piece for narrower FFNs; 0: the whole block at once): its [rows, ffn]-wide
  // intermediates take a chunk's memory, not the block's; same results. The llama-family
  // attention half's norm, projections and residual add take the same chunk (-1:
  // AttentionChunkRows, 64 rows for the 1B shape at the ubatch 512; 0: whole).
  int ffn_chunk_rows = static_cast<int>(kFfnChunkAuto);
  // Positions the KV cache holds; 0 = the model's context_length capped at 4096 (the cache takes
  // 2 x layers x context x kv dim floats; a step reads only the positions before it). Larger than
  // the model's context_length is allowed (RoPE extrapolates).
  int context_length = 0;
  KvCacheType kv_cache_type = kDefaultKvCacheType;
  // GELU as ggml's CPU backend computes it, through an fp16 table (llama.cpp parity), or exact
  // (false: parity with a ggml built without GGML_GELU_FP16; tests/parity/README.md, gemma4).
  bool gelu_fp16_table = true;
  // The memory-mapped checkpoint file the dict's tensors view (checkpoint::OpenedCheckpoint's
  // file_bytes; Load(path) sets it itself). Weights inside it that a kernel has copied
  // (repacked/packed) have their pages dropped from this process's resident memory right after
  // the copy (madvise MADV_DONTNEED; the pages stay valid and come back from the file on access:
  // a tied embedding's gather brings back only the pages of the rows it reads), so that resident
  // memory stays near the file size instead of file + copies. Empty: nothing is dropped.
  absl::Span<const uint8_t> mapped_file = {};
  // Load progress (llm/load_progress.h): called with the fraction done, 0 first and 1 last;
  // return false to cancel the load (Cancelled). Not called after Load returns.
  std::function<bool(float fraction)> on_progress = nullptr;
};

class Model {
 public:
  // Opens any checkpoint format edgeq reads (GGUF, .max, llama2.c .bin, safetensors) and loads it.
  static absl::StatusOr<std::unique_ptr<Model>> Load(const std::string& path,
                                                     const ModelOptions& options = {});
  // Builds and loads the graphs from a dict with GGUF tensor names and metadata (what the
  // checkpoint readers give). Errors: ModelConfig::FromMetadata's; InvalidArgument naming a
  // missing tensor or one of the wrong shape or dtype, or the first tensor the graphs do not use
  // (checked before anything is allocated for the graphs); the graph builder's and Load's.
  static absl::StatusOr<std::unique_ptr<Model>> Load(const checkpoint::TensorDict& dict,
                                                     const ModelOptions& options = {});

  // Logits [vocab] for `token` at position `pos`, after the tokens at positions 0..pos-1 were
  // given. The span stays valid until the next call. OutOfRange naming the value if the token is
  // not in [0, vocab) or pos not in [0, context_length()).
  absl::StatusOr<absl::Span<const float>> Forward(int token, int pos);
  // Tokens at positions pos..pos+size-1 (in the blocks PlanPrefill chooses: full ubatch blocks,
  // then smaller or padded ones, or decode steps for a rest of a few tokens); the logits of the
  // last one only (each block's last layer runs its feed-forward for its last token only). Same
  // errors as Forward; InvalidArgument if `tokens` is empty.
  absl::StatusOr<absl::Span<const float>> Prefill(absl::Span<const int> tokens, int pos);
  // As Prefill, and calls `on_logits(i, logits)` for every token i >= `first` of `tokens` (the
  // span is valid during the call): the classifier runs for each of them (perplexity).
  absl::Status PrefillAll(
      absl::Span<const int> tokens, int pos,
      const std::function<absl::Status(int, absl::Span<const float>)>& on_logits, int first = 0);

  const ModelConfig& config() const { return config_; }
  // The KV cache's positions (ModelOptions::context_length or its default).
  int context_length() const { return context_; }
  KvCacheType kv_cache_type() const { return kv_cache_type_; }
  // Bytes the KV cache takes (all attention layers, K and V, context_length() positions).
  uint64_t kv_cache_bytes() const;
  // The recurrent states (llm/arch/recurrent_state.h; config().recurrent_states, empty for a
  // model without recurrent layers) after the positions processed so far, and their bytes.
  // A model with recurrent layers runs a sequence forward only: a run at position 0 zeroes the
  // states; a run at another position than processed_positions() is FailedPrecondition.
  const std::vector<Tensor>& recurrent_states() const { return states_; }
  std::vector<Tensor>& mutable_recurrent_states() { return states_; }
  uint64_t recurrent_state_bytes() const;
  // The end of the positions the last runs processed (0 after Load).
  int processed_positions() const { return processed_; }
  void set_processed_positions(int n) { processed_ = n; }
  // The most prompt tokens one prefill Execute takes (ModelOptions::prefill_block capped at the
  // context; 1: token by token).
  int ubatch_size() const { return block_sizes_.empty() ? 1 : block_sizes_.back(); }
  // Bytes of activation memory: the body graphs' shared arena and scratch (sized to the largest
  // graph built so far: decode or a prefill block used) and the head's.
  uint64_t activation_bytes() const;
  // The memory this model holds, by kind, from the allocators' own accounting (no resident-set
  // reading): bytes mapped or allocated, whether resident or not. Arenas only grow, so the
  // activation and head figures are their peaks.
  struct MemoryUse {
    // Weights read where they are (the mapped file, or the dict's memory): every constant some
    // kernel of a loaded graph reads in place (norms, the embedding table the gather reads rows
    // of, matrices of kernels that do not repack). Of a mapped file only the pages read are
    // resident (a gathered row's pages are dropped again).
    uint64_t weights_in_place = 0;
    // The qmatmul kernels' repacked copies (InferenceSession::prepared_weight_bytes).
    uint64_t weights_repacked = 0;
    uint64_t kv_cache = 0;          // kv_cache_bytes()
    uint64_t recurrent_states = 0;  // recurrent_state_bytes()
    // The body graphs' shared arena: intermediates and outputs after reuse, and kernel scratch
    // (page multiples; the largest graph built so far).
    uint64_t activations = 0;
    // The head graph's arena and scratch (the output norm's row and the logits [vocab]).
    uint64_t head = 0;
    // The model's own input tensors (token ids, positions, the head's input row).
    uint64_t inputs = 0;
  };
  MemoryUse Memory() const;
  // The sizes of the prefill block graphs built so far, ascending.
  std::vector<int> loaded_block_sizes() const;
  // Seconds spent preparing the kernels of the graphs built so far (InferenceSession::Load:
  // repacking quantized weights, packing f32 ones; a graph reusing another's prepared weights
  // takes little): right after Load, the repacking part of the load time.
  double prepare_seconds() const { return prepare_seconds_; }
  // The weights (as loaded; f16 matrices converted to f32).
  const checkpoint::TensorDict& weights() const { return weights_; }
  // Bytes of the weights as stored.
  uint64_t weight_bytes() const { return weight_bytes_; }
  // The graphs' text dumps and the kernel chosen per node.
  std::string DebugString() const;
  // The distinct kernels the decode step's matrix products use, e.g. {"q4_0_avx512vnni_gemv",
  // "matmul_f32"}, in order of first use.
  std::vector<std::string> MatmulKernels() const;

  // The hidden states after the output norm (llama.cpp's t_embd: what its embeddings pool) of
  // `tokens` at positions pos..: on_row(i, row [embedding_length]) for each, in order (the span
  // is valid during the call). Runs and caches the tokens as Prefill does (llm/embed.cc).
  absl::Status PrefillEmbeddings(
      absl::Span<const int> tokens, int pos,
      const std::function<absl::Status(int, absl::Span<const float>)>& on_row);

  // The tensors that hold one sequence's state (llm/state_file.h saves and restores them by
  // name): the KV cache ("k_cache.L", "v_cache.L", [kv heads, context, head dim] f32 or q8_0
  // rows, attention layers only), the recurrent states ("state.S", whole tensors). position_axis is
  // the axis indexed by position (only positions before n_past are state), or -1 if the whole
  // tensor is state.
  struct SequenceTensor {
    std::string name;
    Tensor* tensor = nullptr;
    int position_axis = -1;
  };
  std::vector<SequenceTensor> SequenceTensors();

  // Bytes of mapped weights whose pages were dropped after their kernels copied them
  // (ModelOptions::mapped_file).
  uint64_t released_weight_bytes() const { return released_weight_bytes_; }

  // Profiling (edgeq bench --profile): while enabled, every graph this model runs times its
  // kernels. Profile() sums them per (op, kernel) over all graphs, largest time first.
  struct OpTime {
    std::string op;      // "qmatmul", "attention", ...
    std::string kernel;  // "q4_0_avx512vnni_gemm", ...
    int64_t calls = 0;
    double seconds = 0;
  };
  void EnableProfiling(bool on);
  void ResetProfile();
  std::vector<OpTime> Profile() const;

 private:
  // The body graphs for blocks of t tokens, with their token and position inputs.
  struct Block {
    int64_t t = 0;
    std::unique_ptr<Graph> graph;  // the decode step's; null for prefill blocks once compiled
    // BodyRows::kAll (PrefillAll, embeddings, decode) and BodyRows::kOutputRow (Prefill), each
    // compiled on first use; the decode step (t = 1) has only `model`.
    std::unique_ptr<edgeq::CompiledGraph> model, row_model;
    Tensor tokens, positions;
    // The graph slot `rows` runs on: row_model for BodyRows::kOutputRow on a block of more than
    // one row, else model (the decode step's one row is its output row).
    std::unique_ptr<edgeq::CompiledGraph>& GraphFor(BodyRows rows) {
      return rows == BodyRows::kOutputRow && t > 1 ? row_model : model;
    }
  };

  Model() = default;
  // Load's steps, in order: the options against the config; the weights (f16 re-tagged); the
  // graphs built once to check every tensor's shape and that every tensor is used; the session
  // (releasing a mapped file's copied pages); the decode and head graphs; the KV cache.
  static absl::Status CheckOptions(const ModelOptions& options, const ModelConfig& c);
  absl::Status AdoptWeights(const checkpoint::TensorDict& dict);
  absl::Status CheckEveryTensorUsed(const checkpoint::TensorDict& dict);
  void CreateSession(const ModelOptions& options, std::shared_ptr<LoadProgress> progress);
  absl::Status LoadGraphs(int prefill_block);
  absl::Status AllocateKvCache();
  // A block of t tokens with the graph of `rows` compiled (BlockOfSize adds the other on use).
  absl::StatusOr<Block> LoadBlock(int64_t t, BodyRows rows = BodyRows::kAll);
  absl::Status CompileBlock(Block& b, BodyRows rows);
  // ModelOptions::mapped_file: drops the pages of a copied weight inside `mapping`.
  void ReleaseCopiedWeight(absl::Span<const uint8_t> mapping, const void* data, size_t bytes);
  // The session models of the graphs (decode, the prefill blocks built, head).
  std::vector<edgeq::CompiledGraph*> Graphs() const;
  // The prefill block of `size` tokens (one of block_sizes_) with its graph of `rows`, each built
  // on first use; the decode step for size 1 (its one row is the output row).
  absl::StatusOr<Block*> BlockOfSize(int size, BodyRows rows = BodyRows::kAll);
  // Runs b on n = tokens.size() <= b.t tokens at pos..pos+n-1 (rows past n are padding: token 0,
  // attended by nothing real; their K/V rows land in cache positions not yet processed, which a
  // later run overwrites before reading); the graph stores the K/V rows in the caches. Returns the
  // hidden states (before the output norm): [b.t, dim] of which the first n rows are real, or for
  // BodyRows::kOutputRow (b's row_model, built by BlockOfSize; any block of more than one row)
  // [1, dim], the row of the block's last token n - 1.
  absl::StatusOr<Tensor> RunBlock(Block& b, absl::Span<const int> tokens, int pos,
                                  BodyRows rows = BodyRows::kAll);
  // Output norm and classifier on one hidden row.
  absl::StatusOr<absl::Span<const float>> RunHead(const float* row);
  absl::Status Check(absl::Span<const int> tokens, int pos) const;
  // The start of a run at `pos`: zeroes the recurrent states at 0; FailedPrecondition for a
  // rewind on a model with recurrent layers.
  absl::Status StartRun(int pos);
  // Copies the block's new recurrent states (outputs) into states_.
  absl::Status StoreStates(const TensorMap& out);

  ModelConfig config_;
  int context_ = 0;
  KvCacheType kv_cache_type_ = KvCacheType::kF32;
  int64_t ffn_chunk_rows_ = kFfnChunkAuto;  // ModelOptions::ffn_chunk_rows
  checkpoint::TensorDict weights_;
  uint64_t weight_bytes_ = 0;
  uint64_t released_weight_bytes_ = 0;
  std::set<const void*> released_;      // weights whose pages were dropped
  std::set<std::string> used_tensors_;  // the weights the graphs read (all of them, after Load)
  Tensor inv_freq_;                     // [rope dims / 2]: the RoPE angle per position of each pair
  Tensor inv_freq_swa_;                 // the same for the sliding-window layers
  std::unique_ptr<InferenceSession> session_;
  std::shared_ptr<ActivationArena> arena_;  // the body graphs' activations (one runs at a time)
  std::shared_ptr<ActivationArena> head_arena_;  // the head's
  Block decode_;
  std::vector<int> block_sizes_;                // PrefillBlockSizes(ubatch), ascending
  std::vector<std::unique_ptr<Block>> blocks_;  // per size; null until first used
  bool profiling_ = false;
  double prepare_seconds_ = 0;
  std::unique_ptr<Graph> head_graph_;
  std::unique_ptr<edgeq::CompiledGraph> head_;
  Tensor head_input_;                      // [1, dim]
  std::vector<Tensor> k_cache_, v_cache_;  // per attention layer (recurrent ones have none)
  // Per attention layer: the body graphs' names of its K and V cache inputs.
  struct CacheNames {
    int layer;  // the layer owning this cache
    std::string k, v;
  };
  std::vector<CacheNames> cache_names_;
  std::vector<Tensor> states_;  // the recurrent states (ModelConfig::recurrent_states)
  std::vector<std::string> state_names_, new_state_names_;  // their inputs' and outputs' names
  Tensor real_rows_;                                        // i32 [1]
  Tensor output_row_;                                       // i32 [1]: io::kOutputRow
  int processed_ = 0;                                       // the end of the positions processed
  std::vector<NamedTensor> inputs_;                         // reused by every run
};

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_MODEL_H_
