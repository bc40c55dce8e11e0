// Custom encoding, end to end: register "q3_sym" (a 3-bit block format defined in this folder),
// look it up by name like a built-in, quantize a weight matrix, dequantize it, and compare its
// error and size with the built-in Q4_0 and Q8_0.
//
//   bazel run //examples/custom_encoding
#include <cstdio>

#include "absl/strings/str_format.h"
#include "examples/custom_encoding/compare.h"

int main() {
  absl::StatusOr<std::vector<edgeq::examples::EncodingError>> rows =
      edgeq::examples::CompareEncodings();
  if (!rows.ok()) {
    absl::FPrintF(stderr, "custom_encoding: %s\n", rows.status().message());
    return 1;
  }
  absl::PrintF("Gaussian [64, 256] weights (sigma 0.02), f32 = 65536 bytes\n");
  absl::PrintF("%-8s %-18s %8s %10s %12s\n", "encoding", "quantized tensor", "bytes", "rmse",
               "max_abs_err");
  for (const auto& r : *rows) {
    absl::PrintF("%-8s %-18s %8d %10.6f %12.6f\n", r.encoding, r.quantized_shape, r.bytes, r.rmse,
                 r.max_abs_error);
  }
  return 0;
}
