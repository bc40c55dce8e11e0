// A C++ consumer of the installed SDK (C API from C++), also using its own copy of Abseil when
// built with -DWITH_ABSL (the static archive must not clash with it).
#include <edgeq/edgeq.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#ifdef WITH_ABSL
#include "absl/strings/str_cat.h"
#endif

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const int64_t n = 8, k = 256;
  std::vector<float> w(n * k), x(k, 0.5f), y(n);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::cos(0.1f * i);
  size_t bytes = 0;
  if (edgeq_quantized_size("q4_k", n, k, &bytes) != EDGEQ_OK) return 1;
  std::vector<uint8_t> q(bytes);
  if (edgeq_quantize("q4_k", w.data(), n, k, q.data(), q.size()) != EDGEQ_OK ||
      edgeq_qmatmul("q4_k", q.data(), q.size(), n, k, x.data(), 1, y.data()) != EDGEQ_OK) {
    std::fprintf(stderr, "%s\n", edgeq_last_error());
    return 1;
  }
  edgeq_llm* llm = nullptr;
  if (edgeq_llm_load(argv[1], nullptr, &llm) != EDGEQ_OK) {
    std::fprintf(stderr, "%s\n", edgeq_last_error());
    return 1;
  }
  int32_t ids[32];
  size_t nt = 0, generated = 0;
  std::string text;
  auto cb = [](int32_t, const char* piece, void* user) {
    *static_cast<std::string*>(user) += piece;
    return 1;
  };
  if (edgeq_llm_tokenize(llm, "Once upon a time", 1, ids, 32, &nt) != EDGEQ_OK ||
      edgeq_llm_generate(llm, ids, nt, 12, nullptr, cb, &text, nullptr, 0, &generated) !=
          EDGEQ_OK) {
    std::fprintf(stderr, "%s\n", edgeq_last_error());
    return 1;
  }
  edgeq_llm_free(llm);
#ifdef WITH_ABSL
  text = absl::StrCat("c++ (with its own absl): ", text);
#endif
  std::printf("%s\nc++: q4_k %zu bytes, %zu tokens\n", text.c_str(), bytes, generated);
  return generated == 12 ? 0 : 1;
}
