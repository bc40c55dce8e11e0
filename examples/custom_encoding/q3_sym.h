// A user-defined encoding, "q3_sym": 3-bit symmetric blocks, registered by name next to the
// built-in encodings.
//
// Block: 32 values in 14 bytes = fp16 scale d, then 12 bytes holding 32 3-bit codes q in 0..7,
// packed little-endian (code i occupies bits 3i..3i+2 of the 96-bit field); x = (q - 4) * d.
// The scale follows Q4_0's rule: d = m / -4 where m is the signed value of largest magnitude, so
// that value maps exactly to code 0 and the remaining range [-3d, 3d] is used symmetrically.
// 3.5 bits per value.
//
//   EDGEQ_RETURN_IF_ERROR(edgeq::examples::RegisterQ3SymEncoding());
//   const edgeq::QuantizationEncoding* q3 = *edgeq::FindEncoding("q3_sym");
//   absl::StatusOr<edgeq::Tensor> q = q3->Quantize(weights);  // f32 [n, k] -> u8 [n, k/32*14]
#ifndef EDGEQ_EXAMPLES_CUSTOM_ENCODING_Q3_SYM_H_
#define EDGEQ_EXAMPLES_CUSTOM_ENCODING_Q3_SYM_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace examples {

class Q3SymEncoding : public QuantizationEncoding {
 public:
  static constexpr char kName[] = "q3_sym";
  static constexpr int kBlockValues = 32;
  static constexpr int kBlockBytes = 14;

  absl::string_view name() const override { return kName; }
  BlockParameters block_parameters() const override { return {kBlockValues, kBlockBytes}; }
  void QuantizeRow(const float* x, uint8_t* out, int64_t num_elements) const override;
  void DequantizeRow(const uint8_t* in, float* y, int64_t num_elements) const override;
};

// Registers "q3_sym" in the global registry. Idempotent: OK if it is already registered.
absl::Status RegisterQ3SymEncoding();

}  // namespace examples
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_CUSTOM_ENCODING_Q3_SYM_H_
