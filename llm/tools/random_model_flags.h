// What make_random_gguf and make_random_encoder share: the flags --shape, --out, --vocab,
// --synthetic_vocab, --layers, --vocab_size and --seed, the vocabulary they ask for, and main's
// parsing and error reporting.
#ifndef EDGEQ_LLM_TOOLS_RANDOM_MODEL_FLAGS_H_
#define EDGEQ_LLM_TOOLS_RANDOM_MODEL_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "checkpoint/tensor_dict.h"

ABSL_DECLARE_FLAG(std::string, shape);
ABSL_DECLARE_FLAG(std::string, out);
ABSL_DECLARE_FLAG(std::string, vocab);
ABSL_DECLARE_FLAG(bool, synthetic_vocab);
ABSL_DECLARE_FLAG(int, layers);
ABSL_DECLARE_FLAG(int, vocab_size);
ABSL_DECLARE_FLAG(uint64_t, seed);

namespace edgeq {
namespace llm {
namespace tools {

// OK if --shape and --out are given, else InvalidArgument "--shape and --out are required
// (shapes: A, B, ...)".
absl::Status CheckShapeAndOut(const std::vector<std::string>& shapes);

// --layers and --vocab_size over *layers and *vocab unless 0 (a negative one reaches the
// model's shape check); --seed into *seed.
void ApplyShapeFlags(int* layers, int* vocab, uint64_t* seed);

// The vocabulary --vocab (a GGUF's tokenizer.* keys) or --synthetic_vocab (a made-up one of
// `vocab_size` pieces) asks for, into *vocab; false if neither is given. InvalidArgument if both
// are; the reader's errors.
absl::StatusOr<bool> VocabularyFromFlags(int vocab_size, checkpoint::TensorDict* vocab);

// A tool's main: sets `usage`, parses the flags, refuses a positional argument ("error:
// unexpected argument 'X'", 2), then runs `run`: 0, or "error: MESSAGE" and 1.
int RandomModelToolMain(int argc, char** argv, const std::string& usage, absl::Status (*run)());

}  // namespace tools
}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_TOOLS_RANDOM_MODEL_FLAGS_H_
