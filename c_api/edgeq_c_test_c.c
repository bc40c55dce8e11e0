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
  {
    /* The seed's qmatmul graph: y = x . Q4_0(w)^T through a graph, a session and a model. */
    edgeq_tensor_type in = {"f32", 2, {M, K}};
    int64_t wshape[2] = {N, K};
    edgeq_graph* g = NULL;
    edgeq_session* session = NULL;
    edgeq_model* model = NULL;
    edgeq_value x0, qw, out;
    float yg[M * N];
    const void* inputs[1];
    void* outputs[1];
    inputs[0] = x;
    outputs[0] = yg;
    CHECK(edgeq_graph_create("qmatmul", &in, 1, &g));
    CHECK(edgeq_graph_input(g, 0, &x0));
    CHECK(edgeq_graph_quantize(g, "q8_0", w, 2, wshape, &qw));
    CHECK(edgeq_graph_qmatmul(g, "q8_0", x0, qw, &out));
    CHECK(edgeq_graph_output(g, out));
    CHECK(edgeq_session_create(1, &session));
    CHECK(edgeq_session_load(session, g, &model));
    edgeq_graph_free(g);
    edgeq_session_free(session);
    CHECK(edgeq_model_execute(model, inputs, 1, outputs, 1));
    edgeq_model_free(model);
    if (memcmp(yg, y, sizeof(yg)) != 0) return 7; /* same kernel as edgeq_qmatmul */
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
