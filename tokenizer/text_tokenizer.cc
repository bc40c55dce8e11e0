#include "tokenizer/text_tokenizer.h"

#include <memory>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "sdk/selection.h"
#include "tokenizer/llama2c.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace tokenizer {
namespace {

// A llama2.c tokenizer file (--tokenizer), encoded as run.c does.
class Llama2cFileTokenizer : public TextTokenizer {
 public:
  Llama2cFileTokenizer(Llama2cTokenizer tok, int bos, int eos, bool add_bos)
      : tok_(std::move(tok)), bos_(bos), eos_(eos), add_bos_(add_bos) {}
  absl::StatusOr<std::vector<int>> Encode(absl::string_view text, bool add_bos,
                                          bool /*parse_special*/) const override {
    std::vector<int> ids = tok_.Encode(text, /*bos=*/false, /*eos=*/false);
    if (add_bos) ids.insert(ids.begin(), bos_);
    return ids;
  }
  std::string Decode(int prev, int token) const override { return tok_.Decode(prev, token); }
  int bos() const override { return bos_; }
  int eos() const override { return eos_; }
  bool add_bos() const override { return add_bos_; }
  std::string PieceText(int token) const override {
    return token >= 0 && token < tok_.vocab_size() ? tok_.piece(token) : "";
  }
  std::string TokenBytes(int token) const override {
    return token == bos_ || token == eos_ ? "" : tok_.Decode(-1, token);
  }

 private:
  Llama2cTokenizer tok_;
  int bos_, eos_;
  bool add_bos_;
};

// The model's own vocabulary, through Tokenizer (llama.cpp's tokenizers).
class VocabTokenizer : public TextTokenizer {
 public:
  explicit VocabTokenizer(Tokenizer tok) : tok_(std::move(tok)) {}
  absl::StatusOr<std::vector<int>> Encode(absl::string_view text, bool add_bos,
                                          bool parse_special) const override {
    EDGEQ_ASSIGN_OR_RETURN(
        std::vector<int32_t> ids,
        tok_.Encode(text, {.add_special = false, .parse_special = parse_special}));
    if (add_bos && tok_.bos_id() >= 0) ids.insert(ids.begin(), tok_.bos_id());
    return std::vector<int>(ids.begin(), ids.end());
  }
  std::string Decode(int prev, int token) const override {
    std::string piece = tok_.TokenToPiece(token, /*special=*/false);
    // As llama.cpp's detokenizer: the space prefix SPM adds to the text is not printed.
    if (prev == tok_.bos_id() && tok_.add_space_prefix() && !piece.empty() && piece[0] == ' ') {
      piece.erase(0, 1);
    }
    return piece;
  }
  int bos() const override { return tok_.bos_id(); }
  int eos() const override { return tok_.eos_id(); }
  bool add_bos() const override { return tok_.add_bos(); }
  std::vector<int> stop_tokens() const override {
    std::vector<int> ids(tok_.eog_ids().begin(), tok_.eog_ids().end());
    if (ids.empty() && tok_.eos_id() >= 0) ids.push_back(tok_.eos_id());
    return ids;
  }
  std::string PieceText(int token) const override {
    return tok_.TokenToPiece(token, /*special=*/true);
  }
  std::string TokenBytes(int token) const override { return tok_.TokenBytes(token); }
  const Tokenizer* vocabulary() const override { return &tok_; }

 private:
  Tokenizer tok_;
};

}  // namespace

std::unique_ptr<TextTokenizer> VocabularyTokenizer(Tokenizer vocabulary) {
  return std::make_unique<VocabTokenizer>(std::move(vocabulary));
}

constexpr bool kLlama2cInBuild = selection::Selected(selection::kFormats, "llama2c");

absl::StatusOr<std::unique_ptr<TextTokenizer>> OpenTokenizer(const checkpoint::TensorDict& dict,
                                                             const std::string& model_path,
                                                             const std::string& tokenizer_path,
                                                             int vocab_size) {
  if (tokenizer_path.empty() && dict.HasMetadata("tokenizer.ggml.model")) {
    absl::StatusOr<Tokenizer> vocab = Tokenizer::FromGguf(dict);
    if (!vocab.ok()) {
      return absl::Status(vocab.status().code(), absl::StrFormat("'%s': vocabulary: %s", model_path,
                                                                 vocab.status().message()));
    }
    if (vocab_size > 0 && vocab->n_tokens() != vocab_size) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "'%s': its vocabulary has %d tokens, but the model's embedding has %d rows", model_path,
          vocab->n_tokens(), vocab_size));
    }
    return VocabularyTokenizer(*std::move(vocab));
  }
  // A llama2.c tokenizer (a tokenizer.bin, or pieces and scores without tokenizer.ggml.model)
  // belongs to the llama2c format: a selective build without it leaves its reader out (README,
  // "Footprint").
  if (!kLlama2cInBuild) {
    return absl::UnimplementedError(absl::StrFormat(
        "'%s': llama2.c tokenizers (%s) are not in this build (checkpoint formats built: %s)",
        model_path, tokenizer_path.empty() ? "no tokenizer.ggml.model metadata" : tokenizer_path,
        selection::BuiltWith(selection::kFormats)));
  }
  // A llama2.c tokenizer file: special ids from the model's metadata where it has them.
  EDGEQ_ASSIGN_OR_RETURN(Llama2cTokenizer tok,
                         Llama2cTokenizer::ForModel(dict, model_path, tokenizer_path, vocab_size));
  auto get_int = [&](const char* key, int dflt) {
    absl::StatusOr<int64_t> v = dict.GetInt(key);
    return v.ok() ? static_cast<int>(*v) : dflt;
  };
  const int bos = get_int("tokenizer.ggml.bos_token_id", kLlama2cBosId);
  const int eos = get_int("tokenizer.ggml.eos_token_id", kLlama2cEosId);
  bool add_bos = true;
  if (dict.HasMetadata("tokenizer.ggml.add_bos_token")) {
    add_bos = (*dict.GetMetadata("tokenizer.ggml.add_bos_token"))->bool_value();
  }
  return std::unique_ptr<TextTokenizer>(
      new Llama2cFileTokenizer(std::move(tok), bos, eos, add_bos));
}

}  // namespace tokenizer
}  // namespace edgeq
