/* A C consumer of the installed SDK: quantize a tensor, run a qmatmul, generate tokens.
 *   consumer MODEL.gguf */
#include <math.h>
#include <stdio.h>

#include <edgeq/edgeq.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    edgeq_status s_ = (call);                                                        \
    if (s_ != EDGEQ_OK) {                                                            \
      fprintf(stderr, "%s failed: %s\n", #call, edgeq_last_error());                 \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

static int print_piece(int32_t token, const char* piece, void* user) {
  (void)token;
  (void)user;
  fputs(piece, stdout);
  return 1;
}

int main(int argc, char** argv) {
  enum { N = 4, K = 32 };
  float w[N * K], x[K], y[N], wd[N * K];
  uint8_t q[N * 18];
  size_t bytes = 0, n = 0, generated = 0;
  int32_t ids[32];
  edgeq_llm* llm = NULL;
  int i, j;
  if (argc != 2) {
    fprintf(stderr, "usage: consumer MODEL.gguf\n");
    return 2;
  }
  for (i = 0; i < N * K; ++i) w[i] = (float)sin(i);
  for (i = 0; i < K; ++i) x[i] = 1.0f;
  CHECK(edgeq_quantized_size("q4_0", N, K, &bytes));
  CHECK(edgeq_quantize("q4_0", w, N, K, q, bytes));
  CHECK(edgeq_dequantize("q4_0", q, bytes, N, K, wd));
  CHECK(edgeq_qmatmul("q4_0", q, bytes, N, K, x, 1, y));
  for (j = 0; j < N; ++j) {
    double ref = 0;
    for (i = 0; i < K; ++i) ref += wd[j * K + i];
    if (fabs(y[j] - ref) > 0.05 + 0.01 * fabs(ref)) {
      fprintf(stderr, "qmatmul y[%d] = %f, want %f\n", j, y[j], ref);
      return 1;
    }
  }
  printf("c: edgeq %s, q4_0 %zu bytes, y[0] %.4f\n", edgeq_version(), bytes, y[0]);
  CHECK(edgeq_llm_load(argv[1], NULL, &llm));
  CHECK(edgeq_llm_tokenize(llm, "Once upon a time", 1, ids, 32, &n));
  CHECK(edgeq_llm_generate(llm, ids, n, 12, NULL, print_piece, NULL, NULL, 0, &generated));
  printf("\nc: %zu tokens\n", generated);
  edgeq_llm_free(llm);
  return generated == 12 ? 0 : 1;
}
