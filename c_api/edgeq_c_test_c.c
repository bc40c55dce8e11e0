/* The C API used from a C99 program: quantize, qmatmul, and (when a model path is given as
 * argv[1]) greedy generation. Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edgeq/edgeq.h"

#define CHECK(call)                                                                 \
  do {                                                                              \
    edgeq_status s_ = (call);                                                       \
    if (s_ != EDGEQ_OK) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, edgeq_status_name(s_), \
              edgeq_last_error());                                                  \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

static int on_token(int32_t token, const char* piece, void* user) {
  (void)token;
  fputs(piece, stdout);
  ++*(int*)user;
  return 1;
}

int main(int argc, char** argv) {
  enum { N = 8, K = 64, M = 2 };
  float w[N * K], x[M * K], wd[N * K], y[M * N];
  uint8_t q[N * K * 2];
  size_t bytes = 0;
  int i, j, l;
  printf("edgeq %s, isa %s, %zu encodings\n", edgeq_version(), edgeq_best_isa(),
         edgeq_encoding_count());
  for (i = 0; i < N * K; ++i) w[i] = (float)sin(0.3 * i);
  for (i = 0; i < M * K; ++i) x[i] = (float)cos(0.2 * i);
  CHECK(edgeq_quantized_size("q8_0", N, K, &bytes));
  if (bytes != (size_t)N * K / 32 * 34) return 2;
  CHECK(edgeq_quantize("q8_0", w, N, K, q, sizeof(q)));
  CHECK(edgeq_dequantize("q8_0", q, bytes, N, K, wd));
  CHECK(edgeq_qmatmul("q8_0", q, bytes, N, K, x, M, y));
  for (i = 0; i < M; ++i) {
    for (j = 0; j < N; ++j) {
      double ref = 0;
      for (l = 0; l < K; ++l) ref += (double)x[i * K + l] * wd[j * K + l];
      if (fabs(y[i * N + j] - ref) > 0.05 + 0.01 * fabs(ref)) {
        fprintf(stderr, "y[%d,%d] = %f, want %f\n", i, j, y[i * N + j], ref);
        return 3;
      }
    }
  }
  if (edgeq_quantize("nope", w, N, K, q, sizeof(q)) != EDGEQ_ERROR_NOT_FOUND) return 4;
  if (strstr(edgeq_last_error(), "nope") == NULL) return 5;
  if (argc > 1) {
    edgeq_llm* llm = NULL;
    int32_t ids[64];
    size_t n = 0, generated = 0;
    int seen = 0;
    CHECK(edgeq_llm_load(argv[1], NULL, &llm));
    CHECK(edgeq_llm_tokenize(llm, "Once upon a time", 1, ids, 64, &n));
    CHECK(edgeq_llm_generate(llm, ids, n, 16, NULL, on_token, &seen, NULL, 0, &generated));
    printf("\n%zu tokens generated\n", generated);
    edgeq_llm_free(llm);
    if (generated == 0 || seen == 0) return 6;
  }
  printf("ok\n");
  return 0;
}
