// libFuzzer target: a Hugging Face tokenizer.json (with an optional tokenizer_config.json)
// through Tokenizer::FromHfTokenizerJson, then a few strings tokenized and decoded. The input is
// tokenizer.json, tokenizer_config.json (empty: absent) and a text, joined by kPartSeparator.
// A tokenizer that loads must give ids in range, and (byte-level BPE) decode back to the text.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_files.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using edgeq::tokenizer::Tokenizer;
  namespace fuzz = edgeq::fuzz;
  const std::vector<std::string> parts =
      fuzz::SplitParts(absl::string_view(reinterpret_cast<const char*>(data), size), 3);
  const std::string tokenizer = fuzz::PutFile("tokenizer.json", parts[0]);
  const std::string config =
      parts[1].empty() ? std::string() : fuzz::PutFile("tokenizer_config.json", parts[1]);
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfTokenizerJson(tokenizer, config);
  fuzz::Report(tok.status());
  if (!tok.ok()) {
    if (tok.status().message().size() > 8192) std::abort();  // capped echoes only
    return 0;
  }
  for (const std::string& text : {parts[2], std::string("Hello world"), std::string(" a  b\n\t"),
                                  std::string("<s>x</s>\xc3\xa9\xe2\x96\x81")}) {
    for (bool special : {false, true}) {
      absl::StatusOr<std::vector<int32_t>> ids =
          tok->Encode(text, {.add_special = special, .parse_special = special});
      if (!ids.ok()) continue;  // an error (e.g. a pathological regex), not a crash
      for (int32_t id : *ids) {
        if (id < 0 || id >= tok->n_tokens()) std::abort();
      }
      (void)tok->Decode(*ids,
                        {.remove_special = false, .unparse_special = true, .clean_spaces = false});
    }
  }
  return 0;
}
