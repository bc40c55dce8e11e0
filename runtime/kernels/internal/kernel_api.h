// Internal contract between the dispatcher (qmatmul.cc) and the per-ISA microkernel files.
// Nothing here is part of the public API.
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_KERNEL_API_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_KERNEL_API_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quantization/block_layout.h"
#include "runtime/kernels/isa.h"

namespace edgeq {
namespace kernels {
namespace internal {

// The block formats are the table of quantization/block_layout.h (blocks::kBlockFormats).
using Encoding = blocks::Format;
enum class Shape : int { kGemv, kGemm };  // m == 1, m > 1

// "q4_0", ... (the encoding registry's names).
inline const char* EncodingName(Encoding e) { return blocks::GetBlockFormat(e).name; }

// Values per block (1 for bf16).
inline int64_t EncodingBlockElems(Encoding e) { return blocks::GetBlockFormat(e).values_per_block; }

// Arguments of one microkernel call; the kernel computes y[i * y_stride + j] for all i < m and
// j0 <= j < j1.
struct MatmulParams {
  const uint8_t* w;     // (possibly repacked) weights
  size_t w_row_bytes;   // bytes between weight rows
  int64_t k;            // reduction length
  int64_t m;            // activation rows
  const uint8_t* xq;    // activation rows as the kernel's quantizer wrote them (f32 for bf16)
  size_t xq_row_bytes;  // bytes between activation rows
  float* y;
  int64_t y_stride;
};

using MatmulFn = void (*)(const MatmulParams& p, int64_t j0, int64_t j1);
// Quantizes one activation row of k floats into `out` (ActRowBytes(k) bytes).
using QuantizeFn = void (*)(const float* x, int64_t k, uint8_t* out);
using RowBytesFn = size_t (*)(int64_t k);
// Quantizes two activation rows of k floats (x1 null: one row, the second written as zeros) into
// one interleaved unit `out` (act_row_bytes(k) bytes): the i8mm GEMMs' operands (smmla takes two
// rows of 8 bytes per register).
using QuantizePairFn = void (*)(const float* x0, const float* x1, int64_t k, uint8_t* out);
// Repacks n rows of GGML blocks into `out` (RepackedRowBytes(k) * n bytes).
using RepackFn = void (*)(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

struct KernelEntry {
  Encoding encoding;
  Isa isa;
  Shape shape;
  const char* name;
  QuantizeFn quantize;  // null: f32 activations (bf16/f16 weights), or quantize_pair is set
  RowBytesFn act_row_bytes;
  RepackFn repack;  // null: GGML layout used in place
  RowBytesFn repacked_row_bytes;
  MatmulFn matmul;
  int64_t tile_n;  // columns per pthreadpool task (multiple of the kernel's row group)
  // Set instead of `quantize` by a kernel whose activations come in pairs of rows (Q8_0P, Q8_1P):
  // xq then holds ceil(m / 2) units of act_row_bytes(k) (rounded up), xq_row_bytes between units.
  QuantizePairFn quantize_pair = nullptr;
};

// True if the kernel quantizes its activations (false: it reads them as f32).
inline bool QuantizesActivations(const KernelEntry& e) {
  return e.quantize != nullptr || e.quantize_pair != nullptr;
}

// ---- Activation formats shared by several kernels (bit-identical quantized values) ----

// (One Q8_0 block: blocks::QuantizeBlockQ8_0 in quantization/block_layout.h, shared with the
// Q8_0 codec.)

// GGML layout: k/32 BlockQ8_0.
size_t Q8_0RowBytes(int64_t k);
void QuantizeRowQ8_0(const float* x, int64_t k, uint8_t* out);

// Split layout for SIMD kernels ("Q8_0S"): nbp = round_up(k/32, 4) blocks;
//   int8 qs[nbp * 32]  (pad blocks are zero)
//   float d[nbp]       (fp16-rounded scale as float; pad blocks 0)
//   int32 sum[nbp]     (sum of the block's qs)
inline int64_t Q8_0SPaddedBlocks(int64_t k) { return (k / 32 + 3) / 4 * 4; }
size_t Q8_0SRowBytes(int64_t k);
void QuantizeRowQ8_0S(const float* x, int64_t k, uint8_t* out);
inline const int8_t* Q8_0SQs(const uint8_t* row) { return reinterpret_cast<const int8_t*>(row); }
inline const float* Q8_0SD(const uint8_t* row, int64_t nbp) {
  return reinterpret_cast<const float*>(row + nbp * 32);
}
inline const int32_t* Q8_0SSum(const uint8_t* row, int64_t nbp) {
  return reinterpret_cast<const int32_t*>(row + nbp * 36);
}
// Zeros the pad blocks k/32 .. nbp - 1 of a Q8_0S row (values, scales and sums), for the SIMD
// quantizers (a plain function, compiled for the baseline).
void ZeroPadBlocksQ8_0S(int64_t k, uint8_t* out);

// GGML's quantize_row_q8_1 (Q4_1/Q5_1 activations): k/32 BlockQ8_1, the qs and d of Q8_0 plus
// s = fp16(d * sum(qs)) with the f32 d.
size_t Q8_1RowBytes(int64_t k);
void QuantizeRowQ8_1(const float* x, int64_t k, uint8_t* out);

// Split layout of Q8_1 for the SIMD Q4_1/Q5_1 kernels ("Q8_1S"): float s[nbp] (GGML's Q8_1 s =
// fp16(d_f32 * sum(qs)), as float; pad blocks 0), then a Q8_0S row of the same values.
size_t Q8_1SRowBytes(int64_t k);
void QuantizeRowQ8_1S(const float* x, int64_t k, uint8_t* out);
inline const float* Q8_1SS(const uint8_t* row) { return reinterpret_cast<const float*>(row); }
inline const uint8_t* Q8_1SQ8_0S(const uint8_t* row, int64_t k) {
  return row + 4 * Q8_0SPaddedBlocks(k);
}

// Pair layouts for the i8mm GEMMs of the 32-value block types: activation rows 2 u and 2 u + 1 in
// one unit of k/32 records, the values and scales of Q8_0S / Q8_1S (bit-identical):
// "Q8_0P" record, 80 bytes: int8 qs[64] (for h = 0..3: row 2 u's values 8 h .. 8 h + 7, then row
//   2 u + 1's), float d[4] = {d0, d0, d1, d1} (the fp16-rounded scales of the two rows).
// "Q8_1P" record, 96 bytes: the same, then float s[4] = {s0, s0, s1, s1} (Q8_1's s).
// A missing second row (odd m) is zeros.
constexpr int64_t kQ8_0PRecordBytes = 80;
constexpr int64_t kQ8_1PRecordBytes = 96;
size_t Q8_0PUnitBytes(int64_t k);
void QuantizePairQ8_0P(const float* x0, const float* x1, int64_t k, uint8_t* out);
size_t Q8_1PUnitBytes(int64_t k);
void QuantizePairQ8_1P(const float* x0, const float* x1, int64_t k, uint8_t* out);

// GGML's quantize_row_q8_K: k/256 BlockQ8_K.
size_t Q8_KRowBytes(int64_t k);
void QuantizeRowQ8_K(const float* x, int64_t k, uint8_t* out);

// "Q8_KT": GGML's quantize_row_q8_K blocks (same d and bsums) with each 64-value chunk's qs in
// transposed 4-byte words: byte 64 c + 16 t + 4 g + e holds value 64 c + 16 g + 4 t + e (g, t, e
// < 4), so that the t-th 16 bytes hold word t of each of the chunk's four 16-value groups. The ARM
// K-quant GEMMs transpose their decoded levels the same way: lane g of four chained sdot is then
// group g's whole dot (no zeroed accumulator and pairwise add per group pair).
size_t Q8_KTRowBytes(int64_t k);
void QuantizeRowQ8_KT(const float* x, int64_t k, uint8_t* out);

// "Q8_KX": GGML's quantize_row_q8_K values (bit-identical qs and d) with the sums the 16-row
// AVX-512 kernels want precomputed: k/256 BlockQ8_KX.
struct BlockQ8_KX {
  int8_t qs[256];
  int32_t neg32_bsum16[16];  // -32 * (sum of each group of 16 qs): Q6_K's level offset
  int16_t bsum32[8];         // sum of each group of 32 qs: Q4_K/Q5_K's mins
  float d;
  int32_t pad[3];
};
static_assert(sizeof(BlockQ8_KX) == 352, "BlockQ8_KX is 352 bytes");
size_t Q8_KXRowBytes(int64_t k);
void QuantizeRowQ8_KX(const float* x, int64_t k, uint8_t* out);
// For the SIMD Q8_KX quantizers (plain functions, compiled for the baseline): the block of 256
// zeros, and the rest of a block whose qs are written, from the sums of its 16-value groups and
// its scale d.
void SetZeroBlockQ8_KX(BlockQ8_KX* y);
void FinishBlockQ8_KX(const int32_t bsum16[16], float d, BlockQ8_KX* y);

// f32 activations (bf16 and f16 weights): no quantization.
size_t F32RowBytes(int64_t k);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_KERNEL_API_H_
