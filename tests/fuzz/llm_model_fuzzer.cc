// libFuzzer target past the GGUF parser into the model loader: GGUF bytes -> the dict ->
// llm::ModelConfig::FromMetadata -> llm::Model::Load (context 8, 1 thread, prefill blocks of 4)
// -> one Forward and one Prefill when it loads, and tokenizer::Tokenizer::FromGguf when the file
// carries a vocabulary. Whatever the metadata declares (2^30 layers, a 2^30-wide head, bools
// for counts, strings for flags), loading must refuse or succeed without a crash, a hang or an
// allocation beyond the file's size; a model that loads must run, and its logits must have the
// vocabulary's size.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint/gguf.h"
#include "llm/model.h"
#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/tokenizer.h"

namespace {

using namespace edgeq;  // NOLINT: a fuzz target

[[noreturn]] void Finding(const std::string& what, const absl::Status& s) {
  std::fprintf(stderr, "llm_model_fuzzer: %s: %s\n", what.c_str(), s.ToString().c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::AlignedCopy in(data, size);
  absl::StatusOr<checkpoint::TensorDict> d = checkpoint::ReadGgufFromBuffer(in.span, in.owner);
  if (!d.ok()) return 0;
  if (d->HasMetadata("tokenizer.ggml.model")) {
    absl::StatusOr<tokenizer::Tokenizer> tok = tokenizer::Tokenizer::FromGguf(*d);
    if (tok.ok()) {
      absl::StatusOr<std::vector<int32_t>> ids = tok->Encode("Hello world");
      if (ids.ok()) (void)tok->Decode(*ids);
    }
  }
  absl::StatusOr<llm::ModelConfig> config = llm::ModelConfig::FromMetadata(*d);
  llm::ModelOptions options;
  options.num_threads = 1;
  options.context_length = 8;
  options.prefill_block = 4;
  absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(*d, options);
  if (!config.ok()) {
    if (model.ok()) Finding("Load accepted a dict FromMetadata refuses", config.status());
    return 0;
  }
  if (!model.ok()) return 0;
  const llm::ModelConfig& c = (*model)->config();
  if (c.block_count < 1 || static_cast<size_t>(c.block_count) > d->size()) {
    Finding("a model loaded with more layers than tensors", absl::InternalError(c.ToString()));
  }
  absl::StatusOr<absl::Span<const float>> logits = (*model)->Forward(0, 0);
  if (!logits.ok()) Finding("Forward of a loaded model", logits.status());
  if (logits->size() != static_cast<size_t>(c.vocab_size)) {
    Finding("logits of the wrong size", absl::InternalError(c.ToString()));
  }
  const int tokens[5] = {0, c.vocab_size - 1, 0, c.vocab_size / 2, 1 % c.vocab_size};
  logits = (*model)->Prefill(tokens, 1);
  if (!logits.ok()) Finding("Prefill of a loaded model", logits.status());
  float sum = 0;
  for (float v : *logits) sum += v;  // NaN from fuzzed weights is fine; reading is what matters
  volatile float sink = sum;
  (void)sink;
  return 0;
}
