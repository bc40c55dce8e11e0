// Row codecs of the built-in encodings and the table describing them (internal to edgeq).
//
// Every block format is described once, in blocks::kBlockFormats (block_layout.h): its name, how
// many values a block holds, how many bytes it takes. BuiltinCodecs() adds the functions that
// quantize and dequantize a run of whole blocks, in the same order. Everything else
// (QuantizationEncoding objects, the registry, the CLI, benchmarks) is derived from them.
//
// The codecs are bit-exact with GGML's reference codecs (ggml-quants.c, quantize_row_*_ref and
// dequantize_row_*): same float operations in the same order, in float, compiled with
// -ffp-contract=off. Blocks are independent, so a run may span several rows.
#ifndef EDGEQ_QUANTIZATION_INTERNAL_CODECS_H_
#define EDGEQ_QUANTIZATION_INTERNAL_CODECS_H_

#include <cstdint>
#include <cstring>

#include "absl/types/span.h"
#include "quantization/block_layout.h"

namespace edgeq {
namespace quantization_internal {

// `n` is a positive multiple of the block's element count.
using QuantizeRowFn = void (*)(const float* x, uint8_t* out, int64_t n);
using DequantizeRowFn = void (*)(const uint8_t* in, float* y, int64_t n);

struct BlockCodec {
  const char* name;
  int64_t elements_per_block;
  int64_t block_size;
  QuantizeRowFn quantize_row;  // null: an encoding a selective build left out (codec_table.cc)
  DequantizeRowFn dequantize_row;
};

// The built-in block formats, in the table's order: q4_0, q8_0, q4_k, q5_k, q6_k, bf16, q4_1, q5_0,
// q5_1, iq4_nl, f16, q2_k, q3_k, iq4_xs.
absl::Span<const BlockCodec> BuiltinCodecs();

// One codec per file (q4_0.cc, q8_0.cc, q4_k.cc, q5_k.cc, q6_k.cc, bf16.cc, q4_1.cc, q5_0.cc,
// q5_1.cc, iq4_nl.cc, f16.cc, q2_k.cc, q3_k.cc, iq4_xs.cc; iq4.cc holds the quantizer IQ4_NL shares
// with IQ4_XS).
void QuantizeRowQ4_0(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ4_0(const uint8_t* in, float* y, int64_t n);
void QuantizeRowQ8_0(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ8_0(const uint8_t* in, float* y, int64_t n);
void QuantizeRowQ4_K(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ4_K(const uint8_t* in, float* y, int64_t n);
void QuantizeRowQ5_K(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ5_K(const uint8_t* in, float* y, int64_t n);
void QuantizeRowQ6_K(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ6_K(const uint8_t* in, float* y, int64_t n);
void QuantizeRowBF16(const float* x, uint8_t* out, int64_t n);
void DequantizeRowBF16(const uint8_t* in, float* y, int64_t n);
void QuantizeRowQ4_1(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ4_1(const uint8_t* in, float* y, int64_t n);
void QuantizeRowQ5_0(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ5_0(const uint8_t* in, float* y, int64_t n);
void QuantizeRowQ5_1(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ5_1(const uint8_t* in, float* y, int64_t n);
// IQ4_NL: the encoding's quantizer is the one llama-quantize runs (GGML's quantize_iq4_nl without
// an importance matrix); Ref is GGML's quantize_row_iq4_nl_ref (no scale search).
void QuantizeRowIq4Nl(const float* x, uint8_t* out, int64_t n);
void QuantizeRowIq4NlRef(const float* x, uint8_t* out, int64_t n);
void DequantizeRowIq4Nl(const uint8_t* in, float* y, int64_t n);
void QuantizeRowF16(const float* x, uint8_t* out, int64_t n);
void DequantizeRowF16(const uint8_t* in, float* y, int64_t n);
void QuantizeRowQ2_K(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ2_K(const uint8_t* in, float* y, int64_t n);
void QuantizeRowQ3_K(const float* x, uint8_t* out, int64_t n);
void DequantizeRowQ3_K(const uint8_t* in, float* y, int64_t n);
// IQ4_XS: GGML's quantize_row_iq4_xs_ref (quantize_iq4_xs without an importance matrix).
void QuantizeRowIq4Xs(const float* x, uint8_t* out, int64_t n);
void DequantizeRowIq4Xs(const uint8_t* in, float* y, int64_t n);

// ---- helpers shared by the codecs ----

// GGML's nearest_int (block_layout.h, shared with the kernels).
using blocks::NearestInt;

// Below this largest |x| a K-quant group is treated as all zero (GGML's GROUP_MAX_EPS).
inline constexpr float kGroupMaxEps = 1e-15f;

// GGML's `(int8_t)f` / `(uint8_t)f` as gcc compiles it for x86-64 (cvttss2si, then the low byte),
// defined for every float: truncation toward zero where the value fits an int32, and 0 (the low
// byte of 0x80000000) for NaN, inf and out-of-range values, where C leaves the conversion
// undefined.
inline uint8_t TruncToByteLikeGcc(float f) {
  if (f > -2147483648.0f && f < 2147483648.0f) {
    return static_cast<uint8_t>(static_cast<uint32_t>(static_cast<int32_t>(f)) & 0xffu);
  }
  return 0;
}

// Little-endian 16-bit load/store at any alignment.
inline uint16_t LoadU16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (static_cast<uint16_t>(p[1]) << 8));
}
inline void StoreU16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v & 0xff);
  p[1] = static_cast<uint8_t>(v >> 8);
}

}  // namespace quantization_internal
}  // namespace edgeq

#endif  // EDGEQ_QUANTIZATION_INTERNAL_CODECS_H_
