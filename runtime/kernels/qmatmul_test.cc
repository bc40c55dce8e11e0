// The qmatmul API: Create's choice and checks, the ISA cap, repacking, the dispatch list, the
// activation formats. Every kernel's own tests are in kernel_test.cc.
#include "runtime/kernels/qmatmul.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/kernel_test_util.h"
#include "tests/util/random_data.h"

namespace edgeq {
namespace kernels {
namespace {

using internal::Encoding;
using internal::EncodingBlockElems;
using internal::EncodingName;
using internal::KernelEntry;
using test_util::ExpectMatchesReference;
using test_util::MakeProblem;
using test_util::Problem;
using test_util::RunKernel;

using edgeq::test_util::Gaussian;

// 64-byte aligned memory inside `buf` (64 bytes larger than needed).
void* AlignedScratch(std::vector<uint8_t>* buf) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(buf->data());
  return buf->data() + ((a + 63) / 64 * 64 - a);
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
        const std::string name =
            absl::StrCat(EncodingName(enc), "_generic_", m == 1 ? "gemv" : "gemm");
#if defined(__aarch64__)
        // The dispatcher leaves them out there (every CPU has NEON): run the entries directly.
        auto kernel = internal::CreateForEntry(test_util::FindKernelEntry(name), n, k, p.w);
#else
        auto kernel = QMatmulKernel::Create(EncodingName(enc), n, k, p.w, Isa::kGeneric);
#endif
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        EXPECT_EQ((*kernel)->isa(), Isa::kGeneric);
        EXPECT_EQ((*kernel)->kernel_name(m), name);
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

// Create on a pool of 2 threads, matrices under 8 MiB: repacked on the calling thread in chunks
// of 256 rows as without a pool, the same results.
TEST(QMatmulTest, RepackOnAPoolEqualsOneThread) {
  pthreadpool_t pool = pthreadpool_create(2);
  ASSERT_NE(pool, nullptr);
  for (Encoding enc : kAllEncodings) {
    const int64_t bk = EncodingBlockElems(enc) == 1 ? 32 : EncodingBlockElems(enc);
    for (int64_t n : {37, 513, 1100}) {
      SCOPED_TRACE(::testing::Message() << EncodingName(enc) << " n=" << n);
      const Problem p = MakeProblem(enc, 3, n, bk * 3, 12);
      std::vector<size_t> reads;
      auto kernel = QMatmulKernel::Create(
          EncodingName(enc), p.n, p.k, p.w, Isa::kBest,
          [&](const uint8_t*, size_t bytes) { reads.push_back(bytes); }, pool);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      auto plain = QMatmulKernel::Create(EncodingName(enc), p.n, p.k, p.w);
      ASSERT_TRUE(plain.ok()) << plain.status();
      if ((*kernel)->holds_weight_copy()) {
        // Under 8 MiB: on one thread, in chunks of 256 rows.
        EXPECT_EQ(reads.size(), static_cast<size_t>((n + 255) / 256));
        EXPECT_TRUE(std::is_sorted(reads.begin(), reads.end()));
        ASSERT_FALSE(reads.empty());
        EXPECT_EQ(reads.back(), p.w.size());
      }
      EXPECT_EQ(RunKernel(**kernel, p, 1), RunKernel(**plain, p, 1));
      const Problem p1 = MakeProblem(enc, 1, n, bk * 3, 12);
      EXPECT_EQ(RunKernel(**kernel, p1, 1), RunKernel(**plain, p1, 1));
    }
  }
  pthreadpool_destroy(pool);
}

// Rows of 17 KB (q8_0, k = 16384), 18.7 MB: waves of 512 rows (8 MiB / 17 KB floored to whole
// 256-row chunks, at least 256 per thread) shared by 2 threads, so 1100 rows take three, each
// reported once repacked, and the result is the one-thread kernel's.
TEST(QMatmulTest, PooledRepackInSeveralWaves) {
  pthreadpool_t pool = pthreadpool_create(2);
  ASSERT_NE(pool, nullptr);
  const Problem p = MakeProblem(Encoding::kQ8_0, 1, 1100, 16384, 13);
  std::vector<size_t> reads;
  auto kernel = QMatmulKernel::Create(
      "q8_0", p.n, p.k, p.w, Isa::kBest,
      [&](const uint8_t*, size_t bytes) { reads.push_back(bytes); }, pool);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto plain = QMatmulKernel::Create("q8_0", p.n, p.k, p.w);
  ASSERT_TRUE(plain.ok()) << plain.status();
  if ((*kernel)->holds_weight_copy()) {
    const size_t row = p.w.size() / 1100;
    EXPECT_EQ(reads, (std::vector<size_t>{512 * row, 1024 * row, 1100 * row}));
  }
  EXPECT_EQ(RunKernel(**kernel, p, 2), RunKernel(**plain, p, 2));
  pthreadpool_destroy(pool);
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

// RunBlocks over a stacked matrix of 3 blocks of 32 rows (one expert each): every block equals
// Run() of a kernel made from its rows alone, bit for bit, for one-row blocks sharing their
// activations and for blocks of 2 and 3 rows, on one thread and on two.
TEST(QMatmulTest, RunBlocksEqualsOneKernelPerBlock) {
  constexpr int64_t kRows = 32, kExperts = 3;
  pthreadpool_t pool = pthreadpool_create(2);
  ASSERT_NE(pool, nullptr);
  for (Encoding enc : kAllEncodings) {
    SCOPED_TRACE(EncodingName(enc));
    const int64_t bk = EncodingBlockElems(enc) == 1 ? 32 : EncodingBlockElems(enc);
    const Problem p = MakeProblem(enc, 3, kExperts * kRows, bk * 2, 17);
    auto stacked = QMatmulKernel::Create(EncodingName(enc), p.n, p.k, p.w);
    ASSERT_TRUE(stacked.ok()) << stacked.status();
    const size_t per = p.w.size() / kExperts;
    const float* x0 = p.x.data();
    const float* x1 = p.x.data() + p.x_stride;
    // (expert, m, x): experts 2 and 0 on row 0, expert 1 on rows 1-2, expert 2 on rows 0-2.
    const std::vector<std::tuple<int64_t, int64_t, const float*>> calls = {
        {2, 1, x0}, {0, 1, x0}, {1, 2, x1}, {2, 3, x0}};
    for (pthreadpool_t threads : {static_cast<pthreadpool_t>(nullptr), pool}) {
      const int64_t y_stride = kRows + 5;
      std::vector<float> got(4 * 3 * y_stride, -1.0f), want = got;
      std::vector<QMatmulKernel::Block> blocks;
      for (size_t c = 0; c < calls.size(); ++c) {
        const auto [e, m, x] = calls[c];
        blocks.push_back({e, m, x, got.data() + c * 3 * y_stride});
        auto one = QMatmulKernel::Create(
            EncodingName(enc), kRows, p.k,
            absl::MakeConstSpan(p.w).subspan(static_cast<size_t>(e) * per, per));
        ASSERT_TRUE(one.ok()) << one.status();
        std::vector<uint8_t> scratch((*one)->ScratchBytes(m) + 64);
        (*one)->Run(m, x, p.x_stride, want.data() + c * 3 * y_stride, y_stride,
                    AlignedScratch(&scratch), threads);
      }
      std::vector<uint8_t> scratch((*stacked)->BlocksScratchBytes(7, 4) + 64);
      (*stacked)->RunBlocks(kRows, blocks, p.x_stride, y_stride, AlignedScratch(&scratch), threads);
      EXPECT_EQ(got, want);
      // A wrong block (expert 0's rows for the first call) would differ.
      EXPECT_NE(
          std::vector<float>(got.begin(), got.begin() + kRows),
          std::vector<float>(want.begin() + 3 * y_stride, want.begin() + 3 * y_stride + kRows));
    }
  }
  pthreadpool_destroy(pool);
}

// RunBlocks over blocks of two stacked matrices of the same k (Block::matrix: a mixture of
// experts' gate and up projections in one dispatch), each expert's two blocks on the same rows:
// every block equals Run() of a kernel made from its own matrix's rows alone, bit for bit, when
// the encodings share the quantized activations (q4_k, q6_k) and when they do not (q4_0, q8_0).
TEST(QMatmulTest, RunBlocksReadsEachBlocksOwnMatrix) {
  constexpr int64_t kRows = 32, kExperts = 3, kK = 512;
  pthreadpool_t pool = pthreadpool_create(2);
  ASSERT_NE(pool, nullptr);
  for (const auto& [ea, eb] :
       {std::pair{Encoding::kQ4_K, Encoding::kQ6_K}, std::pair{Encoding::kQ4_0, Encoding::kQ8_0}}) {
    SCOPED_TRACE(absl::StrCat(EncodingName(ea), " + ", EncodingName(eb)));
    const Problem pa = MakeProblem(ea, 2, kExperts * kRows, kK, 23);
    const Problem pb = MakeProblem(eb, 2, kExperts * kRows, kK, 29);
    auto a = QMatmulKernel::Create(EncodingName(ea), pa.n, kK, pa.w);
    auto b = QMatmulKernel::Create(EncodingName(eb), pb.n, kK, pb.w);
    ASSERT_TRUE(a.ok() && b.ok());
    const float* x0 = pa.x.data();
    const float* x1 = pa.x.data() + pa.x_stride;
    // (matrix, expert, m, x): expert 2 on row 0, 0 on row 1, 1 on rows 0-1; gate then up.
    const std::vector<std::tuple<const Problem*, int64_t, int64_t, const float*>> calls = {
        {&pa, 2, 1, x0}, {&pb, 2, 1, x0}, {&pa, 0, 1, x1},
        {&pb, 0, 1, x1}, {&pa, 1, 2, x0}, {&pb, 1, 2, x0}};
    for (pthreadpool_t threads : {static_cast<pthreadpool_t>(nullptr), pool}) {
      const int64_t y_stride = kRows + 3;
      std::vector<float> got(calls.size() * 2 * y_stride, -1.0f), want = got;
      std::vector<QMatmulKernel::Block> blocks;
      for (size_t c = 0; c < calls.size(); ++c) {
        const auto [p, e, m, x] = calls[c];
        const QMatmulKernel* matrix = p == &pb ? b->get() : nullptr;
        blocks.push_back({e, m, x, got.data() + c * 2 * y_stride, matrix});
        const size_t per = p->w.size() / kExperts;
        auto one = QMatmulKernel::Create(
            EncodingName(p->enc), kRows, kK,
            absl::MakeConstSpan(p->w).subspan(static_cast<size_t>(e) * per, per));
        ASSERT_TRUE(one.ok()) << one.status();
        std::vector<uint8_t> scratch((*one)->ScratchBytes(m) + 64);
        (*one)->Run(m, x, pa.x_stride, want.data() + c * 2 * y_stride, y_stride,
                    AlignedScratch(&scratch), threads);
      }
      std::vector<uint8_t> scratch(
          std::max((*a)->BlocksScratchBytes(8, 6), (*b)->BlocksScratchBytes(8, 6)) + 64);
      (*a)->RunBlocks(kRows, blocks, pa.x_stride, y_stride, AlignedScratch(&scratch), threads);
      EXPECT_EQ(got, want);
      // The two matrices give different rows (the test tells them apart).
      EXPECT_NE(std::vector<float>(got.begin(), got.begin() + kRows),
                std::vector<float>(got.begin() + 2 * y_stride, got.begin() + 2 * y_stride + kRows));
    }
  }
  pthreadpool_destroy(pool);
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

// The dispatch list is kernels.bzl's table as kernel_list.inc lists it: one entry per row and
// shape, each with the encoding, ISA and shape of its row and the name "<encoding>_<isa>_<shape>"
// (a kernel file whose entry disagrees with its row fails here; a file without a row fails the
// build, in kernels.bzl), an ISA of this architecture, and activations in the format the block
// formats' table pairs its encoding with. Every encoding has a generic GEMV and GEMM, so Create
// never lacks a kernel for a known encoding.
TEST(QMatmulTest, DispatchListHoldsEveryKernel) {
  struct Row {
    const char* encoding;
    const char* isa;
    const char* shape;
  };
  const Row table[] = {
#define EDGEQ_KERNEL(symbol, encoding, isa, shape) {#encoding, #isa, #shape},
#include "runtime/kernels/internal/kernel_list.inc"
#undef EDGEQ_KERNEL
  };
#if defined(__x86_64__)
  const std::set<Isa> arch_levels = {Isa::kGeneric, Isa::kAvx2, Isa::kAvxVnni, Isa::kAvx512Vnni};
#elif defined(__aarch64__)
  const std::set<Isa> arch_levels = {Isa::kGeneric, Isa::kNeon, Isa::kNeonDotprod, Isa::kNeonI8mm};
#else
  const std::set<Isa> arch_levels = {Isa::kGeneric};
#endif
  const absl::Span<const KernelEntry* const> all = internal::AllKernels();
  ASSERT_EQ(all.size(), sizeof(table) / sizeof(table[0]));
  std::set<std::string> got;
  for (size_t i = 0; i < all.size(); ++i) {
    const KernelEntry* e = all[i];
    const std::string name = e->name;
    const std::string row = absl::StrCat(table[i].encoding, "_", table[i].isa, "_", table[i].shape);
    EXPECT_EQ(name, row) << "the entry of row " << row << " has another name";
    EXPECT_EQ(EncodingName(e->encoding), absl::string_view(table[i].encoding)) << row;
    EXPECT_EQ(IsaName(e->isa), table[i].isa) << row;
    EXPECT_STREQ(e->shape == internal::Shape::kGemv ? "gemv" : "gemm", table[i].shape) << row;
    EXPECT_TRUE(got.insert(name).second) << name << " is listed twice";
    EXPECT_EQ(arch_levels.count(e->isa), 1u) << name << ": an ISA of another architecture";
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
  for (const blocks::BlockFormat& f : blocks::kBlockFormats) {
    for (const char* shape : {"_gemv", "_gemm"}) {
      const std::string generic = absl::StrCat(f.name, "_generic", shape);
      EXPECT_EQ(got.count(generic), 1u) << generic << " is missing from kernels.bzl";
    }
  }
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
#if defined(__x86_64__)
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
#elif defined(__aarch64__)
  // Every AArch64 CPU has NEON: the dispatcher has no generic q4_0 entries, a lower cap runs NEON.
  const Row rows[] = {
      {Isa::kGeneric, "q4_0_neon_gemv", "q4_0_neon_gemm", Isa::kNeon, Isa::kNeon},
      {Isa::kAvx512Vnni, "q4_0_neon_gemv", "q4_0_neon_gemm", Isa::kNeon, Isa::kNeon},
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
#if defined(__x86_64__)
  if (IsaSupported(Isa::kAvx2)) {
    auto k2 = QMatmulKernel::Create("q4_0", p.n, p.k, p.w, Isa::kAvx2);
    EXPECT_EQ((*k2)->name(), "q4_0_avx2_gemv");
    EXPECT_EQ((*k2)->kernel_name(2), "q4_0_avx2_gemm");
  }
#endif
#if defined(__aarch64__)
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
#if defined(__aarch64__)
  EXPECT_EQ((*kg)->name(), "q6_k_neon_gemv");
#else
  EXPECT_EQ((*kg)->name(), "q6_k_generic_gemv");
#endif
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
