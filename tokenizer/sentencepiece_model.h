// A SentencePiece model file (tokenizer.model, the `ModelProto` protobuf that sentencepiece
// writes), read by a small bounded protobuf reader (no protobuf library): the pieces with their
// scores and types, and the trainer and normalizer settings a tokenizer needs.
//
//   EDGEQ_ASSIGN_OR_RETURN(SentencePieceModel m, ReadSentencePieceModelFile("tokenizer.model"));
//
// Fields read (sentencepiece_model.proto): ModelProto.pieces (1: piece 1, score 2, type 3),
// trainer_spec (2: model_type 3, byte_fallback 35, unk/bos/eos/pad_id 40-43) and
// normalizer_spec (3: name 1, precompiled_charsmap 2, add_dummy_prefix 3,
// remove_extra_whitespaces 4, escape_whitespaces 5). Other fields are skipped.
#ifndef EDGEQ_TOKENIZER_SENTENCEPIECE_MODEL_H_
#define EDGEQ_TOKENIZER_SENTENCEPIECE_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace tokenizer {

struct SentencePieceModel {
  // SentencePiece's piece types (ModelProto.SentencePiece.Type); the GGUF token_type values
  // are the same numbers.
  enum PieceType : int32_t {
    kNormal = 1,
    kUnknown = 2,
    kControl = 3,
    kUserDefined = 4,
    kUnused = 5,
    kByte = 6
  };
  // TrainerSpec.ModelType.
  enum ModelType : int32_t { kUnigram = 1, kBpe = 2, kWord = 3, kChar = 4 };

  struct Piece {
    std::string text;
    float score = 0.0f;
    int32_t type = kNormal;
  };
  std::vector<Piece> pieces;
  int32_t model_type = kUnigram;
  bool byte_fallback = false;
  int32_t unk_id = 0, bos_id = 1, eos_id = 2, pad_id = -1;
  std::string normalizer_name;  // "identity", "nmt_nfkc", ... ("" if absent)
  size_t charsmap_bytes = 0;    // size of the precompiled normalization map (0: none)
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
};

// Files above this size are refused (Gemma 3's 262k-piece model is 4.5 MB).
inline constexpr size_t kMaxSentencePieceModelBytes = size_t{64} << 20;
// At most this many pieces.
inline constexpr size_t kMaxSentencePiecePieces = size_t{1} << 22;

// Parses the bytes of a tokenizer.model. InvalidArgument "`what`: ... at byte N" for a
// truncated or malformed message (bad varint, length past the end, group or unknown wire type,
// field number 0, a field of the wrong wire type), for more than kMaxSentencePiecePieces pieces
// and for a model with none.
absl::StatusOr<SentencePieceModel> ParseSentencePieceModel(absl::string_view bytes,
                                                           absl::string_view what);
// The file at `path` through ReadFileBounded (NotFound if missing), then ParseSentencePieceModel.
absl::StatusOr<SentencePieceModel> ReadSentencePieceModelFile(const std::string& path);

}  // namespace tokenizer
}  // namespace edgeq

#endif  // EDGEQ_TOKENIZER_SENTENCEPIECE_MODEL_H_
