// The row codecs of the built-in block formats, indexed by blocks::Format: names and sizes come
// from the table in quantization/block_layout.h; this file adds only the functions.
#include "absl/types/span.h"
#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"
#include "sdk/selection.h"

namespace edgeq {
namespace quantization_internal {
namespace {

using blocks::Format;

// A selective build (--define=edgeq_encodings=NAMES, README "Footprint") keeps the quantizers of
// the named encodings only, so that --gc-sections drops the others (the K-quants' scale searches
// are most of this package's code); every dequantizer stays (a file's f16 norms, a conversion to
// f32). Quantizing to an encoding left out fails (QuantizationEncoding::Quantize).
constexpr BlockCodec Codec(Format id, QuantizeRowFn quantize, DequantizeRowFn dequantize) {
  const blocks::BlockFormat& f = blocks::GetBlockFormat(id);
  const bool kept = selection::Selected(selection::kEncodings, f.name);
  return {f.name, f.values_per_block, f.bytes_per_block, kept ? quantize : nullptr, dequantize};
}

constexpr BlockCodec kCodecs[] = {
    Codec(Format::kQ4_0, QuantizeRowQ4_0, DequantizeRowQ4_0),
    Codec(Format::kQ8_0, QuantizeRowQ8_0, DequantizeRowQ8_0),
    Codec(Format::kQ4_K, QuantizeRowQ4_K, DequantizeRowQ4_K),
    Codec(Format::kQ5_K, QuantizeRowQ5_K, DequantizeRowQ5_K),
    Codec(Format::kQ6_K, QuantizeRowQ6_K, DequantizeRowQ6_K),
    Codec(Format::kBf16, QuantizeRowBF16, DequantizeRowBF16),
    Codec(Format::kQ4_1, QuantizeRowQ4_1, DequantizeRowQ4_1),
    Codec(Format::kQ5_0, QuantizeRowQ5_0, DequantizeRowQ5_0),
    Codec(Format::kQ5_1, QuantizeRowQ5_1, DequantizeRowQ5_1),
    Codec(Format::kIq4Nl, QuantizeRowIq4Nl, DequantizeRowIq4Nl),
    Codec(Format::kF16, QuantizeRowF16, DequantizeRowF16),
    Codec(Format::kQ2_K, QuantizeRowQ2_K, DequantizeRowQ2_K),
    Codec(Format::kQ3_K, QuantizeRowQ3_K, DequantizeRowQ3_K),
    Codec(Format::kIq4Xs, QuantizeRowIq4Xs, DequantizeRowIq4Xs),
};
constexpr bool CodecsFollowTheTable() {
  if (sizeof(kCodecs) / sizeof(kCodecs[0]) != blocks::kNumFormats) return false;
  for (int i = 0; i < blocks::kNumFormats; ++i) {
    if (kCodecs[i].name != blocks::kBlockFormats[i].name) return false;
  }
  return true;
}
static_assert(CodecsFollowTheTable(), "one codec per block format, in the table's order");

}  // namespace

absl::Span<const BlockCodec> BuiltinCodecs() { return kCodecs; }

}  // namespace quantization_internal
}  // namespace edgeq
