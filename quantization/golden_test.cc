// Bit-exactness against GGML's reference codecs (ggml d99724f, built with -ffp-contract=off),
// using the golden vectors in tests/testdata/golden/ (see the README there):
//   <enc>.input.f32    the f32 inputs (little endian)
//   <enc>.quant.bin    GGML's quantized bytes
//   <enc>.dequant.f32  GGML's dequantization of those bytes
//   <enc>.cases.txt    "name first_block num_blocks" per case; "ub_blocks i j ..." lists the blocks
//                      where GGML's C code is undefined, "stale_blocks i j ..." those whose bytes
//                      GGML leaves unwritten (both compared by dequantized value only).
// iq4_nl_ref.*: GGML's quantize_row_iq4_nl_ref, which differs from the quantizer of the iq4_nl
// encoding (GGML's quantize_iq4_nl, what llama-quantize runs).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "quantization/block_layout.h"
#include "quantization/encoding.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace {

std::string GoldenPath(const std::string& file) { return "tests/testdata/golden/" + file; }

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<float> ReadFloats(const std::string& path) {
  const std::vector<uint8_t> bytes = ReadBytes(path);
  EXPECT_EQ(bytes.size() % 4, 0u) << path;
  std::vector<float> f(bytes.size() / 4);
  if (!f.empty()) std::memcpy(f.data(), bytes.data(), f.size() * 4);
  return f;
}

struct Case {
  std::string name;
  int64_t first_block;
  int64_t num_blocks;
};

struct Cases {
  std::vector<Case> cases;
  std::set<int64_t> ub_blocks;
};

Cases ReadCases(const std::string& path) {
  Cases c;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string name;
    if (!(ls >> name) || name[0] == '#') continue;
    if (name == "assert_blocks")
      continue;  // K-quant blocks that trip GGML's asserts: still
                 // compared byte for byte (release-build bytes)
    if (name == "ub_blocks" || name == "stale_blocks") {
      int64_t b;
      while (ls >> b) c.ub_blocks.insert(b);
      continue;
    }
    Case k{name, 0, 0};
    ls >> k.first_block >> k.num_blocks;
    c.cases.push_back(k);
  }
  return c;
}

std::string CaseOf(const Cases& c, int64_t block) {
  for (const Case& k : c.cases) {
    if (block >= k.first_block && block < k.first_block + k.num_blocks) return k.name;
  }
  return "?";
}

// Bit-equal, except that any NaN equals any NaN.
bool SameFloat(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return blocks::FloatBits(a) == blocks::FloatBits(b);
}

// Checks golden set `name` against encoding `encoding_name`'s codec, or, if `quantize_row` is set,
// against that row quantizer (and the encoding's dequantizer).
void CheckGolden(const std::string& name, const std::string& encoding_name,
                 void (*quantize_row)(const float*, uint8_t*, int64_t) = nullptr) {
  absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding(encoding_name);
  ASSERT_TRUE(enc.ok()) << enc.status();
  const BlockParameters bp = (*enc)->block_parameters();

  const std::vector<float> input = ReadFloats(GoldenPath(name + ".input.f32"));
  const std::vector<uint8_t> quant = ReadBytes(GoldenPath(name + ".quant.bin"));
  const std::vector<float> dequant = ReadFloats(GoldenPath(name + ".dequant.f32"));
  const Cases cases = ReadCases(GoldenPath(name + ".cases.txt"));
  ASSERT_FALSE(input.empty());
  ASSERT_EQ(input.size() % bp.elements_per_block, 0u);
  const int64_t nb = static_cast<int64_t>(input.size()) / bp.elements_per_block;
  ASSERT_EQ(static_cast<int64_t>(quant.size()), nb * bp.block_size);
  ASSERT_EQ(dequant.size(), input.size());
  ASSERT_FALSE(cases.cases.empty());

  // Quantize all blocks as one run (the row codec; the inputs include Inf/NaN for bf16, which
  // Quantize() refuses by design).
  std::vector<uint8_t> ours(quant.size());
  if (quantize_row != nullptr) {
    quantize_row(input.data(), ours.data(), static_cast<int64_t>(input.size()));
  } else {
    (*enc)->QuantizeRow(input.data(), ours.data(), static_cast<int64_t>(input.size()));
  }
  std::vector<float> ours_decoded(input.size());
  (*enc)->DequantizeRow(ours.data(), ours_decoded.data(), static_cast<int64_t>(input.size()));
  std::vector<float> golden_decoded(input.size());
  (*enc)->DequantizeRow(quant.data(), golden_decoded.data(), static_cast<int64_t>(input.size()));

  int failures = 0;
  int ub_checked = 0;
  for (int64_t b = 0; b < nb && failures < 10; ++b) {
    const int64_t e0 = b * bp.elements_per_block;
    if (cases.ub_blocks.count(b) > 0) {
      // Undefined in GGML: compare what the block decodes to (+0 == -0).
      ++ub_checked;
      for (int64_t e = e0; e < e0 + bp.elements_per_block; ++e) {
        if (!(ours_decoded[e] == dequant[e])) {
          ADD_FAILURE() << absl::StrFormat("%s UB block %d (%s) element %d: ours %g, GGML %g", name,
                                           b, CaseOf(cases, b), e, ours_decoded[e], dequant[e]);
          ++failures;
          break;
        }
      }
      continue;
    }
    const int64_t o = b * bp.block_size;
    if (std::memcmp(ours.data() + o, quant.data() + o, bp.block_size) != 0) {
      std::string diff;
      for (int64_t k = 0; k < bp.block_size; ++k) {
        if (ours[o + k] != quant[o + k]) {
          diff += absl::StrFormat(" byte %d: ours %02x GGML %02x;", k, ours[o + k], quant[o + k]);
          if (diff.size() > 200) break;
        }
      }
      ADD_FAILURE() << absl::StrFormat("%s block %d (%s) differs:%s", name, b, CaseOf(cases, b),
                                       diff);
      ++failures;
    }
    for (int64_t e = e0; e < e0 + bp.elements_per_block; ++e) {
      if (!SameFloat(golden_decoded[e], dequant[e])) {
        ADD_FAILURE() << absl::StrFormat(
            "%s block %d (%s) element %d: our dequantization of GGML's bytes gives %g (%08x), "
            "GGML %g (%08x)",
            name, b, CaseOf(cases, b), e, golden_decoded[e], blocks::FloatBits(golden_decoded[e]),
            dequant[e], blocks::FloatBits(dequant[e]));
        ++failures;
        break;
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(ub_checked, static_cast<int>(cases.ub_blocks.size()));
}

class GoldenTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenTest, MatchesGgmlBitForBit) { CheckGolden(GetParam(), GetParam()); }

// GGML's quantize_row_iq4_nl_ref (no scale search), decoded by the iq4_nl codec.
TEST(GoldenTest, Iq4NlRefQuantizerMatchesGgmlBitForBit) {
  CheckGolden("iq4_nl_ref", "iq4_nl", quantization_internal::QuantizeRowIq4NlRef);
}

INSTANTIATE_TEST_SUITE_P(AllEncodings, GoldenTest,
                         ::testing::Values("q4_0", "q8_0", "q4_k", "q5_k", "q6_k", "bf16", "q4_1",
                                           "q5_0", "q5_1", "iq4_nl", "f16", "q2_k", "q3_k",
                                           "iq4_xs"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace edgeq
