// Stored repacked layouts (docs/stored_repack.md): QMatmulKernel::LayoutFor, WriteLayout and
// CreatePrepacked against Create's own repack.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace kernels {
namespace {

using internal::Encoding;
using internal::EncodingBlockElems;
using internal::EncodingName;
using test_util::MakeProblem;
using test_util::Problem;
using test_util::RunKernel;

const Encoding kEncodings[] = {Encoding::kQ4_0, Encoding::kQ8_0, Encoding::kQ4_K,
                               Encoding::kQ5_K, Encoding::kQ6_K, Encoding::kIq4Nl};

// For the best ISA of this CPU: the stored bytes are the repack's, and a kernel on them gives
// Create's results bit for bit (n = 37: a padded last row group), at m = 1 and m = 5.
TEST(StoredLayoutTest, PrepackedEqualsCreate) {
  int stored = 0;
  for (Encoding enc : kEncodings) {
    const std::string name = EncodingName(enc);
    SCOPED_TRACE(name);
    const int64_t k = EncodingBlockElems(enc) * 2;
    const Problem p = MakeProblem(enc, 5, 37, k, 3);
    const Problem p1 = MakeProblem(enc, 1, 37, k, 3);
    auto layout = QMatmulKernel::LayoutFor(name, p.n, k, BestSupportedIsa());
    ASSERT_TRUE(layout.ok()) << layout.status();
    auto plain = QMatmulKernel::Create(name, p.n, k, p.w);
    ASSERT_TRUE(plain.ok()) << plain.status();
    if (!layout->has_value()) {
      EXPECT_FALSE((*plain)->holds_weight_copy());
      continue;
    }
    const QMatmulKernel::StoredLayout& l = **layout;
    EXPECT_EQ(l.version, QMatmulKernel::kStoredLayoutVersion);
    EXPECT_EQ(l.isa, (*plain)->isa());
    // Create's copy: the same bytes in whole pages.
    EXPECT_GE((*plain)->copy_bytes(), l.bytes);
    EXPECT_LT((*plain)->copy_bytes() - l.bytes, 65536u);
    auto bytes = QMatmulKernel::WriteLayout(name, p.n, k, p.w, l);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    ASSERT_EQ(bytes->size(), l.bytes);
    // The layout's bytes are its entry's repack of the GGML rows (pad rows zero).
    const internal::KernelEntry* entry = test_util::FindKernelEntry(l.name);
    ASSERT_NE(entry, nullptr);
    std::vector<uint8_t> direct(l.bytes, 0);
    entry->repack(p.w.data(), p.n, k, direct.data());
    EXPECT_EQ(*bytes, direct);
    auto packed = QMatmulKernel::CreatePrepacked("w", name, p.n, k, l, *bytes);
    ASSERT_TRUE(packed.ok()) << packed.status();
    EXPECT_FALSE((*packed)->holds_weight_copy());
    EXPECT_EQ((*packed)->copy_bytes(), 0u);
    EXPECT_EQ((*packed)->kernel_name(1), (*plain)->kernel_name(1));
    EXPECT_EQ((*packed)->kernel_name(5), (*plain)->kernel_name(5));
    EXPECT_EQ(RunKernel(**packed, p, 2), RunKernel(**plain, p, 2));
    EXPECT_EQ(RunKernel(**packed, p1, 1), RunKernel(**plain, p1, 1));
    ++stored;
  }
#if defined(__x86_64__)
  if (IsaSupported(Isa::kAvx2)) {
    EXPECT_EQ(stored, 6);  // every x86 SIMD kernel repacks
  }
#endif
}

// Refusals, one line each naming the tensor, the layout and what is wrong; no kernel runs.
TEST(StoredLayoutTest, RefusesWhatDoesNotFit) {
  const Problem p = MakeProblem(Encoding::kQ4_0, 1, 32, 64, 5);
  auto layout = QMatmulKernel::LayoutFor("q4_0", p.n, p.k, BestSupportedIsa());
  ASSERT_TRUE(layout.ok()) << layout.status();
  if (!layout->has_value()) GTEST_SKIP() << "q4_0's best kernel here reads GGML blocks in place";
  const QMatmulKernel::StoredLayout good = **layout;
  auto bytes = QMatmulKernel::WriteLayout("q4_0", p.n, p.k, p.w, good);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const auto expect_error = [&](const QMatmulKernel::StoredLayout& l, size_t size,
                                absl::StatusCode code, const std::string& text) {
    auto k = QMatmulKernel::CreatePrepacked("blk.0.attn_q.weight", "q4_0", p.n, p.k, l,
                                            absl::MakeConstSpan(bytes->data(), size));
    ASSERT_FALSE(k.ok()) << text;
    EXPECT_EQ(k.status().code(), code) << k.status();
    EXPECT_EQ(std::string(k.status().message()),
              absl::StrCat("blk.0.attn_q.weight: layout ", l.name, text));
  };
  QMatmulKernel::StoredLayout old = good;
  old.version = QMatmulKernel::kStoredLayoutVersion + 1;
  expect_error(old, good.bytes, absl::StatusCode::kFailedPrecondition,
               absl::StrCat(" is version ", old.version, ", this edgeq reads version ",
                            QMatmulKernel::kStoredLayoutVersion,
                            "; reconvert with --repack=native or use the GGUF"));
  expect_error(good, good.bytes - 1, absl::StatusCode::kInvalidArgument,
               absl::StrCat(" [32, 64] needs ", good.bytes, " bytes, got ", good.bytes - 1));
  QMatmulKernel::StoredLayout unknown = good;
  unknown.name = "q4_0_avx1024_gemv";
  expect_error(unknown, good.bytes, absl::StatusCode::kFailedPrecondition,
               " is not a q4_0 layout of this build; reconvert with --repack=native or use the "
               "GGUF");
  // A level this CPU lacks (the other architecture's: never supported).
  QMatmulKernel::StoredLayout foreign = good;
  foreign.isa = BestSupportedIsa() == Isa::kNeonI8mm ? Isa::kAvx512Vnni : Isa::kNeonI8mm;
  expect_error(foreign, good.bytes, absl::StatusCode::kFailedPrecondition,
               absl::StrCat(" needs ", IsaName(foreign.isa),
                            ", which this CPU lacks; reconvert with --repack=native or use the "
                            "GGUF"));
  auto capped = QMatmulKernel::CreatePrepacked("w", "q4_0", p.n, p.k, good, *bytes, Isa::kGeneric);
  EXPECT_EQ(capped.status().code(), absl::StatusCode::kFailedPrecondition);
}

// Cross-writing: a layout for an ISA of this build that the CPU may lack is chosen by the table
// alone; an ISA with no kernels in this build is refused.
TEST(StoredLayoutTest, LayoutForOtherIsas) {
#if defined(__x86_64__)
  auto x16 = QMatmulKernel::LayoutFor("q4_k", 16, 256, Isa::kAvx512Vnni);
  ASSERT_TRUE(x16.ok()) << x16.status();
  ASSERT_TRUE(x16->has_value());
  EXPECT_EQ((*x16)->isa, Isa::kAvx512Vnni);
  auto arm = QMatmulKernel::LayoutFor("q4_k", 16, 256, Isa::kNeonDotprod);
#else
  auto arm = QMatmulKernel::LayoutFor("q4_k", 16, 256, Isa::kAvx2);
#endif
  EXPECT_EQ(arm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(arm.status().message().find("has no kernels in this build"), std::string::npos)
      << arm.status();
  EXPECT_FALSE(QMatmulKernel::LayoutFor("q4_k", 16, 300, BestSupportedIsa()).ok());
  EXPECT_FALSE(QMatmulKernel::LayoutFor("iq2_xxs", 16, 256, BestSupportedIsa()).ok());
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
