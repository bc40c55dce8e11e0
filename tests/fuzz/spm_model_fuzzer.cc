// libFuzzer target: a SentencePiece tokenizer.model (the input's bytes) through the bounded
// protobuf reader (ParseSentencePieceModel) and, when it parses, Tokenizer::FromSentencePieceModel
// and a few strings tokenized and decoded. Errors must be one short line; a tokenizer that loads
// has one token per piece and gives ids in range.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_files.h"
#include "tokenizer/sentencepiece_model.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using edgeq::tokenizer::SentencePieceModel;
  using edgeq::tokenizer::Tokenizer;
  namespace fuzz = edgeq::fuzz;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<SentencePieceModel> m =
      edgeq::tokenizer::ParseSentencePieceModel(bytes, "tokenizer.model");
  fuzz::Report(m.status());
  if (!m.ok()) {
    if (m.status().message().size() > 1024) std::abort();
    return 0;
  }
  if (m->pieces.empty() || m->pieces.size() > edgeq::tokenizer::kMaxSentencePiecePieces) {
    std::abort();
  }
  absl::StatusOr<Tokenizer> tok =
      Tokenizer::FromSentencePieceModel(fuzz::PutFile("tokenizer.model", bytes));
  fuzz::Report(tok.status());
  if (!tok.ok()) return 0;
  if (tok->n_tokens() != static_cast<int32_t>(m->pieces.size())) std::abort();
  for (const std::string& text : {std::string("Hello world"), std::string(" a  b\n\t"),
                                  std::string("<s>x</s>\xc3\xa9\xe2\x96\x81\xff")}) {
    for (bool special : {false, true}) {
      absl::StatusOr<std::vector<int32_t>> ids =
          tok->Encode(text, {.add_special = special, .parse_special = special});
      if (!ids.ok()) continue;
      for (int32_t id : *ids) {
        if (id < 0 || id >= tok->n_tokens()) std::abort();
      }
      (void)tok->Decode(*ids, {.unparse_special = true});
    }
  }
  return 0;
}
