#include "llm/tools/random_model_flags.h"

#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checkpoint/gguf.h"
#include "core/status_macros.h"
#include "llm/random_model.h"

ABSL_FLAG(std::string, shape, "", "model shape (the usage message lists them)");
ABSL_FLAG(std::string, out, "", "output .gguf");
ABSL_FLAG(std::string, vocab, "", "a GGUF whose tokenizer.* keys (vocabulary) are copied");
ABSL_FLAG(bool, synthetic_vocab, false,
          "add a made-up SentencePiece vocabulary of the model's vocabulary size (no --vocab)");
ABSL_FLAG(int, layers, 0, "block count (0: the shape's)");
ABSL_FLAG(int, vocab_size, 0, "vocabulary without --vocab (0: the shape's)");
ABSL_FLAG(uint64_t, seed, 1, "random seed");

namespace edgeq {
namespace llm {
namespace tools {

absl::Status CheckShapeAndOut(const std::vector<std::string>& shapes) {
  if (absl::GetFlag(FLAGS_shape).empty() || absl::GetFlag(FLAGS_out).empty()) {
    return absl::InvalidArgumentError(absl::StrFormat("--shape and --out are required (shapes: %s)",
                                                      absl::StrJoin(shapes, ", ")));
  }
  return absl::OkStatus();
}

void ApplyShapeFlags(int* layers, int* vocab, uint64_t* seed) {
  if (absl::GetFlag(FLAGS_layers) != 0) *layers = absl::GetFlag(FLAGS_layers);
  if (absl::GetFlag(FLAGS_vocab_size) != 0) *vocab = absl::GetFlag(FLAGS_vocab_size);
  *seed = absl::GetFlag(FLAGS_seed);
}

absl::StatusOr<bool> VocabularyFromFlags(int vocab_size, checkpoint::TensorDict* vocab) {
  const std::string path = absl::GetFlag(FLAGS_vocab);
  const bool synthetic = absl::GetFlag(FLAGS_synthetic_vocab);
  if (!path.empty() && synthetic) {
    return absl::InvalidArgumentError("--vocab and --synthetic_vocab exclude each other");
  }
  if (!path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(*vocab, checkpoint::ReadGguf(path));
    return true;
  }
  if (synthetic) {
    EDGEQ_ASSIGN_OR_RETURN(*vocab, SyntheticSpmVocabulary(vocab_size));
    return true;
  }
  return false;
}

int RandomModelToolMain(int argc, char** argv, const std::string& usage, absl::Status (*run)()) {
  absl::SetProgramUsageMessage(usage);
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    absl::FPrintF(stderr, "error: unexpected argument '%s'\n", rest[1]);
    return 2;
  }
  const absl::Status s = run();
  if (!s.ok()) {
    absl::FPrintF(stderr, "error: %s\n", s.message());
    return 1;
  }
  return 0;
}

}  // namespace tools
}  // namespace llm
}  // namespace edgeq
