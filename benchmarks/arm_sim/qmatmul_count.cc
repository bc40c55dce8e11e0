// Fixed-iteration qmatmul driver for instruction counting under qemu-aarch64 (benchmarks/arm_sim).
//
// For every encoding x shape x m it creates the QMatmulKernel the CPU allows (the public API's
// own dispatch, Isa::kBest), and makes `--reps` single-threaded Run() calls, each between the
// marker NOPs `hint #126` / `hint #127` that libcount.so counts. Before each marked call it prints
// one line describing it, so the i-th "call" line belongs to the plugin's i-th region:
//   call encoding=q4_0 n=4096 k=4096 m=1 kernel=q4_0_dotprod_gemv macs=16777216 weight_bytes=...
// Weight bytes are those of the GGML blocks the kernel is created from (n * k / elements per block
// * block bytes); a kernel that repacks may read a different amount.
//
//   qmatmul_count [--encodings=q4_0,q8_0,q4_k,q5_k,q6_k] [--ms=1,8,64]
//                 [--shapes=4096x4096,288x768,768x288,896x896,8192x2048] [--reps=1]
// A shape is n x k (output features x input features). Shapes whose k is not a whole number of
// blocks of an encoding (k = 288 for the K-quants) are skipped with a "skip" line.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "quantization/encoding.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace {

inline void StartMarker() {
#if defined(__aarch64__)
  asm volatile("hint #126" ::: "memory");
#endif
}

inline void StopMarker() {
#if defined(__aarch64__)
  asm volatile("hint #127" ::: "memory");
#endif
}

struct Options {
  std::vector<std::string> encodings = {"q4_0", "q8_0", "q4_k", "q5_k", "q6_k"};
  std::vector<int64_t> ms = {1, 8, 64};
  std::vector<std::pair<int64_t, int64_t>> shapes = {
      {4096, 4096}, {288, 768}, {768, 288}, {896, 896}, {8192, 2048}};
  int reps = 1;
};

absl::StatusOr<int64_t> ParsePositive(absl::string_view flag, absl::string_view text) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(text, &v) || v <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": expected a positive integer, got '", text, "'"));
  }
  return v;
}

absl::StatusOr<Options> ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    const size_t eq = arg.find('=');
    const absl::string_view name = arg.substr(0, eq);
    const absl::string_view value = eq == absl::string_view::npos ? "" : arg.substr(eq + 1);
    if (name == "--encodings") {
      o.encodings = absl::StrSplit(value, ',', absl::SkipEmpty());
    } else if (name == "--ms") {
      o.ms.clear();
      for (absl::string_view t : absl::StrSplit(value, ',', absl::SkipEmpty())) {
        absl::StatusOr<int64_t> m = ParsePositive("--ms", t);
        if (!m.ok()) return m.status();
        o.ms.push_back(*m);
      }
    } else if (name == "--shapes") {
      o.shapes.clear();
      for (absl::string_view t : absl::StrSplit(value, ',', absl::SkipEmpty())) {
        std::vector<absl::string_view> nk = absl::StrSplit(t, 'x');
        if (nk.size() != 2) {
          return absl::InvalidArgumentError(
              absl::StrCat("--shapes: expected NxK (e.g. 4096x4096), got '", t, "'"));
        }
        absl::StatusOr<int64_t> n = ParsePositive("--shapes n", nk[0]);
        if (!n.ok()) return n.status();
        absl::StatusOr<int64_t> k = ParsePositive("--shapes k", nk[1]);
        if (!k.ok()) return k.status();
        o.shapes.push_back({*n, *k});
      }
    } else if (name == "--reps") {
      absl::StatusOr<int64_t> r = ParsePositive("--reps", value);
      if (!r.ok()) return r.status();
      o.reps = static_cast<int>(*r);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown argument '", arg, "' (expected --encodings=, --ms=, --shapes=, --reps=)"));
    }
  }
  if (o.encodings.empty() || o.ms.empty() || o.shapes.empty()) {
    return absl::InvalidArgumentError("--encodings, --ms and --shapes must not be empty");
  }
  return o;
}

// n rows of GGML blocks: kDistinctRows Gaussian rows quantized with the reference codec, repeated.
// (The kernels' instruction counts do not depend on the values; quantizing every row of a
// 8192x2048 matrix under qemu would take longer than the measurement.)
absl::StatusOr<std::vector<uint8_t>> MakeWeights(const QuantizationEncoding& codec, int64_t n,
                                                 int64_t k, std::mt19937& rng) {
  constexpr int64_t kDistinctRows = 16;
  const auto params = codec.block_parameters();
  if (k % params.elements_per_block != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("k = ", k, " is not a multiple of ", params.elements_per_block));
  }
  const int64_t row_bytes = params.block_size * (k / params.elements_per_block);
  std::vector<uint8_t> w(static_cast<size_t>(n * row_bytes));
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  std::vector<float> row(static_cast<size_t>(k));
  for (int64_t j = 0; j < n; ++j) {
    if (j < kDistinctRows) {
      for (float& v : row) v = gauss(rng);
      codec.QuantizeRow(row.data(), w.data() + j * row_bytes, k);
    } else {
      std::copy_n(w.data() + (j % kDistinctRows) * row_bytes, row_bytes, w.data() + j * row_bytes);
    }
  }
  return w;
}

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

absl::Status Run(const Options& o) {
  std::mt19937 rng(1234);
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  for (const std::string& encoding : o.encodings) {
    absl::StatusOr<const QuantizationEncoding*> codec = FindEncoding(encoding);
    if (!codec.ok()) return codec.status();
    const auto params = (*codec)->block_parameters();
    for (const auto& [n, k] : o.shapes) {
      if (k % params.elements_per_block != 0) {  // e.g. k = 288 for the K-quants (256 per block)
        std::printf("skip encoding=%s n=%lld k=%lld: k is not a multiple of %lld\n",
                    encoding.c_str(), static_cast<long long>(n), static_cast<long long>(k),
                    static_cast<long long>(params.elements_per_block));
        continue;
      }
      absl::StatusOr<std::vector<uint8_t>> w = MakeWeights(**codec, n, k, rng);
      if (!w.ok()) return w.status();
      absl::StatusOr<std::unique_ptr<kernels::QMatmulKernel>> kernel =
          kernels::QMatmulKernel::Create(encoding, n, k, absl::MakeConstSpan(*w));
      if (!kernel.ok()) return kernel.status();
      const int64_t weight_bytes = n * (k / params.elements_per_block) * params.block_size;
      for (int64_t m : o.ms) {
        std::vector<float> x(static_cast<size_t>(m * k));
        for (float& v : x) v = gauss(rng);
        std::vector<float> y(static_cast<size_t>(m * n));
        const size_t scratch_bytes = ((*kernel)->ScratchBytes(m) + 63) / 64 * 64;
        std::unique_ptr<void, AlignedFree> scratch(std::aligned_alloc(64, scratch_bytes + 64));
        if (scratch == nullptr) return absl::ResourceExhaustedError("scratch allocation failed");
        for (int rep = 0; rep < o.reps; ++rep) {
          std::printf(
              "call encoding=%s n=%lld k=%lld m=%lld kernel=%s isa=%s macs=%lld "
              "weight_bytes=%lld rep=%d\n",
              encoding.c_str(), static_cast<long long>(n), static_cast<long long>(k),
              static_cast<long long>(m), std::string((*kernel)->kernel_name(m)).c_str(),
              std::string(kernels::IsaName((*kernel)->isa())).c_str(),
              static_cast<long long>(m * n * k), static_cast<long long>(weight_bytes), rep);
          std::fflush(stdout);
          StartMarker();
          (*kernel)->Run(m, x.data(), k, y.data(), n, scratch.get(), nullptr);
          StopMarker();
        }
        // The result is used, so the call cannot be dropped; a non-finite output is an error.
        double sum = 0;
        for (float v : y) sum += v;
        if (!std::isfinite(sum)) {
          return absl::InternalError(
              absl::StrCat(encoding, " ", n, "x", k, " m=", m, ": non-finite output"));
        }
        std::printf("checksum %.6g\n", sum);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  absl::StatusOr<edgeq::Options> options = edgeq::ParseOptions(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "qmatmul_count: %s\n", std::string(options.status().message()).c_str());
    return 2;
  }
  const absl::Status status = edgeq::Run(*options);
  if (!status.ok()) {
    std::fprintf(stderr, "qmatmul_count: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
