#include "runtime/kernels/qmatmul.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "pthreadpool.h"
#include "quantization/block_layout.h"
#include "quantization/encoding.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "tests/util/random_data.h"

namespace edgeq {
namespace kernels {
namespace {

using internal::Encoding;
using internal::EncodingBlockElems;
using internal::EncodingName;
using internal::KernelEntry;

using test_util::Gaussian;

struct Problem {
  Encoding enc;
  int64_t m, n, k;
  std::vector<uint8_t> w;    // n rows in the GGML layout
  std::vector<float> w_deq;  // dequantized weights
  std::vector<float> x;      // m x k, stride k + 3 (exercises x_stride)
  int64_t x_stride;
};

Problem MakeProblem(Encoding enc, int64_t m, int64_t n, int64_t k, uint32_t seed) {
  Problem p{enc, m, n, k, {}, {}, {}, k + 3};
  const QuantizationEncoding& codec = *FindEncoding(EncodingName(enc)).value();
  const std::vector<float> wf = Gaussian(n * k, seed);
  const int64_t row_bytes = codec.block_parameters().block_size * (k / EncodingBlockElems(enc));
  p.w.resize(n * row_bytes);
  p.w_deq.resize(n * k);
  for (int64_t j = 0; j < n; ++j) {
    codec.QuantizeRow(wf.data() + j * k, p.w.data() + j * row_bytes, k);
    codec.DequantizeRow(p.w.data() + j * row_bytes, p.w_deq.data() + j * k, k);
  }
  p.x = Gaussian(m * p.x_stride, seed + 1);
  return p;
}

// The activations as the kernels see them: quantized to Q8_0 / Q8_1 / Q8_K blocks and
// dequantized (exact f32 values), plus the half-step of each element's block (the quantization
// error bound).
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

// Q4_1/Q5_1 kernels compute a block's min term m * sum(w-free part) as m * s with GGML's Q8_1
// s = fp16(d_f32 * sum(qs)), not m * d_fp16 * sum(qs) as W_deq . x_q does: the difference, summed
// over the row's blocks (0 for other encodings). Weight blocks start with fp16 d, fp16 m.
double MinTermCorrection(const Problem& p, int64_t j, const float* x) {
  if (blocks::GetBlockFormat(p.enc).activation != blocks::ActivationFormat::kQ8_1) return 0.0;
  std::vector<uint8_t> buf(internal::Q8_1RowBytes(p.k));
  internal::QuantizeRowQ8_1(x, p.k, buf.data());
  const auto* a = reinterpret_cast<const blocks::BlockQ8_1*>(buf.data());
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

// Runs `kernel` on p with `threads` threads; returns y (m x n, stride n + 1).
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

// y vs W_deq . x_q in double: every kernel's integer block sums are exact, so the only error is
// f32 rounding of the per-block scale products and of the running sum (relative 2^-24 per
// operation, at most ~k/32 + 8 operations deep): tolerance 1e-5 * (nb + 8) * sum |w x_q|.
void ExpectMatchesReference(const Problem& p, const std::vector<float>& y,
                            const std::string& what) {
  const int64_t nb = p.k / EncodingBlockElems(p.enc);
  std::vector<float> xq, half;
  int bad = 0;
  for (int64_t i = 0; i < p.m; ++i) {
    QuantizedActivations(p.enc, p.x.data() + i * p.x_stride, p.k, &xq, &half);
    for (int64_t j = 0; j < p.n; ++j) {
      const double corr = MinTermCorrection(p, j, p.x.data() + i * p.x_stride);
      double ref = corr, abs_sum = 0, quant_err = std::fabs(corr), x_exact = 0;
      for (int64_t l = 0; l < p.k; ++l) {
        const double w = p.w_deq[j * p.k + l];
        ref += w * xq[l];
        abs_sum += std::fabs(w * xq[l]);
        quant_err += std::fabs(w) * half[l];
        x_exact += w * p.x[i * p.x_stride + l];
      }
      const double tol = 1e-6 * (std::min<int64_t>(nb, 4096) + 8) * abs_sum + 1e-6;
      const float got = y[i * (p.n + 1) + j];
      if (std::fabs(got - ref) > tol && ++bad < 5) {
        ADD_FAILURE() << what << " y[" << i << "," << j << "] = " << got << ", reference " << ref
                      << " (tolerance " << tol << ")";
      }
      // Against unquantized x: off by at most the activation quantization error.
      if (std::fabs(got - x_exact) > quant_err + tol && ++bad < 5) {
        ADD_FAILURE() << what << " y[" << i << "," << j << "] = " << got << ", exact " << x_exact
                      << " (activation quantization bound " << quant_err << ")";
      }
    }
    for (int64_t j = p.n; j < p.n + 1 && i + 1 < p.m; ++j) {
      EXPECT_EQ(y[i * (p.n + 1) + j], -12345.0f) << what << ": wrote outside y";
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

const Encoding kAllEncodings[] = {
    Encoding::kQ4_0, Encoding::kQ8_0, Encoding::kQ4_K, Encoding::kQ5_K, Encoding::kQ6_K,
    Encoding::kBf16, Encoding::kQ4_1, Encoding::kQ5_0, Encoding::kQ5_1, Encoding::kIq4Nl,
    Encoding::kF16,  Encoding::kQ2_K, Encoding::kQ3_K, Encoding::kIq4Xs};

TEST(QMatmulTest, GenericMatchesFloatReference) {
  for (Encoding enc : kAllEncodings) {
    const int64_t bk = EncodingBlockElems(enc) == 1 ? 32 : EncodingBlockElems(enc);
    for (int64_t m : {1, 3}) {
      for (int64_t nblk : {1, 3}) {
        const int64_t n = 19, k = bk * nblk;
        const Problem p = MakeProblem(enc, m, n, k, static_cast<uint32_t>(m * 100 + nblk));
        auto kernel = QMatmulKernel::Create(EncodingName(enc), n, k, p.w, Isa::kGeneric);
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        EXPECT_EQ((*kernel)->isa(), Isa::kGeneric);
        EXPECT_EQ((*kernel)->kernel_name(m),
                  absl::StrCat(EncodingName(enc), "_generic_", m == 1 ? "gemv" : "gemm"));
        for (int threads : {1, 2}) {
          ExpectMatchesReference(p, RunKernel(**kernel, p, threads),
                                 absl::StrCat(EncodingName(enc), " m=", m, " k=", k));
        }
      }
    }
  }
}

TEST(QMatmulTest, BestKernelMatchesFloatReference) {
  for (Encoding enc : kAllEncodings) {
    const int64_t bk = EncodingBlockElems(enc) == 1 ? 32 : EncodingBlockElems(enc);
    const Problem p = MakeProblem(enc, 5, 37, bk * 4, 7);
    auto kernel = QMatmulKernel::Create(EncodingName(enc), p.n, p.k, p.w);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    ExpectMatchesReference(p, RunKernel(**kernel, p, 2), (*kernel)->kernel_name(5).data());
    const Problem p1 = MakeProblem(enc, 1, 37, bk * 4, 7);  // same weights
    ExpectMatchesReference(p1, RunKernel(**kernel, p1, 1), (*kernel)->name().data());
  }
}

// Create's on_read: a repacking kernel reports the bytes it has read in growing steps of whole
// row chunks, ending at all of them; its results equal those of a kernel made without it (the
// repack in chunks writes the same layout), for row counts around the chunk size.
TEST(QMatmulTest, RepackReportsTheBytesItHasRead) {
  for (Encoding enc : kAllEncodings) {
    const int64_t bk = EncodingBlockElems(enc) == 1 ? 32 : EncodingBlockElems(enc);
    for (int64_t n : {255, 256, 257, 600}) {
      SCOPED_TRACE(::testing::Message() << EncodingName(enc) << " n=" << n);
      const Problem p = MakeProblem(enc, 3, n, bk * 2, 11);
      std::vector<size_t> reads;
      auto kernel = QMatmulKernel::Create(EncodingName(enc), p.n, p.k, p.w, Isa::kBest,
                                          [&](const uint8_t* w, size_t bytes) {
                                            EXPECT_EQ(w, p.w.data());
                                            reads.push_back(bytes);
                                          });
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      auto plain = QMatmulKernel::Create(EncodingName(enc), p.n, p.k, p.w);
      ASSERT_TRUE(plain.ok()) << plain.status();
      if (!(*kernel)->holds_weight_copy()) {
        EXPECT_TRUE(reads.empty() || reads.back() == p.w.size());
      } else {
        ASSERT_FALSE(reads.empty());
        EXPECT_EQ(reads.back(), p.w.size());
        EXPECT_TRUE(std::is_sorted(reads.begin(), reads.end()));
        EXPECT_EQ(reads.size(), static_cast<size_t>((n + 255) / 256));
      }
      EXPECT_EQ(RunKernel(**kernel, p, 2), RunKernel(**plain, p, 2));
      const Problem p1 = MakeProblem(enc, 1, n, bk * 2, 11);
      EXPECT_EQ(RunKernel(**kernel, p1, 1), RunKernel(**plain, p1, 1));
    }
  }
}

// GGML's quantize_row_q8_1_ref: Q8_0's d and qs, and s = fp16(d * sum(qs)) with the f32 d.
TEST(QMatmulTest, Q8_1ActivationsAreGgmls) {
  std::vector<float> x(64, 0.0f);
  x[0] = 127.0f;                                                           // d = 1
  x[1] = -2.5f;                                                            // roundf: -3
  x[2] = 1.4f;                                                             // 1
  for (int l = 32; l < 64; ++l) x[l] = 0.1f * static_cast<float>(l - 40);  // max |x| 2.3
  std::vector<uint8_t> q(internal::Q8_1RowBytes(64));
  ASSERT_EQ(q.size(), 2 * sizeof(blocks::BlockQ8_1));
  internal::QuantizeRowQ8_1(x.data(), 64, q.data());
  const auto* b = reinterpret_cast<const blocks::BlockQ8_1*>(q.data());
  EXPECT_EQ(b[0].d, 0x3c00);
  EXPECT_EQ(b[0].qs[0], 127);
  EXPECT_EQ(b[0].qs[1], -3);
  EXPECT_EQ(b[0].qs[2], 1);
  EXPECT_EQ(b[0].s, blocks::FloatToFp16(125.0f));
  std::vector<uint8_t> q8_0(internal::Q8_0RowBytes(64));
  internal::QuantizeRowQ8_0(x.data(), 64, q8_0.data());
  const auto* c = reinterpret_cast<const blocks::BlockQ8_0*>(q8_0.data());
  int sum = 0;
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(b[1].qs[l], c[1].qs[l]);
    sum += b[1].qs[l];
  }
  EXPECT_EQ(b[1].d, c[1].d);
  float amax = 0;
  for (int l = 32; l < 64; ++l) amax = std::max(amax, std::fabs(x[l]));
  // The f32 d = amax / 127, not the fp16 one.
  EXPECT_EQ(b[1].s, blocks::FloatToFp16(static_cast<float>(sum) * (amax / 127)));
}

TEST(QMatmulTest, RejectsBadInput) {
  const std::vector<uint8_t> w(1 << 16);
  auto bad_enc = QMatmulKernel::Create("iq2_xxs", 4, 256, w);
  EXPECT_EQ(bad_enc.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_enc.status().message().find("iq2_xxs"), absl::string_view::npos);
  auto bad_k = QMatmulKernel::Create("q4_k", 4, 300, w);
  EXPECT_EQ(bad_k.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_k.status().message().find("multiple of 256"), absl::string_view::npos);
  EXPECT_FALSE(QMatmulKernel::Create("q4_0", 0, 32, w).ok());
  EXPECT_FALSE(QMatmulKernel::Create("q4_0", 4, 32, {}).ok());
  // The weights must hold exactly n x k/block x block bytes: a cut or inflated buffer is refused
  // before any kernel (or repack) reads it.
  auto cut = QMatmulKernel::Create("q4_0", 4, 64, absl::MakeConstSpan(w.data(), 4 * 36 - 1));
  EXPECT_EQ(cut.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(cut.status().message().find("need 4 rows x 2 blocks x 18 bytes = 144 bytes, got 143"),
            absl::string_view::npos)
      << cut.status();
  EXPECT_FALSE(QMatmulKernel::Create("q4_0", 4, 64, absl::MakeConstSpan(w.data(), 145)).ok());
  EXPECT_TRUE(QMatmulKernel::Create("q4_0", 4, 64, absl::MakeConstSpan(w.data(), 144)).ok());
  for (const KernelEntry* e : internal::AllKernels()) {
    if (!IsaSupported(e->isa)) continue;
    const int64_t bk = internal::EncodingBlockElems(e->encoding);
    auto bad = internal::CreateForEntry(e, 3, bk, absl::MakeConstSpan(w.data(), 1));
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << e->name;
  }
}

// Repacked layouts stream no more bytes than GGML's blocks (decode is bandwidth-bound), stated
// per encoding at a multiple of 16 rows: Q4_0/Q8_0/Q5_0/IQ4_NL/Q6_K/Q2_K are exactly GGML's size;
// Q4_K and Q5_K are 2368/2304 and 2880/2816 of it (+2.8%, +2.3%: scales and mins as bytes, not 6
// bits), Q3_K and IQ4_XS 1824/1760 and 2208/2176 (+3.6%, +1.5%: scales as bytes).
TEST(QMatmulTest, RepackedLayoutBytesAgainstGgml) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the X16 layouts are x86's; the ARM layouts' sizes are counted by "
                  "benchmarks/arm_sim";
#endif
  const std::map<std::string, std::pair<int64_t, int64_t>> ratio = {
      {"q4_0", {1, 1}},       {"iq4_nl", {1, 1}}, {"q5_0", {1, 1}},       {"q4_1", {1, 1}},
      {"q5_1", {1, 1}},       {"q8_0", {1, 1}},   {"q6_k", {1, 1}},       {"q4_k", {2368, 2304}},
      {"q5_k", {2880, 2816}}, {"q2_k", {1, 1}},   {"q3_k", {1824, 1760}}, {"iq4_xs", {2208, 2176}}};
  int checked = 0;
  for (const KernelEntry* e : internal::AllKernels()) {
    if (e->repack == nullptr) continue;
    const std::string encoding(internal::EncodingName(e->encoding));
    const int64_t bk = internal::EncodingBlockElems(e->encoding);
    const blocks::BlockFormat* f = &blocks::GetBlockFormat(e->encoding);
    for (int64_t blocks_per_row : {1, 2, 9, 28}) {
      const int64_t k = bk * blocks_per_row;
      const int64_t ggml = blocks_per_row * f->bytes_per_block;
      const int64_t got = static_cast<int64_t>(e->repacked_row_bytes(k));
      auto it = ratio.find(encoding);
      if (it == ratio.end()) {
        EXPECT_LE(got, ggml) << e->name << " k=" << k;
        continue;
      }
      // Q4_0/Q8_0 tiles pair blocks: an odd count pads one block (k = 288: 9 -> 10 blocks).
      const int64_t paired = (encoding == "q4_0" || encoding == "q8_0" || encoding == "iq4_nl" ||
                              encoding == "q5_0" || encoding == "q4_1" || encoding == "q5_1") &&
                                     blocks_per_row % 2 == 1
                                 ? (blocks_per_row + 1) * f->bytes_per_block
                                 : ggml;
      EXPECT_EQ(got * it->second.second, paired * it->second.first) << e->name << " k=" << k;
    }
    ++checked;
  }
  EXPECT_GE(checked, 23);  // every x86 kernel repacks
}

// The dispatch list (kAllKernels) holds exactly these kernels, stated outright per architecture:
// a kernel file added without its line in the list (or a list entry with the wrong encoding, ISA
// or shape) fails here.
TEST(QMatmulTest, DispatchListHoldsEveryKernel) {
  struct Level {
    Isa isa;
    bool bf16;            // has a bf16 kernel
    bool gemm_only;       // i8mm: smmla needs two activation rows
    bool new32 = false;   // has q4_1, q5_0, q5_1 and iq4_nl kernels (generic only so far)
    bool x16_32 = false;  // has q4_1, q5_0, q5_1 and iq4_nl kernels
    bool k23 = false;     // has q2_k, q3_k and iq4_xs kernels
    bool f16 = false;     // has an f16 kernel (without a bf16 one)
  };
#if defined(EDGEQ_KERNELS_X86)
  const Level levels[] = {{Isa::kGeneric, true, false, true, false, true},
                          {Isa::kAvx2, true, false, false, true, true},
                          {Isa::kAvxVnni, false, false},
                          {Isa::kAvx512Vnni, false, false, false, true, true, true}};
  const size_t expected_count = 28 + 28 + 10 + 26;
#elif defined(EDGEQ_KERNELS_ARM)
  const Level levels[] = {{Isa::kGeneric, true, false, true, false, true},
                          {Isa::kNeon, true, false, false, true, true},
                          {Isa::kNeonDotprod, false, false, false, true, true},
                          {Isa::kNeonI8mm, false, true, false, true}};
  const size_t expected_count = 28 + 28 + 24 + 9;
#else
  const Level levels[] = {{Isa::kGeneric, true, false, true, false, true}};
  const size_t expected_count = 28;
#endif
  std::set<std::string> want;
  for (const Level& l : levels) {
    for (const blocks::BlockFormat& f : blocks::kBlockFormats) {
      if (f.id == blocks::Format::kBf16 && !l.bf16) continue;
      if (f.id == blocks::Format::kF16 && !l.bf16 && !l.f16) continue;  // where bf16 ones are
      const bool x16_32 = f.id == blocks::Format::kIq4Nl || f.id == blocks::Format::kQ5_0 ||
                          f.id == blocks::Format::kQ4_1 || f.id == blocks::Format::kQ5_1;
      if (x16_32 && !l.new32 && !l.x16_32) continue;
      const bool k23 = f.id == blocks::Format::kQ2_K || f.id == blocks::Format::kQ3_K ||
                       f.id == blocks::Format::kIq4Xs;
      if (k23 && !l.k23) continue;
      if (static_cast<int>(f.id) > static_cast<int>(blocks::Format::kBf16) &&
          f.id != blocks::Format::kF16 && !x16_32 && !k23 && !l.new32) {
        continue;
      }
      if (!l.gemm_only) want.insert(absl::StrCat(f.name, "_", IsaName(l.isa), "_gemv"));
      want.insert(absl::StrCat(f.name, "_", IsaName(l.isa), "_gemm"));
    }
  }
  EXPECT_EQ(want.size(), expected_count);
  std::set<std::string> got;
  for (const KernelEntry* e : internal::AllKernels()) {
    const std::string name = e->name;
    EXPECT_TRUE(got.insert(name).second) << name << " is listed twice";
    EXPECT_EQ(name, absl::StrCat(EncodingName(e->encoding), "_", IsaName(e->isa),
                                 e->shape == internal::Shape::kGemv ? "_gemv" : "_gemm"))
        << "the entry's encoding, ISA or shape disagrees with its name";
    // Its activations are in the format the table pairs its encoding with.
    const blocks::ActivationFormat act = blocks::GetBlockFormat(e->encoding).activation;
    if (act == blocks::ActivationFormat::kF32) {
      EXPECT_EQ(e->act_row_bytes, &internal::F32RowBytes) << name;
    } else if (act == blocks::ActivationFormat::kQ8_0) {
      EXPECT_TRUE(e->act_row_bytes == &internal::Q8_0RowBytes ||
                  e->act_row_bytes == &internal::Q8_0SRowBytes ||
                  e->act_row_bytes == &internal::Q8_0PUnitBytes)
          << name;
    } else if (act == blocks::ActivationFormat::kQ8_1) {
      EXPECT_TRUE(e->act_row_bytes == &internal::Q8_1RowBytes ||
                  e->act_row_bytes == &internal::Q8_1SRowBytes ||
                  e->act_row_bytes == &internal::Q8_1PUnitBytes)
          << name;
    } else {
      EXPECT_TRUE(e->act_row_bytes == &internal::Q8_KRowBytes ||
                  e->act_row_bytes == &internal::Q8_KTRowBytes ||
                  e->act_row_bytes == &internal::Q8_KXRowBytes)
          << name;
    }
  }
  for (const std::string& n : want)
    EXPECT_EQ(got.count(n), 1u) << n << " is missing from kAllKernels";
  for (const std::string& n : got) EXPECT_EQ(want.count(n), 1u) << n << " is not expected";
}

TEST(IsaTest, NamesRoundTrip) {
  for (Isa isa : {Isa::kGeneric, Isa::kAvx2, Isa::kAvxVnni, Isa::kAvx512Vnni, Isa::kNeon,
                  Isa::kNeonDotprod, Isa::kNeonI8mm, Isa::kBest}) {
    EXPECT_EQ(IsaFromName(IsaName(isa)).value(), isa);
  }
  EXPECT_EQ(IsaFromName("AVX2").value(), Isa::kAvx2);
  EXPECT_EQ(IsaFromName("sse9").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(IsaSupported(Isa::kGeneric));
  EXPECT_TRUE(IsaSupported(BestSupportedIsa()));
#if defined(__x86_64__)
  EXPECT_FALSE(IsaSupported(Isa::kNeon));
#elif defined(__aarch64__)
  EXPECT_TRUE(IsaSupported(Isa::kNeon));
  EXPECT_FALSE(IsaSupported(Isa::kAvx2));
#endif
}

// ---- Every compiled kernel against the generic one ----

const KernelEntry* GenericFor(const KernelEntry* e) {
  for (const KernelEntry* g : internal::AllKernels()) {
    if (g->encoding == e->encoding && g->shape == e->shape && g->isa == Isa::kGeneric) return g;
  }
  return nullptr;
}

// The integer block sums are identical (same quantized activations); what may differ is the f32
// summation order of the per-block (or per-lane) scaled partial sums: with n_terms <= 4 * k/32 f32
// additions of terms bounded by sum |w x_q|, the difference is below
// 2 * n_terms * 2^-24 * sum |w x_q|; we allow 1e-6 * (k/32 + 8) * sum |w x_q| (about 2x that).
void ExpectSameAsGeneric(const KernelEntry* e, const KernelEntry* g, int64_t m, int64_t n,
                         int64_t k, uint32_t seed) {
  const Problem p = MakeProblem(e->encoding, m, n, k, seed);
  auto kernel = internal::CreateForEntry(e, n, k, p.w);
  auto reference = internal::CreateForEntry(g, n, k, p.w);
  ASSERT_TRUE(kernel.ok() && reference.ok());
  EXPECT_EQ((*kernel)->kernel_name(m), e->name);
  const std::vector<float> want = RunKernel(**reference, p, 1);
  std::vector<float> xq, half;
  for (int threads : {1, 2}) {
    const std::vector<float> got = RunKernel(**kernel, p, threads);
    int bad = 0;
    for (int64_t i = 0; i < m; ++i) {
      QuantizedActivations(p.enc, p.x.data() + i * p.x_stride, k, &xq, &half);
      for (int64_t j = 0; j < n; ++j) {
        double abs_sum = 0;
        for (int64_t l = 0; l < k; ++l) abs_sum += std::fabs(p.w_deq[j * k + l] * xq[l]);
        const double tol = 1e-6 * (k / 32 + 8) * abs_sum + 1e-7;
        const float a = got[i * (n + 1) + j], b = want[i * (n + 1) + j];
        if (!(std::fabs(a - b) <= tol) && ++bad < 5) {
          ADD_FAILURE() << e->name << " m=" << m << " n=" << n << " k=" << k
                        << " threads=" << threads << " y[" << i << "," << j << "] = " << a
                        << ", generic " << b << " (tolerance " << tol << ")";
        }
      }
      if (i + 1 < m) {
        EXPECT_EQ(got[i * (n + 1) + n], -12345.0f) << "wrote outside y";
      }
    }
    EXPECT_EQ(bad, 0);
  }
}

class KernelVsGenericTest : public ::testing::TestWithParam<const KernelEntry*> {};

TEST_P(KernelVsGenericTest, MatchesGeneric) {
  const KernelEntry* e = GetParam();
  if (!IsaSupported(e->isa)) {
    GTEST_SKIP() << e->name << " not run: this CPU lacks " << IsaName(e->isa);
  }
  const KernelEntry* g = GenericFor(e);
  ASSERT_NE(g, nullptr);
  const int64_t bk = EncodingBlockElems(e->encoding) == 1 ? 32 : EncodingBlockElems(e->encoding);
  std::mt19937 rng(std::hash<std::string>()(e->name));
  const bool gemv = e->shape == internal::Shape::kGemv;
  // Shapes: n not a multiple of any tile, k from one block to many.
  const int64_t ms_gemm[] = {2, 3, 4, 5, 8, 13, 67};
  const int64_t nblocks[] = {1, 2, 3, 5, 9, 16, 33};
  for (int round = 0; round < 6; ++round) {
    const int64_t m = gemv ? 1 : ms_gemm[(round + rng()) % 7];
    const int64_t n = 1 + rng() % 45;
    const int64_t k = bk * nblocks[(round + rng()) % (bk == 256 ? 4 : 7)];
    ExpectSameAsGeneric(e, g, m, n, k, static_cast<uint32_t>(rng()));
  }
}

// Past Run's parallel threshold (2^20 multiply-adds) the two threads split n in tile_n columns:
// n = 1037 (not a multiple of any tile), one GEMV or a 5-row GEMM.
TEST_P(KernelVsGenericTest, ThreadsSplitLargeProblems) {
  const KernelEntry* e = GetParam();
  if (!IsaSupported(e->isa)) {
    GTEST_SKIP() << e->name << " not run: this CPU lacks " << IsaName(e->isa);
  }
  const int64_t bk = EncodingBlockElems(e->encoding) == 256 ? 256 : 32;
  const int64_t m = e->shape == internal::Shape::kGemv ? 1 : 5, n = 1037;
  const int64_t k = bk == 256 ? 1024 : 1056;
  ASSERT_GE(m * n * k, int64_t{1} << 20);
  ExpectSameAsGeneric(e, GenericFor(e), m, n, k, 1037);
}

// Every GEMM row count from 1 to 67 (the tails of every activation-row tile size), n not a
// multiple of 16, an odd number of 32-value blocks. Rows are independent, so the generic result and
// the tolerances of 67 rows serve every m.
TEST_P(KernelVsGenericTest, EveryRowCount) {
  const KernelEntry* e = GetParam();
  if (!IsaSupported(e->isa)) {
    GTEST_SKIP() << e->name << " not run: this CPU lacks " << IsaName(e->isa);
  }
  if (e->shape != internal::Shape::kGemm) {
    GTEST_SKIP() << e->name << " is a GEMV kernel (m = 1 only; MatchesGeneric and "
                 << "ThreadsSplitLargeProblems run it)";
  }
  if (e->isa == Isa::kGeneric) GTEST_SKIP() << e->name << " is the reference itself";
  const int64_t bk = EncodingBlockElems(e->encoding) == 1 ? 32 : EncodingBlockElems(e->encoding);
  const int64_t n = 21, k = bk == 256 ? 512 : 3 * bk;
  Problem p = MakeProblem(e->encoding, 67, n, k, 67);
  auto kernel = internal::CreateForEntry(e, n, k, p.w);
  auto reference = internal::CreateForEntry(GenericFor(e), n, k, p.w);
  ASSERT_TRUE(kernel.ok() && reference.ok());
  const std::vector<float> want = RunKernel(**reference, p, 1);
  std::vector<double> tol(67 * n);
  std::vector<float> xq, half;
  for (int64_t i = 0; i < 67; ++i) {
    QuantizedActivations(p.enc, p.x.data() + i * p.x_stride, k, &xq, &half);
    for (int64_t j = 0; j < n; ++j) {
      double abs_sum = 0;
      for (int64_t l = 0; l < k; ++l) abs_sum += std::fabs(p.w_deq[j * k + l] * xq[l]);
      tol[i * n + j] = 1e-6 * (k / 32 + 8) * abs_sum + 1e-7;
    }
  }
  for (int64_t m = 1; m <= 67; ++m) {
    p.m = m;
    const std::vector<float> got = RunKernel(**kernel, p, m % 8 == 3 ? 2 : 1);
    int bad = 0;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const float a = got[i * (n + 1) + j], b = want[i * (n + 1) + j];
        if (!(std::fabs(a - b) <= tol[i * n + j]) && ++bad < 5) {
          ADD_FAILURE() << e->name << " m=" << m << " y[" << i << "," << j << "] = " << a
                        << ", generic " << b;
        }
      }
      if (i + 1 < m) {
        EXPECT_EQ(got[i * (n + 1) + n], -12345.0f) << "wrote outside y";
      }
    }
    EXPECT_EQ(bad, 0) << e->name << " m=" << m;
  }
}

// The tile tails, swept as XNNPACK's GEMM tester sweeps them: every m from 1 to 16 (twice the
// largest activation-row tile; m = 1 for GEMV kernels), n from 1 past three 16-row groups of the
// X16 layouts (and every 4-row group of the ARM kernels), k from one block to several. Rows are
// independent, so the generic result for 16 rows serves every m.
TEST_P(KernelVsGenericTest, TileTails) {
  const KernelEntry* e = GetParam();
  if (!IsaSupported(e->isa)) {
    GTEST_SKIP() << e->name << " not run: this CPU lacks " << IsaName(e->isa);
  }
  if (e->isa == Isa::kGeneric) GTEST_SKIP() << e->name << " is the reference itself";
  const int64_t bk = EncodingBlockElems(e->encoding) == 1 ? 32 : EncodingBlockElems(e->encoding);
  const int64_t max_m = e->shape == internal::Shape::kGemv ? 1 : 16;
  const std::vector<int64_t> ns = {1, 3, 4, 5, 8, 15, 16, 17, 33, 49};
  const std::vector<int64_t> kblocks =
      bk == 256 ? std::vector<int64_t>{1, 2, 3} : std::vector<int64_t>{1, 2, 3, 4, 5, 7};
  int runs = 0;
  for (int64_t n : ns) {
    for (int64_t nb : kblocks) {
      const int64_t k = nb * bk;
      Problem p = MakeProblem(e->encoding, max_m, n, k, static_cast<uint32_t>(n * 131 + nb));
      auto kernel = internal::CreateForEntry(e, n, k, p.w);
      auto reference = internal::CreateForEntry(GenericFor(e), n, k, p.w);
      ASSERT_TRUE(kernel.ok() && reference.ok());
      const std::vector<float> want = RunKernel(**reference, p, 1);
      std::vector<double> tol(max_m * n);
      std::vector<float> xq, half;
      for (int64_t i = 0; i < max_m; ++i) {
        QuantizedActivations(p.enc, p.x.data() + i * p.x_stride, k, &xq, &half);
        for (int64_t j = 0; j < n; ++j) {
          double abs_sum = 0;
          for (int64_t l = 0; l < k; ++l) abs_sum += std::fabs(p.w_deq[j * k + l] * xq[l]);
          tol[i * n + j] = 1e-6 * (k / 32 + 8) * abs_sum + 1e-7;
        }
      }
      for (int64_t m = 1; m <= max_m; ++m) {
        p.m = m;
        const std::vector<float> got = RunKernel(**kernel, p, 1);
        ++runs;
        int bad = 0;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            const float a = got[i * (n + 1) + j], b = want[i * (n + 1) + j];
            if (!(std::fabs(a - b) <= tol[i * n + j]) && ++bad < 3) {
              ADD_FAILURE() << e->name << " m=" << m << " n=" << n << " k=" << k << " y[" << i
                            << "," << j << "] = " << a << ", generic " << b;
            }
          }
          if (i + 1 < m) {
            EXPECT_EQ(got[i * (n + 1) + n], -12345.0f) << "wrote outside y";
          }
        }
        EXPECT_EQ(bad, 0) << e->name << " m=" << m << " n=" << n << " k=" << k;
      }
    }
  }
  EXPECT_EQ(runs, static_cast<int>(ns.size() * kblocks.size() * max_m));
}

// A kernel's own activation quantizer writes the same bytes as the portable one of its format, on
// Gaussian data of several magnitudes and on exact rounding ties.
TEST_P(KernelVsGenericTest, QuantizerMatchesPortable) {
  const KernelEntry* e = GetParam();
  if (!IsaSupported(e->isa)) {
    GTEST_SKIP() << e->name << " not run: this CPU lacks " << IsaName(e->isa);
  }
  const std::pair<internal::RowBytesFn, internal::QuantizeFn> kPortable[] = {
      {internal::Q8_0RowBytes, internal::QuantizeRowQ8_0},
      {internal::Q8_0SRowBytes, internal::QuantizeRowQ8_0S},
      {internal::Q8_1RowBytes, internal::QuantizeRowQ8_1},
      {internal::Q8_1SRowBytes, internal::QuantizeRowQ8_1S},
      {internal::Q8_KRowBytes, internal::QuantizeRowQ8_K},
      {internal::Q8_KTRowBytes, internal::QuantizeRowQ8_KT},
      {internal::Q8_KXRowBytes, internal::QuantizeRowQ8_KX}};
  internal::QuantizeFn portable = nullptr;
  for (const auto& [row_bytes, quantize] : kPortable) {
    if (e->act_row_bytes == row_bytes) portable = quantize;
  }
  if (e->quantize_pair != nullptr) {
    ASSERT_EQ(e->quantize, nullptr) << e->name << ": a pair kernel has no row quantizer";
    const internal::QuantizePairFn portable_pair =
        e->act_row_bytes == &internal::Q8_0PUnitBytes   ? internal::QuantizePairQ8_0P
        : e->act_row_bytes == &internal::Q8_1PUnitBytes ? internal::QuantizePairQ8_1P
                                                        : nullptr;
    ASSERT_NE(portable_pair, nullptr) << e->name << ": pair format without a portable quantizer";
    const int64_t k = 768;
    for (float scale : {1.0f, 1e-3f, 1e4f}) {
      std::vector<float> x = Gaussian(2 * k, static_cast<uint32_t>(scale * 10));
      for (float& v : x) v *= scale;
      for (int64_t l = 0; l < 64; ++l) x[l] = l % 32 == 0 ? 127.0f : (l % 7) - 3.5f;
      const float* const second_rows[] = {x.data() + k, nullptr};
      for (const float* x1 : second_rows) {
        std::vector<uint8_t> want(e->act_row_bytes(k), 0xAA), got(e->act_row_bytes(k), 0x55);
        portable_pair(x.data(), x1, k, want.data());
        e->quantize_pair(x.data(), x1, k, got.data());
        EXPECT_EQ(got, want) << e->name << " scale " << scale << (x1 ? "" : " (one row)");
      }
    }
    return;
  }
  if (e->quantize == nullptr) {
    GTEST_SKIP() << e->name << " takes f32 activations: it has no quantizer";
  }
  if (e->quantize == portable) {
    GTEST_SKIP() << e->name << " uses the portable quantizer itself";
  }
  ASSERT_NE(portable, nullptr) << e->name << ": activation format without a portable quantizer";
  const int64_t k = 768;
  for (float scale : {1.0f, 1e-3f, 1e4f}) {
    std::vector<float> x = Gaussian(k, static_cast<uint32_t>(scale * 10));
    for (float& v : x) v *= scale;
    // Ties: with a block maximum of 127 (and 127 * 2 = 254 for Q8_K's -127 / max), x / d is k +
    // 0.5.
    for (int64_t l = 0; l < 64; ++l) x[l] = l % 32 == 0 ? 127.0f : (l % 7) - 3.5f;
    for (int64_t l = 256; l < 320; ++l) x[l] = l % 64 == 0 ? -127.0f : (l % 5) - 2.5f;
    std::vector<uint8_t> want(e->act_row_bytes(k)), got(e->act_row_bytes(k));
    portable(x.data(), k, want.data());
    e->quantize(x.data(), k, got.data());
    EXPECT_EQ(got, want) << e->name << " scale " << scale;
  }
  // Many Gaussian rows (the kernels' tests' activations): every byte equal.
  const int64_t k2 = 1280;
  const std::vector<float> xs = Gaussian(64 * (k2 + 3), 4242);
  for (int r = 0; r < 64; ++r) {
    std::vector<uint8_t> want(e->act_row_bytes(k2)), got(e->act_row_bytes(k2));
    portable(xs.data() + r * (k2 + 3), k2, want.data());
    e->quantize(xs.data() + r * (k2 + 3), k2, got.data());
    for (size_t b = 0; b < want.size(); ++b) {
      if (got[b] != want[b]) {
        ADD_FAILURE() << e->name << " row " << r << " byte " << b << ": " << int(got[b])
                      << ", portable " << int(want[b]);
        break;
      }
    }
  }
}

// The pair layouts hold the Q8_0S / Q8_1S rows' values and scales, interleaved as kernel_api.h
// says; a missing second row is zeros.
TEST(ActivationPairsTest, InterleaveTheRowFormats) {
  const int64_t k = 96, nb = k / 32, nbp = internal::Q8_0SPaddedBlocks(k);
  std::vector<float> x = Gaussian(2 * k, 7);
  x[5] = 1e-40f;  // (a subnormal among normal values)
  std::vector<uint8_t> rows[2], pair0(internal::Q8_0PUnitBytes(k)),
      pair1(internal::Q8_1PUnitBytes(k)), one(internal::Q8_1PUnitBytes(k));
  ASSERT_EQ(pair0.size(), 3u * 80);
  ASSERT_EQ(pair1.size(), 3u * 96);
  for (int r = 0; r < 2; ++r) {
    rows[r].resize(internal::Q8_1SRowBytes(k));
    internal::QuantizeRowQ8_1S(x.data() + r * k, k, rows[r].data());
  }
  internal::QuantizePairQ8_0P(x.data(), x.data() + k, k, pair0.data());
  internal::QuantizePairQ8_1P(x.data(), x.data() + k, k, pair1.data());
  internal::QuantizePairQ8_1P(x.data(), nullptr, k, one.data());
  auto f32 = [](const uint8_t* p) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  };
  for (int64_t b = 0; b < nb; ++b) {
    for (int r = 0; r < 2; ++r) {
      const uint8_t* q8_0s = internal::Q8_1SQ8_0S(rows[r].data(), k);
      const float d = internal::Q8_0SD(q8_0s, nbp)[b], sv = internal::Q8_1SS(rows[r].data())[b];
      for (int h = 0; h < 4; ++h) {
        const int8_t* want = internal::Q8_0SQs(q8_0s) + 32 * b + 8 * h;
        EXPECT_EQ(0, std::memcmp(pair0.data() + 80 * b + 16 * h + 8 * r, want, 8)) << b << h << r;
        EXPECT_EQ(0, std::memcmp(pair1.data() + 96 * b + 16 * h + 8 * r, want, 8)) << b << h << r;
        const int8_t* got_one = reinterpret_cast<const int8_t*>(one.data() + 96 * b + 16 * h);
        for (int t = 0; t < 8; ++t) EXPECT_EQ(got_one[8 * r + t], r == 0 ? want[t] : 0);
      }
      for (int t = 0; t < 2; ++t) {
        EXPECT_EQ(f32(pair0.data() + 80 * b + 64 + 8 * r + 4 * t), d);
        EXPECT_EQ(f32(pair1.data() + 96 * b + 64 + 8 * r + 4 * t), d);
        EXPECT_EQ(f32(pair1.data() + 96 * b + 80 + 8 * r + 4 * t), sv);
        EXPECT_EQ(f32(one.data() + 96 * b + 64 + 8 * r + 4 * t), r == 0 ? d : 0.0f);
        EXPECT_EQ(f32(one.data() + 96 * b + 80 + 8 * r + 4 * t), r == 0 ? sv : 0.0f);
      }
      EXPECT_NE(d, 0.0f);
    }
  }
}

// Q8_KT holds Q8_K's blocks with every 64-value chunk's values in transposed 4-byte words.
TEST(ActivationPairsTest, Q8_KTTransposesQ8_KWords) {
  const int64_t k = 512;
  const std::vector<float> x = Gaussian(k, 9);
  std::vector<uint8_t> plain(internal::Q8_KRowBytes(k)), t(internal::Q8_KTRowBytes(k));
  ASSERT_EQ(plain.size(), t.size());
  internal::QuantizeRowQ8_K(x.data(), k, plain.data());
  internal::QuantizeRowQ8_KT(x.data(), k, t.data());
  const auto* p = reinterpret_cast<const blocks::BlockQ8_K*>(plain.data());
  const auto* q = reinterpret_cast<const blocks::BlockQ8_K*>(t.data());
  for (int b = 0; b < 2; ++b) {
    EXPECT_EQ(p[b].d, q[b].d);
    EXPECT_EQ(0, std::memcmp(p[b].bsums, q[b].bsums, sizeof(p[b].bsums)));
    for (int c = 0; c < 4; ++c) {
      for (int v = 0; v < 64; ++v) {
        const int g = v / 16, tt = v % 16 / 4, e = v % 4;
        EXPECT_EQ(q[b].qs[64 * c + 16 * tt + 4 * g + e], p[b].qs[64 * c + v]) << b << " " << c;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelVsGenericTest,
                         ::testing::ValuesIn(internal::AllKernels().begin(),
                                             internal::AllKernels().end()),
                         [](const ::testing::TestParamInfo<const KernelEntry*>& info) {
                           return std::string(info.param->name);
                         });

// On the same weight layout (X16), AVX-VNNI's vpdpbusd replaces AVX2's vpmaddubsw + vpmaddwd with
// the same exact int32 sums and the same f32 operations after them: the outputs are bit-identical.
TEST(AvxVnniTest, BitIdenticalToAvx2) {
  if (!IsaSupported(Isa::kAvxVnni)) GTEST_SKIP() << "this CPU lacks AVX-VNNI";
  int compared = 0;
  for (const KernelEntry* v : internal::AllKernels()) {
    if (v->isa != Isa::kAvxVnni) continue;
    const KernelEntry* a = nullptr;
    for (const KernelEntry* e : internal::AllKernels()) {
      if (e->isa == Isa::kAvx2 && e->encoding == v->encoding && e->shape == v->shape) a = e;
    }
    ASSERT_NE(a, nullptr) << v->name;
    ASSERT_EQ(a->repack, v->repack) << v->name << " and " << a->name << " share their layout";
    for (int64_t m : {1, 3, 8, 67}) {
      if ((v->shape == internal::Shape::kGemv) != (m == 1)) continue;
      const int64_t k = EncodingBlockElems(v->encoding) == 256 ? 256 * 3 : 32 * 11;
      const Problem p = MakeProblem(v->encoding, m, 37, k, static_cast<uint32_t>(m));
      auto kv = internal::CreateForEntry(v, p.n, p.k, p.w);
      auto ka = internal::CreateForEntry(a, p.n, p.k, p.w);
      ASSERT_TRUE(kv.ok() && ka.ok());
      ++compared;
      const std::vector<float> yv = RunKernel(**kv, p, 2), ya = RunKernel(**ka, p, 1);
      ASSERT_EQ(yv.size(), ya.size());
      EXPECT_EQ(0, std::memcmp(yv.data(), ya.data(), yv.size() * sizeof(float)))
          << v->name << " vs " << a->name << " m=" << m;
    }
  }
  // q4_0, q8_0, q4_k, q5_k, q6_k: GEMV at m = 1, GEMM at m = 3, 8, 67.
  EXPECT_EQ(compared, 20);
}

// ---- The ISA cap picks the kernel ----

TEST(QMatmulTest, CapSelectsKernels) {
  const Problem p = MakeProblem(Encoding::kQ4_0, 1, 8, 64, 3);
  // The kernels each cap selects on a CPU with every level of its architecture, stated outright
  // (levels share one scale: an ARM cap lets every x86 level through, and an x86 cap none of
  // ARM's). A row whose levels this CPU lacks is not checked (and says so).
  struct Row {
    Isa cap;
    const char* gemv;
    const char* gemm;
    Isa isa;    // QMatmulKernel::isa(): the higher of the two
    Isa needs;  // the highest level the row needs from the CPU
  };
#if defined(EDGEQ_KERNELS_X86)
  const Row rows[] = {
      {Isa::kGeneric, "q4_0_generic_gemv", "q4_0_generic_gemm", Isa::kGeneric, Isa::kGeneric},
      {Isa::kAvx2, "q4_0_avx2_gemv", "q4_0_avx2_gemm", Isa::kAvx2, Isa::kAvx2},
      {Isa::kAvxVnni, "q4_0_avxvnni_gemv", "q4_0_avxvnni_gemm", Isa::kAvxVnni, Isa::kAvxVnni},
      {Isa::kAvx512Vnni, "q4_0_avx512vnni_gemv", "q4_0_avx512vnni_gemm", Isa::kAvx512Vnni,
       Isa::kAvx512Vnni},
      {Isa::kNeon, "q4_0_avx512vnni_gemv", "q4_0_avx512vnni_gemm", Isa::kAvx512Vnni,
       Isa::kAvx512Vnni},
      {Isa::kNeonI8mm, "q4_0_avx512vnni_gemv", "q4_0_avx512vnni_gemm", Isa::kAvx512Vnni,
       Isa::kAvx512Vnni},
      {Isa::kBest, "q4_0_avx512vnni_gemv", "q4_0_avx512vnni_gemm", Isa::kAvx512Vnni,
       Isa::kAvx512Vnni},
  };
#elif defined(EDGEQ_KERNELS_ARM)
  const Row rows[] = {
      {Isa::kGeneric, "q4_0_generic_gemv", "q4_0_generic_gemm", Isa::kGeneric, Isa::kGeneric},
      {Isa::kAvx512Vnni, "q4_0_generic_gemv", "q4_0_generic_gemm", Isa::kGeneric, Isa::kGeneric},
      {Isa::kNeon, "q4_0_neon_gemv", "q4_0_neon_gemm", Isa::kNeon, Isa::kNeon},
      {Isa::kNeonDotprod, "q4_0_dotprod_gemv", "q4_0_dotprod_gemm", Isa::kNeonDotprod,
       Isa::kNeonDotprod},
      {Isa::kNeonI8mm, "q4_0_dotprod_gemv", "q4_0_i8mm_gemm", Isa::kNeonI8mm, Isa::kNeonI8mm},
      {Isa::kBest, "q4_0_dotprod_gemv", "q4_0_i8mm_gemm", Isa::kNeonI8mm, Isa::kNeonI8mm},
  };
#else
  const Row rows[] = {
      {Isa::kBest, "q4_0_generic_gemv", "q4_0_generic_gemm", Isa::kGeneric, Isa::kGeneric},
  };
#endif
  int checked = 0;
  for (const Row& r : rows) {
    if (!IsaSupported(r.needs)) {
      absl::FPrintF(stderr, "cap %s: not checked, this CPU lacks %s\n", IsaName(r.cap),
                    IsaName(r.needs));
      continue;
    }
    auto kernel = QMatmulKernel::Create("q4_0", p.n, p.k, p.w, r.cap);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_EQ((*kernel)->name(), r.gemv) << "cap " << IsaName(r.cap);
    EXPECT_EQ((*kernel)->kernel_name(1), r.gemv) << "cap " << IsaName(r.cap);
    EXPECT_EQ((*kernel)->kernel_name(4), r.gemm) << "cap " << IsaName(r.cap);
    EXPECT_EQ((*kernel)->isa(), r.isa) << "cap " << IsaName(r.cap);
    ExpectMatchesReference(p, RunKernel(**kernel, p, 1), absl::StrCat("cap ", IsaName(r.cap)));
    ++checked;
  }
  EXPECT_GE(checked, 1);  // the generic row always runs
#if defined(EDGEQ_KERNELS_X86)
  if (IsaSupported(Isa::kAvx2)) {
    auto k2 = QMatmulKernel::Create("q4_0", p.n, p.k, p.w, Isa::kAvx2);
    EXPECT_EQ((*k2)->name(), "q4_0_avx2_gemv");
    EXPECT_EQ((*k2)->kernel_name(2), "q4_0_avx2_gemm");
  }
#endif
#if defined(EDGEQ_KERNELS_ARM)
  if (IsaSupported(Isa::kNeonI8mm)) {
    auto k8 = QMatmulKernel::Create("q4_0", p.n, p.k, p.w);
    EXPECT_EQ((*k8)->name(), "q4_0_dotprod_gemv");
    EXPECT_EQ((*k8)->kernel_name(2), "q4_0_i8mm_gemm");
    // Every type with an i8mm GEMM: dotprod for m = 1 (no second activation row to share an
    // smmla), i8mm for m > 1, on one copy of the weights; both run against the reference.
    for (Encoding enc :
         {Encoding::kQ4_K, Encoding::kQ5_K, Encoding::kQ6_K, Encoding::kQ4_0, Encoding::kQ8_0,
          Encoding::kIq4Nl, Encoding::kQ5_0, Encoding::kQ4_1, Encoding::kQ5_1}) {
      const std::string name = EncodingName(enc);
      const Problem pk = MakeProblem(enc, 3, 5, 512, 11);
      auto kk = QMatmulKernel::Create(name, pk.n, pk.k, pk.w);
      ASSERT_TRUE(kk.ok()) << kk.status();
      EXPECT_EQ((*kk)->name(), name + "_dotprod_gemv");
      EXPECT_EQ((*kk)->kernel_name(1), name + "_dotprod_gemv");
      EXPECT_EQ((*kk)->kernel_name(2), name + "_i8mm_gemm");
      EXPECT_EQ((*kk)->isa(), Isa::kNeonI8mm);
      ExpectMatchesReference(pk, RunKernel(**kk, pk, 1), (*kk)->kernel_name(3).data());
      const Problem pk1 = MakeProblem(enc, 1, 5, 512, 11);  // same weights
      ExpectMatchesReference(pk1, RunKernel(**kk, pk1, 1), (*kk)->name().data());
    }
  }
#endif
  const Problem pg = MakeProblem(Encoding::kQ6_K, 1, 4, 256, 1);
  auto kg = QMatmulKernel::Create("q6_k", 4, 256, pg.w, Isa::kGeneric);
  EXPECT_EQ((*kg)->name(), "q6_k_generic_gemv");
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
