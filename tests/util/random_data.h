// Seeded random data for tests and benchmarks (the same values on every machine and compiler that
// implement std::mt19937 and std::normal_distribution the same way: libstdc++ here).
#ifndef EDGEQ_TESTS_UTIL_RANDOM_DATA_H_
#define EDGEQ_TESTS_UTIL_RANDOM_DATA_H_

#include <cstdint>
#include <random>
#include <vector>

namespace edgeq {
namespace test_util {

// `count` draws of N(0, stddev^2) from std::mt19937(seed).
inline std::vector<float> Gaussian(int64_t count, uint32_t seed, float stddev = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, stddev);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& f : v) f = dist(rng);
  return v;
}

}  // namespace test_util
}  // namespace edgeq

#endif  // EDGEQ_TESTS_UTIL_RANDOM_DATA_H_
