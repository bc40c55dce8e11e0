// A program of the saved-session test (state_resume_test.sh): each step runs in its own process,
// through the C API only.
//
//   state_resume MODEL full   N STATE greedy|seeded   generate N tokens after the prompt
//   state_resume MODEL save   N STATE greedy|seeded   the same, then save the state to STATE
//   state_resume MODEL resume N STATE greedy|seeded   load STATE, generate N more tokens
//
// Prints the generated ids on one line; exit 1 with the C API's error on stderr.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "edgeq/edgeq.h"

namespace {

// Reports the failed step, frees the model (nothing left for LeakSanitizer) and returns 1.
int Fail(const char* what, edgeq_llm* llm) {
  std::fprintf(stderr, "error: %s: %s\n", what, edgeq_last_error());
  edgeq_llm_free(llm);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: state_resume MODEL full|save|resume N STATE greedy|seeded\n");
    return 2;
  }
  const std::string mode = argv[2], sampling = argv[5];
  const int n = std::atoi(argv[3]);
  edgeq_llm_options options = {1, 0, 8};
  edgeq_llm* llm = nullptr;
  if (edgeq_llm_load(argv[1], &options, &llm) != EDGEQ_OK) return Fail("load", llm);
  edgeq_sampling_params sp = edgeq_sampling_default();
  sp.temperature = 1.0f;
  sp.top_k = 0;
  sp.repeat_penalty = 1.3f;
  sp.penalty_last_n = 8;
  sp.seed = 1234;
  const edgeq_sampling_params* params = sampling == "seeded" ? &sp : nullptr;
  const int32_t prompt[] = {1, 17, 3, 40, 9, 22, 5, 31, 12, 60, 2, 7, 7};
  const size_t n_prompt = mode == "resume" ? 0 : sizeof(prompt) / sizeof(prompt[0]);
  if (mode == "resume" && edgeq_llm_state_load_file(llm, argv[4]) != EDGEQ_OK) {
    return Fail("state load", llm);
  }
  int32_t out[512];
  size_t got = 0;
  if (edgeq_llm_generate(llm, prompt, n_prompt, n, params, nullptr, nullptr, out, 512, &got) !=
      EDGEQ_OK) {
    return Fail("generate", llm);
  }
  if (mode == "save" && edgeq_llm_state_save_file(llm, argv[4]) != EDGEQ_OK) {
    return Fail("state save", llm);
  }
  for (size_t i = 0; i < got; ++i) std::printf("%s%d", i ? " " : "", out[i]);
  std::printf("\n");
  edgeq_llm_free(llm);
  return 0;
}
