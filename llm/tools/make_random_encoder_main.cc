// Writes a random-weight f32 GGUF of a real encoder shape (llm/embed_random_model.h), optionally
// with the vocabulary of another GGUF (so that llama.cpp loads and tokenizes with it too).
//
//   make_random_encoder --shape=bge-small --layers=2 --vocab=ggml-vocab-bert-bge.gguf --out=b.gguf
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "llm/embed_random_model.h"
#include "llm/random_model.h"

ABSL_FLAG(std::string, shape, "", "encoder shape (bert-tiny, bge-small, ...)");
ABSL_FLAG(std::string, out, "", "output .gguf");
ABSL_FLAG(std::string, vocab, "", "a GGUF whose tokenizer.* keys are copied");
ABSL_FLAG(bool, synthetic_vocab, false,
          "add llm::SyntheticSpmVocabulary of the shape's vocabulary size (no --vocab)");
ABSL_FLAG(int, layers, 0, "block count (0: the shape's)");
ABSL_FLAG(int, vocab_size, 0, "vocabulary without --vocab (0: the shape's)");
ABSL_FLAG(uint64_t, seed, 1, "random seed");

namespace edgeq {
namespace {

absl::Status Run() {
  if (absl::GetFlag(FLAGS_shape).empty() || absl::GetFlag(FLAGS_out).empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--shape and --out are required (shapes: %s)",
                        absl::StrJoin(llm::RandomEncoderPresetNames(), ", ")));
  }
  EDGEQ_ASSIGN_OR_RETURN(llm::RandomEncoderSpec s,
                         llm::RandomEncoderPreset(absl::GetFlag(FLAGS_shape)));
  if (absl::GetFlag(FLAGS_layers) > 0) s.layers = absl::GetFlag(FLAGS_layers);
  s.seed = absl::GetFlag(FLAGS_seed);
  if (absl::GetFlag(FLAGS_vocab_size) > 0) s.vocab = absl::GetFlag(FLAGS_vocab_size);
  checkpoint::TensorDict vocab;
  const bool has_vocab = !absl::GetFlag(FLAGS_vocab).empty();
  if (has_vocab) {
    EDGEQ_ASSIGN_OR_RETURN(vocab, checkpoint::ReadGguf(absl::GetFlag(FLAGS_vocab)));
  } else if (absl::GetFlag(FLAGS_synthetic_vocab)) {
    EDGEQ_ASSIGN_OR_RETURN(vocab, llm::SyntheticSpmVocabulary(s.vocab));
  }
  const bool with_vocab = has_vocab || absl::GetFlag(FLAGS_synthetic_vocab);
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict d,
                         llm::RandomEncoder(s, with_vocab ? &vocab : nullptr));
  return checkpoint::WriteGguf(d, absl::GetFlag(FLAGS_out));
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  absl::Status s = edgeq::Run();
  if (!s.ok()) {
    absl::FPrintF(stderr, "make_random_encoder: %s\n", s.message());
    return 1;
  }
  return 0;
}
