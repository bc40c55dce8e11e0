#include "llm/embed_testing.h"

#include <cmath>
#include <fstream>

#include "gtest/gtest.h"

namespace edgeq {
namespace llm {

std::vector<int> ReadTokenIds(const std::string& path) {
  std::ifstream in(path);
  std::vector<int> ids;
  for (int t; in >> t;) ids.push_back(t);
  return ids;
}

std::vector<float> ReadF32Golden(const std::string& path, int n) {
  std::ifstream in(path, std::ios::binary);
  std::vector<float> v(n);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  EXPECT_TRUE(in.good()) << path;
  return v;
}

double Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += static_cast<double>(a[i]) * b[i];
    aa += static_cast<double>(a[i]) * a[i];
    bb += static_cast<double>(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

}  // namespace llm
}  // namespace edgeq
