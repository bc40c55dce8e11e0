// The computation behind the custom_encoding example: quantize a deterministic Gaussian
// [64, 256] matrix (sigma 0.02) with "q3_sym" and the built-in Q4_0 and Q8_0, and measure the
// round-trip error. Registers "q3_sym" first.
#ifndef EDGEQ_EXAMPLES_CUSTOM_ENCODING_COMPARE_H_
#define EDGEQ_EXAMPLES_CUSTOM_ENCODING_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace edgeq {
namespace examples {

struct EncodingError {
  std::string encoding;
  std::string quantized_shape;  // e.g. "[64, 112]"
  int64_t bytes;
  double rmse;
  double max_abs_error;
};

absl::StatusOr<std::vector<EncodingError>> CompareEncodings();

}  // namespace examples
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_CUSTOM_ENCODING_COMPARE_H_
