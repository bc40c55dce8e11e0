// The seed's example: prints the f32 matmul, the Q4_0 qmatmul and their max abs difference.
//   bazel run //examples/qmatmul -- [num_threads]
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_format.h"
#include "examples/qmatmul/qmatmul_example.h"

int main(int argc, char** argv) {
  int threads = 2;
  if (argc > 1) {
    threads = std::atoi(argv[1]);
    if (threads < 1) {
      absl::FPrintF(stderr, "num_threads must be a positive integer, got \"%s\"\n", argv[1]);
      return 2;
    }
  }
  absl::StatusOr<edgeq::examples::QMatmulExampleResult> result =
      edgeq::examples::RunQMatmulExample(threads);
  if (!result.ok()) {
    absl::FPrintF(stderr, "qmatmul example failed: %s\n", result.status().ToString());
    return 1;
  }
  absl::PrintF("%s", edgeq::examples::FormatQMatmulExample(*result));
  return 0;
}
