// libFuzzer target: the llama2.c model and tokenizer readers, and the model's export.
#include <cstdint>
#include <cstdlib>

#include "checkpoint/llama2c.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  fuzz::AlignedCopy in(data, size);
  absl::StatusOr<checkpoint::Llama2cTokenizer> tok =
      checkpoint::ReadLlama2cTokenizerFromBuffer(in.span, size % 3 == 0 ? 0 : 5);
  if (tok.ok() && tok->pieces.size() != tok->scores.size()) std::abort();
  absl::StatusOr<checkpoint::TensorDict> d = checkpoint::ReadLlama2cFromBuffer(in.span, in.owner);
  if (!d.ok()) return 0;
  fuzz::TouchAll(*d);
  absl::StatusOr<std::string> bytes = checkpoint::WriteLlama2cToString(*d);
  if (!bytes.ok() || bytes->size() != size) std::abort();
  fuzz::AlignedCopy again(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  absl::StatusOr<checkpoint::TensorDict> back =
      checkpoint::ReadLlama2cFromBuffer(again.span, again.owner);
  if (!back.ok()) std::abort();
  // A shared classifier may be detected where the file had an identical unshared one.
  if (back->Keys() == d->Keys()) fuzz::CheckSameTensors(*d, *back, "llama2c");
  return 0;
}
