// Fused causal attention over a key/value cache: the kernel behind ops::Attention.
//
// A block of t query rows at consecutive positions pos..pos+t-1 attends to the first `pos` rows
// of the cache and to the block's own rows up to itself (optionally only to the last `window`
// positions: sliding-window attention). Grouped-query: query head qh uses key/value head
// qh / (heads / kv_heads). Only the valid rows are read (a decode step at position p touches p + 1
// key and value rows per head, whatever the cache's capacity), scores live in a scratch buffer,
// and the softmax is computed exactly (max subtracted, then normalized).
//
// One function per ISA (generic, AVX2 + FMA, AVX-512, NEON), chosen at run time like the qmatmul
// kernels; each is tested against a double-precision reference.
#ifndef EDGEQ_RUNTIME_KERNELS_ATTENTION_ATTENTION_H_
#define EDGEQ_RUNTIME_KERNELS_ATTENTION_ATTENTION_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "runtime/kernels/isa.h"

namespace edgeq {
namespace kernels {

struct AttentionArgs {
  const float* q = nullptr;        // [t, heads, head_dim]
  const float* k_cache = nullptr;  // [kv_heads, ctx, head_dim]; rows 0..pos-1 are valid
  const float* v_cache = nullptr;  // [kv_heads, ctx, head_dim]
  // A q8_0 cache instead (both set, k_cache/v_cache unused): [kv_heads, ctx, head_dim / 32]
  // blocks of GGML's block_q8_0 (fp16 scale d, 32 int8; value = d * q), head_dim a multiple of
  // 32. Each visible row is decoded once per call and used by all the query heads of its group.
  const uint8_t* k_cache_q8_0 = nullptr;
  const uint8_t* v_cache_q8_0 = nullptr;
  // An f16 cache instead (both set, k_cache/v_cache unused): [kv_heads, ctx, head_dim] IEEE halves
  // (GGML's fp16, llama.cpp's default cache type), decoded as the q8_0 rows are.
  const uint16_t* k_cache_f16 = nullptr;
  const uint16_t* v_cache_f16 = nullptr;
  const float* k_new = nullptr;  // [t, kv_heads, head_dim]: the block's keys (pos..pos+t-1)
  const float* v_new = nullptr;  // [t, kv_heads, head_dim]
  float* out = nullptr;          // [t, heads, head_dim]
  int64_t t = 0, heads = 0, kv_heads = 0, head_dim = 0, ctx = 0;
  int64_t pos = 0;     // position of query row 0; 0 <= pos <= ctx
  int64_t window = 0;  // > 0: query at position p sees positions > p - window only
  float scale = 1.0f;  // scores are scale * q.k
};

// Query rows per call: a tile of up to this many consecutive rows shares every key and value row
// it loads (prefill blocks); decode steps are tiles of one.
inline constexpr int64_t kAttentionTileRows = 4;

// Attends query rows row0..row0+rows-1 (rows <= kAttentionTileRows) of all query heads that share
// kv head `kv_head`. `scores` holds at least AttentionScratchFloats(args) floats, owned by the
// caller (one buffer per concurrent call).
using AttentionGroupFn = void (*)(const AttentionArgs& args, int64_t kv_head, int64_t row0,
                                  int64_t rows, float* scores);

// n floats to IEEE halves (round to nearest even: blocks::GgmlFloatToFp16 for every value but NaN,
// which stays a NaN) and n halves to floats (exact), with the ISA's conversions: an f16 cache's
// rows as the attention op stores them and reads a block's own rows back.
using F16EncodeFn = void (*)(const float* x, int64_t n, uint16_t* out);
using F16DecodeFn = void (*)(const uint16_t* h, int64_t n, float* out);

struct AttentionKernel {
  const char* name;  // "attention_avx512", ...
  Isa isa;
  AttentionGroupFn group;
  F16EncodeFn encode_f16;
  F16DecodeFn decode_f16;
};

// The best kernel this CPU supports at or below `cap` (generic at worst; on aarch64 always NEON's,
// which every AArch64 CPU has).
const AttentionKernel& SelectAttentionKernel(Isa cap = Isa::kBest);

// Every kernel compiled into this binary (supported by this CPU or not), generic first.
absl::Span<const AttentionKernel* const> AllAttentionKernels();

// Cache rows a tile of query rows decodes at a time from a q8_0 or f16 cache (each decoded row
// then serves every row and head of the tile).
inline constexpr int64_t kAttentionDecodeRows = 64;

// Scratch floats one call needs when its query rows see at most `keys` keys: the scores of a
// tile's rows for every head of the group, and with an encoded (q8_0 or f16) cache
// kAttentionDecodeRows decoded rows and the tile's softmax sums.
inline size_t AttentionScratchFloats(int64_t heads, int64_t kv_heads, int64_t head_dim,
                                     int64_t keys, bool encoded_cache) {
  const int64_t rep = kv_heads > 0 ? heads / kv_heads : 0;
  return static_cast<size_t>(
      kAttentionTileRows * rep * keys +
      (encoded_cache ? kAttentionDecodeRows * head_dim + kAttentionTileRows * rep : 0));
}
inline size_t AttentionScratchFloats(const AttentionArgs& a) {
  return AttentionScratchFloats(a.heads, a.kv_heads, a.head_dim, a.pos + a.t,
                                a.k_cache_q8_0 != nullptr || a.k_cache_f16 != nullptr);
}

// Bytes of one head_dim-long cache row in q8_0 (34 per 32 values).
inline int64_t AttentionQ8_0RowBytes(int64_t head_dim) { return head_dim / 32 * 34; }

namespace internal {
// The ISA files' entries (null where the file is not compiled for this architecture).
extern const AttentionKernel kAttentionGeneric;
extern const AttentionKernel* const kAttentionAvx2;
extern const AttentionKernel* const kAttentionAvx512;
extern const AttentionKernel* const kAttentionNeon;
// F16C's fp32-to-fp16 rows (attention_avx2.cc; x86-64 only): the AVX2 and AVX-512 encode_f16.
void EncodeF16Avx2(const float* x, int64_t n, uint16_t* out);
}  // namespace internal

}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ATTENTION_ATTENTION_H_
