// libFuzzer target: llm's tokenizers on arbitrary text, pre-tokenizer patterns and id streams.
// The first byte picks the mode:
//   0: "pattern\0text": PreTokenizerRegex::Compile, then RegexSplit must cover the text exactly;
//   1: a SentencePiece vocabulary encodes the text (ids in range);
//   2, 3: byte-level BPE vocabularies (llama-bpe, deepseek-llm patterns) encode the text, and
//         decoding gives it back byte for byte;
//   4: the bytes as token ids through StreamDecoder: the chunks add up to the pieces.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "checkpoint/tensor_dict.h"
#include "tokenizer/regex.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace {

using edgeq::checkpoint::MetadataValue;
using edgeq::checkpoint::TensorDict;
using edgeq::tokenizer::Tokenizer;

TensorDict Vocab(bool spm, const char* pre) {
  std::vector<std::string> tokens;
  std::vector<int64_t> types;
  if (spm) {
    for (const char* t : {"<unk>", "<s>", "</s>"}) tokens.push_back(t), types.push_back(3);
    types[0] = 2;
    for (int b = 0; b < 256; ++b) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "<0x%02X>", b);
      tokens.push_back(buf);
      types.push_back(6);
    }
    for (const char* t : {"\xe2\x96\x81", "a", "b", "ab",
                          "\xe2\x96\x81"
                          "ab",
                          "<|x|>"}) {
      tokens.push_back(t);
      types.push_back(std::string(t) == "<|x|>" ? 4 : 1);
    }
  } else {
    for (int b = 0; b < 256; ++b) {
      std::string s;
      edgeq::tokenizer::AppendUtf8(edgeq::tokenizer::ByteToCodePoint(static_cast<uint8_t>(b)), &s);
      tokens.push_back(s);
      types.push_back(1);
    }
    for (const char* t : {"ab",
                          "\xc4\xa0"
                          "ab",
                          "<|end|>"})
      tokens.push_back(t), types.push_back(1);
    types.back() = 3;
  }
  std::vector<double> scores(tokens.size());
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = -static_cast<double>(i) / 100;
  TensorDict d;
  d.SetMetadata("tokenizer.ggml.model", MetadataValue::String(spm ? "llama" : "gpt2"));
  d.SetMetadata("tokenizer.ggml.pre", MetadataValue::String(pre));
  d.SetMetadata("tokenizer.ggml.tokens", MetadataValue::StringArray(tokens));
  d.SetMetadata("tokenizer.ggml.scores", MetadataValue::FloatArray(scores));
  d.SetMetadata("tokenizer.ggml.token_type", MetadataValue::IntArray(types));
  if (!spm) {
    d.SetMetadata("tokenizer.ggml.merges", MetadataValue::StringArray({"a b", "\xc4\xa0 ab"}));
  }
  return d;
}

const Tokenizer& Get(int which) {
  static const Tokenizer* const toks[3] = {
      new Tokenizer(*Tokenizer::FromGguf(Vocab(true, "default"))),
      new Tokenizer(*Tokenizer::FromGguf(Vocab(false, "llama-bpe"))),
      new Tokenizer(*Tokenizer::FromGguf(Vocab(false, "deepseek-llm"))),
  };
  return *toks[which];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 5;
  const absl::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode == 0) {
    const size_t nul = rest.find('\0');
    const absl::string_view pattern = rest.substr(0, nul);
    const absl::string_view text =
        nul == absl::string_view::npos ? absl::string_view() : rest.substr(nul + 1);
    absl::StatusOr<edgeq::tokenizer::PreTokenizerRegex> re =
        edgeq::tokenizer::PreTokenizerRegex::Compile(pattern);
    if (!re.ok()) return 0;
    std::vector<edgeq::tokenizer::PreTokenizerRegex> res;
    res.push_back(*std::move(re));
    auto parts = edgeq::tokenizer::RegexSplit(text, res);
    if (!parts.ok()) return 0;
    size_t covered = 0;
    for (const auto& p : *parts) {
      if (p.first != covered || p.second <= p.first) std::abort();
      covered = p.second;
    }
    if (covered != text.size()) std::abort();
    return 0;
  }
  if (mode == 4) {
    const Tokenizer& tok = Get(data[1 % size] % 3);
    edgeq::tokenizer::StreamDecoder stream(tok, /*special=*/true);
    std::string streamed, pieces;
    for (size_t i = 1; i + 1 < size; i += 2) {
      const int32_t id = static_cast<int32_t>((data[i] << 8) | data[i + 1]) - 8;
      streamed += stream.Push(id);
      pieces += tok.TokenToPiece(id, /*special=*/true);
    }
    streamed += stream.Flush();
    if (streamed != pieces) std::abort();
    return 0;
  }
  const Tokenizer& tok = Get(mode - 1);
  for (bool parse_special : {false, true}) {
    absl::StatusOr<std::vector<int32_t>> ids =
        tok.Encode(rest, {.add_special = false, .parse_special = parse_special});
    if (!ids.ok()) continue;  // a pattern refused a pathological text: an error, not a crash
    for (int32_t id : *ids) {
      if (id < 0 || id >= tok.n_tokens()) std::abort();
    }
    const std::string back =
        tok.Decode(*ids, {.remove_special = false, .unparse_special = true, .clean_spaces = false});
    if (tok.model() == Tokenizer::Model::kBpe && back != rest) std::abort();
  }
  return 0;
}
