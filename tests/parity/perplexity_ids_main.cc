// Measures edgeq's running perplexity of given token ids on any model file, as llama-perplexity
// computes it (parity_util.h RunningPerplexity): how the quantized-file figures in README.md were
// measured on llama-quantize's outputs, which the tests cannot regenerate at their size.
//
//   perplexity_ids MODEL.gguf testdata/ppl_ids_llama-spm.txt [CTX=128] [ADD_BOS=1]
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "llm/model.h"
#include "tests/parity/parity_util.h"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: perplexity_ids MODEL IDS_FILE [CTX=128] [ADD_BOS=1]\n");
    return 2;
  }
  int ctx = 128, add_bos = 1;
  if ((argc > 3 && (!absl::SimpleAtoi(argv[3], &ctx) || ctx < 4)) ||
      (argc > 4 && !absl::SimpleAtoi(argv[4], &add_bos))) {
    std::fprintf(stderr, "error: CTX must be an integer >= 4 and ADD_BOS 0 or 1\n");
    return 2;
  }
  absl::StatusOr<std::vector<int>> ids = edgeq::parity::ReadIds(argv[2]);
  if (!ids.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(ids.status().message()).c_str());
    return 1;
  }
  edgeq::llm::ModelOptions options;
  options.num_threads = 1;
  options.context_length = ctx;
  options.kv_cache_type = edgeq::llm::KvCacheType::kF32;  // as llama-perplexity -ctk f32
  absl::StatusOr<std::unique_ptr<edgeq::llm::Model>> model =
      edgeq::llm::Model::Load(argv[1], options);
  if (!model.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(model.status().message()).c_str());
    return 1;
  }
  const int chunks = static_cast<int>(ids->size() / ctx);
  absl::StatusOr<std::vector<double>> ppl =
      edgeq::parity::RunningPerplexity(**model, *ids, ctx, chunks, add_bos != 0, /*bos=*/1);
  if (!ppl.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(ppl.status().message()).c_str());
    return 1;
  }
  for (size_t c = 0; c < ppl->size(); ++c) std::printf("[%zu]%.4f,", c + 1, (*ppl)[c]);
  std::printf("\n");
  return 0;
}
