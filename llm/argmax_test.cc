#include "llm/argmax.h"

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace llm {
namespace {

int Expected(const std::vector<float>& v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(ArgMaxTest, SmallCases) {
  EXPECT_EQ(ArgMax({}), 0);
  EXPECT_EQ(ArgMax({3.0f}), 0);
  EXPECT_EQ(ArgMax({1.0f, 3.0f, 3.0f, 2.0f}), 1);  // the first of equal maxima
  EXPECT_EQ(ArgMax({kNaN, 5.0f, 7.0f}), 0);        // NaN first: max_element keeps it
  EXPECT_EQ(ArgMax({1.0f, kNaN, 0.5f, kNaN}), 0);  // later NaNs are passed over
  EXPECT_EQ(ArgMax({-0.0f, 0.0f}), 0);             // +0 == -0
  EXPECT_EQ(ArgMax({-kInf, -kInf}), 0);
  EXPECT_EQ(ArgMax({-kInf, kNaN, -kInf, kInf}), 3);
}

// Against std::max_element over every length up to 100 (the vector loops and their tails) and a
// vocabulary-sized row, with ties, infinities, signed zeros and NaNs mixed in.
TEST(ArgMaxTest, MatchesMaxElement) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> kind(0, 19), small(-3, 3);
  std::vector<int> sizes;
  for (int n = 1; n <= 100; ++n) sizes.push_back(n);
  sizes.push_back(151936);
  for (int round = 0; round < 20; ++round) {
    for (int n : sizes) {
      std::vector<float> v(n);
      for (float& x : v) {
        switch (kind(rng)) {
          case 0:
            x = kNaN;
            break;
          case 1:
            x = -kInf;
            break;
          case 2:
            x = (round % 5 == 0) ? kInf : -0.0f;
            break;
          case 3:
            x = 0.0f;
            break;
          default:
            x = static_cast<float>(small(rng)) + (round % 2 ? 0.0f : 0.25f * small(rng));
        }
      }
      ASSERT_EQ(ArgMax(v), Expected(v)) << "n=" << n << " round=" << round;
      v.back() = 1e30f;  // a maximum at the very end (unless +inf came before)
      ASSERT_EQ(ArgMax(v), Expected(v)) << "n=" << n << " round=" << round;
    }
  }
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
