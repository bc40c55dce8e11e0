// Q4_0, Q6_K, Q8_0 and f32 weights side by side in one graph: memory and error vs f32.
//   bazel run //examples/mixed_precision
#include <cstdio>

#include "absl/strings/str_format.h"
#include "examples/mixed_precision/mixed_precision.h"

int main() {
  edgeq::examples::MixedPrecisionOptions options;
  absl::StatusOr<std::vector<edgeq::examples::MixedPrecisionRow>> rows =
      edgeq::examples::RunMixedPrecision(options);
  if (!rows.ok()) {
    absl::FPrintF(stderr, "mixed_precision failed: %s\n", rows.status().ToString());
    return 1;
  }
  absl::PrintF("x [%d, %d] . W^T, W [%d, %d], %d threads\n", options.m, options.k, options.n,
               options.k, options.num_threads);
  absl::PrintF("%s", edgeq::examples::FormatMixedPrecision(*rows));
  return 0;
}
