#include "runtime/kernels/kernel_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "pthreadpool.h"
#include "quantization/block_layout.h"
#include "quantization/encoding.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/isa.h"
#include "tests/util/random_data.h"

namespace edgeq {
namespace kernels {
namespace test_util {
namespace {

using internal::Encoding;
using internal::EncodingBlockElems;

// Q4_1/Q5_1 kernels compute a block's min term m * sum(x) as m * s with GGML's Q8_1
// s = fp16(d_f32 * sum(qs)), not m * d_fp16 * sum(qs) as W_deq . x_q does: the difference, summed
// over row j's blocks (0 for other encodings). Weight blocks start with fp16 d, fp16 m. `a` is
// the activation row in Q8_1 blocks.
double MinTermCorrection(const Problem& p, int64_t j, const blocks::BlockQ8_1* a) {
  const int64_t bb = blocks::GetBlockFormat(p.enc).bytes_per_block;
  const int64_t row_bytes = bb * (p.k / 32);
  double c = 0;
  for (int64_t b = 0; b < p.k / 32; ++b) {
    const uint8_t* wb = p.w.data() + j * row_bytes + b * bb;
    const double m = blocks::Fp16ToFloat(static_cast<uint16_t>(wb[2] | (wb[3] << 8)));
    int32_t sum = 0;
    for (int l = 0; l < 32; ++l) sum += a[b].qs[l];
    c += m * (static_cast<double>(blocks::Fp16ToFloat(a[b].s)) -
              static_cast<double>(blocks::Fp16ToFloat(a[b].d)) * sum);
  }
  return c;
}

}  // namespace

Problem MakeProblem(Encoding enc, int64_t m, int64_t n, int64_t k, uint32_t seed) {
  Problem p{enc, m, n, k, {}, {}, {}, k + 3};
  const QuantizationEncoding& codec = *FindEncoding(internal::EncodingName(enc)).value();
  const std::vector<float> wf = edgeq::test_util::Gaussian(n * k, seed);
  const int64_t row_bytes = codec.block_parameters().block_size * (k / EncodingBlockElems(enc));
  p.w.resize(n * row_bytes);
  p.w_deq.resize(n * k);
  for (int64_t j = 0; j < n; ++j) {
    codec.QuantizeRow(wf.data() + j * k, p.w.data() + j * row_bytes, k);
    codec.DequantizeRow(p.w.data() + j * row_bytes, p.w_deq.data() + j * k, k);
  }
  p.x = edgeq::test_util::Gaussian(m * p.x_stride, seed + 1);
  return p;
}

void QuantizedActivations(Encoding enc, const float* x, int64_t k, std::vector<float>* xq,
                          std::vector<float>* half_step) {
  xq->assign(k, 0.0f);
  half_step->assign(k, 0.0f);
  const blocks::ActivationFormat act = blocks::GetBlockFormat(enc).activation;
  if (act == blocks::ActivationFormat::kF32) {
    std::memcpy(xq->data(), x, k * sizeof(float));
    return;
  }
  if (act == blocks::ActivationFormat::kQ8_0 || act == blocks::ActivationFormat::kQ8_1) {
    std::vector<uint8_t> buf(internal::Q8_0RowBytes(k));
    internal::QuantizeRowQ8_0(x, k, buf.data());
    const auto* b = reinterpret_cast<const blocks::BlockQ8_0*>(buf.data());
    for (int64_t l = 0; l < k; ++l) {
      const float d = blocks::Fp16ToFloat(b[l / 32].d);
      (*xq)[l] = d * b[l / 32].qs[l % 32];
      // d is rounded to fp16: the rounding error of x/d is at most half a step of the exact d,
      // and the fp16 rounding of d moves every value by |q| * |d - d_exact| <= 127 * 2^-11 * d.
      (*half_step)[l] = d * (0.5f + 127.0f / 2048.0f) * 1.001f;
    }
    return;
  }
  std::vector<uint8_t> buf(internal::Q8_KRowBytes(k));
  internal::QuantizeRowQ8_K(x, k, buf.data());
  const auto* b = reinterpret_cast<const blocks::BlockQ8_K*>(buf.data());
  for (int64_t l = 0; l < k; ++l) {
    (*xq)[l] = b[l / 256].d * b[l / 256].qs[l % 256];
    (*half_step)[l] = std::fabs(b[l / 256].d) * 0.5f * 1.001f;
  }
}

std::vector<float> RunKernel(const QMatmulKernel& kernel, const Problem& p, int threads) {
  const int64_t y_stride = p.n + 1;
  std::vector<float> y(p.m * y_stride, -12345.0f);
  const size_t scratch_bytes = kernel.ScratchBytes(p.m);
  std::vector<uint8_t> scratch(scratch_bytes + 64);
  const uintptr_t a = reinterpret_cast<uintptr_t>(scratch.data());
  void* aligned = scratch.data() + ((a + 63) / 64 * 64 - a);
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  kernel.Run(p.m, p.x.data(), p.x_stride, y.data(), y_stride, aligned, pool);
  if (pool != nullptr) pthreadpool_destroy(pool);
  return y;
}

// The tolerance. Every kernel's integer block sums are exact (int8 levels x int8 activations in
// int32; f16/bf16 x f32 products are exact in f32 before rounding), so a kernel differs from the
// double reference only by f32 rounding (relative 2^-24 per operation): the few products of each
// block's scales (d_w * d_x, a K-quant's sub-block scale and min term: at most ~8 operations), and
// the f32 sum of the nb block terms in whatever order the kernel adds them (sequential, per lane
// then across lanes: an error of at most (nb - 1) * 2^-24 * sum of |terms|). The terms are
// bounded by sum |w x_q| except where a K-quant block's scaled sum and its min term cancel; the
// factor 1e-6 (about 16.8 * 2^-24) leaves room for that. Hence
//   tolerance = 1e-6 * (min(nb, 4096) + 8) * sum |w x_q| + 1e-6
// (nb = k for f16/bf16, whose "blocks" are single values; a wrong block, scale or lane moves an
// output by the size of a term, far above it).
Reference ComputeReference(const Problem& p) {
  const int64_t nb = p.k / EncodingBlockElems(p.enc);
  const bool q8_1 = blocks::GetBlockFormat(p.enc).activation == blocks::ActivationFormat::kQ8_1;
  Reference r;
  r.y.resize(p.m * p.n);
  r.tolerance.resize(p.m * p.n);
  r.exact.resize(p.m * p.n);
  r.quant_err.resize(p.m * p.n);
  std::vector<float> xq, half;
  std::vector<uint8_t> q8_1_row(q8_1 ? internal::Q8_1RowBytes(p.k) : 0);
  for (int64_t i = 0; i < p.m; ++i) {
    const float* x = p.x.data() + i * p.x_stride;
    QuantizedActivations(p.enc, x, p.k, &xq, &half);
    if (q8_1) internal::QuantizeRowQ8_1(x, p.k, q8_1_row.data());
    for (int64_t j = 0; j < p.n; ++j) {
      const double corr =
          q8_1
              ? MinTermCorrection(p, j, reinterpret_cast<const blocks::BlockQ8_1*>(q8_1_row.data()))
              : 0.0;
      double ref = corr, abs_sum = 0, quant_err = std::fabs(corr), exact = 0;
      const float* w = p.w_deq.data() + j * p.k;
      for (int64_t l = 0; l < p.k; ++l) {
        ref += static_cast<double>(w[l]) * xq[l];
        abs_sum += std::fabs(static_cast<double>(w[l]) * xq[l]);
        quant_err += std::fabs(w[l]) * static_cast<double>(half[l]);
        exact += static_cast<double>(w[l]) * x[l];
      }
      r.y[i * p.n + j] = ref;
      r.tolerance[i * p.n + j] = 1e-6 * (std::min<int64_t>(nb, 4096) + 8) * abs_sum + 1e-6;
      r.exact[i * p.n + j] = exact;
      r.quant_err[i * p.n + j] = quant_err;
    }
  }
  return r;
}

void ExpectMatchesReference(const Problem& p, const Reference& ref, const std::vector<float>& y,
                            const std::string& what) {
  int bad = 0;
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      const double got = y[i * (p.n + 1) + j], want = ref.y[i * p.n + j];
      const double tol = ref.tolerance[i * p.n + j];
      if (!(std::fabs(got - want) <= tol) && ++bad < 5) {
        ADD_FAILURE() << what << " m=" << p.m << " n=" << p.n << " k=" << p.k << " y[" << i << ","
                      << j << "] = " << got << ", reference " << want << " (tolerance " << tol
                      << ")";
      }
      // Against unquantized x: off by at most the activation quantization error.
      const double exact = ref.exact[i * p.n + j];
      if (!(std::fabs(got - exact) <= ref.quant_err[i * p.n + j] + tol) && ++bad < 5) {
        ADD_FAILURE() << what << " y[" << i << "," << j << "] = " << got << ", exact " << exact
                      << " (activation quantization bound " << ref.quant_err[i * p.n + j] << ")";
      }
    }
    if (i + 1 < p.m) {
      EXPECT_EQ(y[i * (p.n + 1) + p.n], -12345.0f) << what << ": wrote outside y";
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

const internal::KernelEntry* FindKernelEntry(const std::string& name) {
  for (const internal::KernelEntry* e : internal::AllKernels()) {
    if (name == e->name) return e;
  }
  return nullptr;
}

int64_t ExpectSchedulesAgree(const internal::KernelEntry* e, int64_t m, int64_t n, int64_t k,
                             uint32_t seed) {
  return ExpectSchedulesAgreeOn(e, MakeProblem(e->encoding, m, n, k, seed));
}

int64_t ExpectSchedulesAgreeOn(const internal::KernelEntry* e, const Problem& p) {
  const int64_t m = p.m, n = p.n, k = p.k;
  auto kernel = internal::CreateForEntry(e, n, k, p.w);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (!kernel.ok()) return 0;
  const std::string what = absl::StrCat(e->name, " m=", m, " n=", n, " k=", k);
  SetCoreSchedule(CoreSchedule::kOutOfOrder);
  const std::vector<float> out_of_order = RunKernel(**kernel, p, 1);
  SetCoreSchedule(CoreSchedule::kInOrder);
  const std::vector<float> in_order = RunKernel(**kernel, p, 1);
  EXPECT_EQ(in_order.size(), out_of_order.size()) << what;
  if (in_order.size() != out_of_order.size()) return 0;
  for (size_t i = 0; i < in_order.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &in_order[i], 4);
    std::memcpy(&b, &out_of_order[i], 4);
    if (a != b) {
      ADD_FAILURE() << what << ": output " << i << " in-order " << in_order[i] << ", out-of-order "
                    << out_of_order[i];
      return 0;
    }
  }
  ExpectMatchesReference(p, in_order, what + " inorder");
  return static_cast<int64_t>(in_order.size());
}

}  // namespace test_util
}  // namespace kernels
}  // namespace edgeq
