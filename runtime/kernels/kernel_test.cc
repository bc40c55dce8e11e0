// Every compiled qmatmul kernel (kernels.bzl's table, generic ones included) against the
// independent double-precision reference of kernel_test_util.h: random shapes, past the
// parallel threshold, every GEMM row count, the tile tails; and its activation quantizer against
// the portable one, byte for byte.
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/qmatmul.h"
#include "tests/util/random_data.h"

namespace edgeq {
namespace kernels {
namespace {

using internal::EncodingBlockElems;
using internal::KernelEntry;
using test_util::ComputeReference;
using test_util::ExpectMatchesReference;
using test_util::MakeProblem;
using test_util::Problem;
using test_util::Reference;
using test_util::RunKernel;

using edgeq::test_util::Gaussian;

// Runs entry e on a problem of m x n x k with 1 and 2 threads against the reference.
void ExpectKernelMatchesReference(const KernelEntry* e, int64_t m, int64_t n, int64_t k,
                                  uint32_t seed) {
  const Problem p = MakeProblem(e->encoding, m, n, k, seed);
  auto kernel = internal::CreateForEntry(e, n, k, p.w);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ((*kernel)->kernel_name(m), e->name);
  const Reference ref = ComputeReference(p);
  for (int threads : {1, 2}) {
    ExpectMatchesReference(p, ref, RunKernel(**kernel, p, threads),
                           absl::StrCat(e->name, " threads=", threads));
  }
}

class KernelTest : public ::testing::TestWithParam<const KernelEntry*> {};

// Shapes: n not a multiple of any tile, k from one block to many, m = 1 (GEMV) or several.
TEST_P(KernelTest, MatchesReference) {
  const KernelEntry* e = GetParam();
  if (!IsaSupported(e->isa)) {
    GTEST_SKIP() << e->name << " not run: this CPU lacks " << IsaName(e->isa);
  }
  const int64_t bk = EncodingBlockElems(e->encoding) == 1 ? 32 : EncodingBlockElems(e->encoding);
  std::mt19937 rng(std::hash<std::string>()(e->name));
  const bool gemv = e->shape == internal::Shape::kGemv;
  const int64_t ms_gemm[] = {2, 3, 4, 5, 8, 13, 67};
  const int64_t nblocks[] = {1, 2, 3, 5, 9, 16, 33};
  for (int round = 0; round < 6; ++round) {
    const int64_t m = gemv ? 1 : ms_gemm[(round + rng()) % 7];
    const int64_t n = 1 + rng() % 45;
    const int64_t k = bk * nblocks[(round + rng()) % (bk == 256 ? 4 : 7)];
    ExpectKernelMatchesReference(e, m, n, k, static_cast<uint32_t>(rng()));
  }
}

// Past Run's parallel threshold (2^20 multiply-adds) the two threads split n in tile_n columns:
// n = 1037 (not a multiple of any tile), one GEMV or a 5-row GEMM.
TEST_P(KernelTest, ThreadsSplitLargeProblems) {
  const KernelEntry* e = GetParam();
  if (!IsaSupported(e->isa)) {
    GTEST_SKIP() << e->name << " not run: this CPU lacks " << IsaName(e->isa);
  }
  const int64_t bk = EncodingBlockElems(e->encoding) == 256 ? 256 : 32;
  const int64_t m = e->shape == internal::Shape::kGemv ? 1 : 5, n = 1037;
  const int64_t k = bk == 256 ? 1024 : 1056;
  ASSERT_GE(m * n * k, int64_t{1} << 20);
  ExpectKernelMatchesReference(e, m, n, k, 1037);
}

// Every GEMM row count from 1 to 67 (the tails of every activation-row tile size), n not a
// multiple of 16, an odd number of 32-value blocks. Rows are independent, so the reference of 67
// rows serves every m.
TEST_P(KernelTest, EveryRowCount) {
  const KernelEntry* e = GetParam();
  if (!IsaSupported(e->isa)) {
    GTEST_SKIP() << e->name << " not run: this CPU lacks " << IsaName(e->isa);
  }
  if (e->shape != internal::Shape::kGemm) {
    GTEST_SKIP() << e->name << " is a GEMV kernel (m = 1 only; MatchesReference and "
                 << "ThreadsSplitLargeProblems run it)";
  }
  const int64_t bk = EncodingBlockElems(e->encoding) == 1 ? 32 : EncodingBlockElems(e->encoding);
  const int64_t n = 21, k = bk == 256 ? 512 : 3 * bk;
  Problem p = MakeProblem(e->encoding, 67, n, k, 67);
  auto kernel = internal::CreateForEntry(e, n, k, p.w);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const Reference ref = ComputeReference(p);
  for (int64_t m = 1; m <= 67; ++m) {
    p.m = m;
    ExpectMatchesReference(p, ref, RunKernel(**kernel, p, m % 8 == 3 ? 2 : 1), e->name);
  }
}

// The tile tails, swept as XNNPACK's GEMM tester sweeps them: every m from 1 to 16 (twice the
// largest activation-row tile; m = 1 for GEMV kernels), n from 1 past three 16-row groups of the
// X16 layouts (and every 4-row group of the ARM kernels), k from one block to several. Rows are
// independent, so the reference of 16 rows serves every m.
TEST_P(KernelTest, TileTails) {
  const KernelEntry* e = GetParam();
  if (!IsaSupported(e->isa)) {
    GTEST_SKIP() << e->name << " not run: this CPU lacks " << IsaName(e->isa);
  }
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
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      const Reference ref = ComputeReference(p);
      for (int64_t m = 1; m <= max_m; ++m) {
        p.m = m;
        ExpectMatchesReference(p, ref, RunKernel(**kernel, p, 1), e->name);
        ++runs;
      }
    }
  }
  EXPECT_EQ(runs, static_cast<int>(ns.size() * kblocks.size() * max_m));
}

// A kernel's own activation quantizer writes the same bytes as the portable one of its format, on
// Gaussian data of several magnitudes and on exact rounding ties.
TEST_P(KernelTest, QuantizerMatchesPortable) {
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

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelTest,
                         ::testing::ValuesIn(internal::AllKernels().begin(),
                                             internal::AllKernels().end()),
                         [](const ::testing::TestParamInfo<const KernelEntry*>& info) {
                           return std::string(info.param->name);
                         });

// On the same weight layout (X16), AVX-VNNI's vpdpbusd replaces AVX2's vpmaddubsw + vpmaddwd with
// the same exact int32 sums and the same f32 operations after them: the outputs are bit-identical.
TEST(AvxVnniTest, BitIdenticalToAvx2) {
  if (!IsaSupported(Isa::kAvxVnni)) GTEST_SKIP() << "this CPU lacks AVX-VNNI";
  int compared = 0, expected = 0;
  for (const KernelEntry* v : internal::AllKernels()) {
    if (v->isa != Isa::kAvxVnni) continue;
    expected += v->shape == internal::Shape::kGemv ? 1 : 3;
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
  // Every AVX-VNNI entry of the table: GEMV at m = 1, GEMM at m = 3, 8, 67.
  EXPECT_GT(compared, 0);
  EXPECT_EQ(compared, expected);
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
