// The IQ4_NL / IQ4_XS quantizer shared by both codecs (GGML's quantize_row_iq4_nl_impl without an
// importance matrix): 4-bit indices into blocks::kIq4NlValues, one scale per 32 values, and for
// IQ4_XS a 6-bit scale per 32 values under an fp16 super-block scale.
#ifndef EDGEQ_QUANTIZATION_INTERNAL_IQ4_H_
#define EDGEQ_QUANTIZATION_INTERNAL_IQ4_H_

#include <cstdint>

namespace edgeq {
namespace quantization_internal {

// GGML's best_index_int8 over the 16 IQ4 levels: the index of the level nearest to x (the upper
// one on a tie; x <= the first level gives 0, x >= the last 15, NaN 15).
int Iq4BestIndex(float x);

// Quantizes `super_block_size` values (32 for IQ4_NL, 256 for IQ4_XS) of `x`: writes the fp16
// scale to *dh, the packed indices to q4 (super_block_size / 2 bytes) and, for IQ4_XS, the 6-bit
// sub-block scales to *scales_h / scales_l (4 bytes). `ntry` is GGML's search width: 7 in
// quantize_iq4_nl / quantize_iq4_xs (what llama-quantize runs), -1 in quantize_row_iq4_nl_ref
// (no search). Where GGML leaves the indices of an all-(near-)zero IQ4_NL block unwritten
// (ntry = -1), edgeq writes the index of the level nearest to 0; the block's scale is 0, so it
// decodes to zeros either way.
void QuantizeIq4SuperBlock(int super_block_size, const float* x, int ntry, uint16_t* dh,
                           uint8_t* q4, uint16_t* scales_h, uint8_t* scales_l);

}  // namespace quantization_internal
}  // namespace edgeq

#endif  // EDGEQ_QUANTIZATION_INTERNAL_IQ4_H_
