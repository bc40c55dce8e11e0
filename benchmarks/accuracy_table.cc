// Accuracy of every registered encoding: RMSE, relative RMSE and max abs error of
// Dequantize(Quantize(x)) on Gaussian data and on real weights (stories260K).
//
//   bazel run //benchmarks:accuracy_table [-- path/to/model.bin]
//
// stories260K's matrices have rows of 64 values (dim 64): Q4_0/Q8_0 blocks (32) fit a row, but the
// K-quants' 256-value super-blocks do not, so every matrix with 64-wide rows is flattened into rows
// of 256 values (4 original rows per super-block) for all encodings. ffn_down (w2, rows of 172)
// fits no block size and is left out.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/llama2c.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "quantization/encoding.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace {

struct Errors {
  double rmse;
  double relative_rmse;  // rmse / rms(x)
  double max_abs;
};

absl::StatusOr<Errors> Measure(const QuantizationEncoding& enc, const std::vector<float>& x,
                               int64_t row) {
  EDGEQ_ASSIGN_OR_RETURN(
      Tensor t, Tensor::FromValues<float>(Shape{static_cast<int64_t>(x.size()) / row, row}, x));
  EDGEQ_ASSIGN_OR_RETURN(Tensor q, enc.Quantize(t));
  EDGEQ_ASSIGN_OR_RETURN(Tensor y, enc.Dequantize(q));
  const float* yv = static_cast<const float*>(y.raw_data());
  double se = 0, sx = 0, mx = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = std::fabs(static_cast<double>(yv[i]) - x[i]);
    se += e * e;
    sx += static_cast<double>(x[i]) * x[i];
    if (e > mx) mx = e;
  }
  return Errors{std::sqrt(se / x.size()), std::sqrt(se / sx), mx};
}

// The weight matrices of a llama2.c checkpoint whose rows are `dim` wide, concatenated in the
// file's order (embedding, then each kind of matrix over all layers; ffn_down's rows are
// `hidden` wide and left out).
absl::StatusOr<std::vector<float>> LoadDimRowWeights(const std::string& path, int* dim_out) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict dict, checkpoint::ReadLlama2c(path));
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::Llama2cConfig c, checkpoint::Llama2cConfigFromMetadata(dict));
  std::vector<std::string> names = {"token_embd.weight"};
  for (const char* kind : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up"}) {
    for (int l = 0; l < c.n_layers; ++l)
      names.push_back(absl::StrCat("blk.", l, ".", kind, ".weight"));
  }
  std::vector<float> out;
  for (const std::string& name : names) {
    EDGEQ_ASSIGN_OR_RETURN(const Tensor* t, dict.Get(name, DType::kFloat32));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> v, t->Values<float>());
    out.insert(out.end(), v.begin(), v.end());
  }
  *dim_out = c.dim;
  return out;
}

absl::Status Run(const std::string& model) {
  std::vector<std::pair<std::string, std::vector<float>>> sets;
  std::mt19937 rng(1);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> g(1 << 20);
  for (float& v : g) v = dist(rng);
  sets.emplace_back("gaussian N(0,1), 1M values", std::move(g));
  int dim = 0;
  EDGEQ_ASSIGN_OR_RETURN(std::vector<float> w, LoadDimRowWeights(model, &dim));
  w.resize(w.size() / 256 * 256);
  sets.emplace_back(absl::StrFormat("stories260K weights (rows of %d, flattened to 256), %d values",
                                    dim, w.size()),
                    std::move(w));

  for (const auto& [label, x] : sets) {
    absl::PrintF("\n%s\n", label);
    absl::PrintF("| encoding | bits/value | RMSE | relative RMSE | max abs error |\n");
    absl::PrintF("|---|---|---|---|---|\n");
    for (const std::string& name : EncodingRegistry::Global().Names()) {
      EDGEQ_ASSIGN_OR_RETURN(const QuantizationEncoding* enc, FindEncoding(name));
      const BlockParameters bp = enc->block_parameters();
      EDGEQ_ASSIGN_OR_RETURN(Errors e, Measure(*enc, x, 256));
      absl::PrintF("| %s | %.4g | %.3e | %.4f | %.3e |\n", name,
                   8.0 * bp.block_size / bp.elements_per_block, e.rmse, e.relative_rmse, e.max_abs);
    }
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  absl::StatusOr<std::string> model =
      argc > 1 ? absl::StatusOr<std::string>(argv[1])
               : edgeq::testing::ReferenceDataPath("models/stories260K.bin");
  const absl::Status s = model.ok() ? edgeq::Run(*model) : model.status();
  if (!s.ok()) {
    absl::FPrintF(stderr, "accuracy_table: %s\n", s.message());
    return 1;
  }
  return 0;
}
