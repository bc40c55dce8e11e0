// Test helper: writes a SentencePiece tokenizer.model (the ModelProto protobuf) with a small
// protobuf writer, so that tests build tokenizer.model files from vocabularies they hold (no
// protobuf library, no third-party file in the repository).
#ifndef EDGEQ_TOKENIZER_SENTENCEPIECE_TESTING_H_
#define EDGEQ_TOKENIZER_SENTENCEPIECE_TESTING_H_

#include <cstdint>
#include <string>
#include <vector>

namespace edgeq {
namespace tokenizer {

struct SentencePieceSpec {
  int model_type = 2;  // trainer_spec.model_type: 1 unigram, 2 BPE
  std::string normalizer = "identity";
  bool remove_extra_whitespaces = false;
};

// The bytes of a ModelProto: one piece per entry (piece, score as float, type when not NORMAL:
// 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte), a trainer_spec (model_type,
// byte_fallback, unk 0, bos 1, eos 2, pad -1) and a normalizer_spec (name, add_dummy_prefix,
// remove_extra_whitespaces, escape_whitespaces), as Llama 2's tokenizer.model has them.
std::string SentencePieceModelProto(const std::vector<std::string>& pieces,
                                    const std::vector<double>& scores,
                                    const std::vector<int64_t>& types,
                                    const SentencePieceSpec& spec);

}  // namespace tokenizer
}  // namespace edgeq

#endif  // EDGEQ_TOKENIZER_SENTENCEPIECE_TESTING_H_
