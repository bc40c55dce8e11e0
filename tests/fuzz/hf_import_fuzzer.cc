// libFuzzer target: a Hugging Face checkpoint directory through ImportHfCheckpoint (config.json,
// model.safetensors.index.json, the safetensors header and data, tokenizer.json and
// tokenizer_config.json). The input is the five files joined by kPartSeparator, in that order:
// config.json, index, model.safetensors, tokenizer.json, tokenizer_config.json; an empty part
// (other than config.json) means the file is absent. An import that succeeds must give a model
// whose block_count layers all exist and whose tensors are all readable.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "convert/hf_import.h"
#include "tests/fuzz/fuzz_files.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  const std::vector<std::string> parts =
      fuzz::SplitParts(absl::string_view(reinterpret_cast<const char*>(data), size), 5);
  const char* const names[] = {"config.json", "model.safetensors.index.json", "model.safetensors",
                               "tokenizer.json", "tokenizer_config.json"};
  for (size_t i = 0; i < parts.size(); ++i) {
    fuzz::PutFile(names[i], parts[i], i == 0 || !parts[i].empty());
  }
  absl::StatusOr<checkpoint::TensorDict> d = convert::ImportHfCheckpoint(fuzz::ScratchDir());
  fuzz::Report(d.status());
  if (!d.ok()) {
    // No attacker-sized echo: names are quoted with a cap (a Split regex, at most 4096 bytes,
    // is the longest text an error repeats).
    if (d.status().message().size() > 8192) std::abort();
    return 0;
  }
  fuzz::TouchAll(*d);
  absl::StatusOr<std::string> arch = d->GetString("general.architecture");
  if (!arch.ok()) std::abort();
  absl::StatusOr<int64_t> layers = d->GetInt(*arch + ".block_count");
  if (!layers.ok() || *layers <= 0 || *layers > 4096) std::abort();
  for (int64_t l = 0; l < *layers; ++l) {
    if (!d->Contains(absl::StrCat("blk.", l, ".attn_norm.weight"))) std::abort();
  }
  return 0;
}
