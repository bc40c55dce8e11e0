// Writes a random-weight f32 GGUF of a real encoder shape (llm/embed_random_model.h), optionally
// with the vocabulary of another GGUF (so that llama.cpp loads and tokenizes with it too).
//
//   make_random_encoder --shape=bge-small --layers=2 --vocab=ggml-vocab-bert-bge.gguf --out=b.gguf
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "llm/embed_random_model.h"
#include "llm/tools/random_model_flags.h"

namespace edgeq {
namespace {

absl::Status Run() {
  EDGEQ_RETURN_IF_ERROR(llm::tools::CheckShapeAndOut(llm::RandomEncoderPresetNames()));
  EDGEQ_ASSIGN_OR_RETURN(llm::RandomEncoderSpec s,
                         llm::RandomEncoderPreset(absl::GetFlag(FLAGS_shape)));
  llm::tools::ApplyShapeFlags(&s.layers, &s.vocab, &s.seed);
  checkpoint::TensorDict vocab;
  EDGEQ_ASSIGN_OR_RETURN(const bool with_vocab, llm::tools::VocabularyFromFlags(s.vocab, &vocab));
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict d,
                         llm::RandomEncoder(s, with_vocab ? &vocab : nullptr));
  return checkpoint::WriteGguf(d, absl::GetFlag(FLAGS_out));
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  return edgeq::llm::tools::RandomModelToolMain(
      argc, argv,
      absl::StrCat("Write a random-weight f32 GGUF of a real encoder shape.\n"
                   "  make_random_encoder --shape=NAME --out=PATH.gguf [--vocab=VOCAB.gguf |\n"
                   "                      --synthetic_vocab] [--layers=N --vocab_size=N --seed=S]\n"
                   "Shapes: ",
                   absl::StrJoin(edgeq::llm::RandomEncoderPresetNames(), ", "), "."),
      edgeq::Run);
}
