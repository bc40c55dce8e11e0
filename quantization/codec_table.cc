// The table of built-in block formats: the single source of truth for their names and sizes.
#include "absl/types/span.h"
#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {

absl::Span<const BlockCodec> BuiltinCodecs() {
  static constexpr BlockCodec kCodecs[] = {
      {"q4_0", blocks::kQK4_0, sizeof(blocks::BlockQ4_0), QuantizeRowQ4_0, DequantizeRowQ4_0},
      {"q8_0", blocks::kQK8_0, sizeof(blocks::BlockQ8_0), QuantizeRowQ8_0, DequantizeRowQ8_0},
      {"q4_k", blocks::kQK_K, sizeof(blocks::BlockQ4_K), QuantizeRowQ4_K, DequantizeRowQ4_K},
      {"q5_k", blocks::kQK_K, sizeof(blocks::BlockQ5_K), QuantizeRowQ5_K, DequantizeRowQ5_K},
      {"q6_k", blocks::kQK_K, sizeof(blocks::BlockQ6_K), QuantizeRowQ6_K, DequantizeRowQ6_K},
      {"bf16", 1, 2, QuantizeRowBF16, DequantizeRowBF16},
  };
  return kCodecs;
}

}  // namespace quantization_internal
}  // namespace edgeq
