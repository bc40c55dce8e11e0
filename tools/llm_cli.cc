#include "tools/llm_cli.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "grammar/json_schema.h"
#include "tokenizer/llama2c.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace tools {
namespace {

// The llama2.c/SentencePiece tokenizer of examples/tinystories.
// A llama2.c tokenizer file (--tokenizer), encoded as run.c does.
class Llama2cFileTokenizer : public TextTokenizer {
 public:
  Llama2cFileTokenizer(tokenizer::Llama2cTokenizer tok, int bos, int eos, bool add_bos)
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
  tokenizer::Llama2cTokenizer tok_;
  int bos_, eos_;
  bool add_bos_;
};

// The model's own vocabulary, through tokenizer::Tokenizer (llama.cpp's tokenizers).
class VocabTokenizer : public TextTokenizer {
 public:
  explicit VocabTokenizer(tokenizer::Tokenizer tok) : tok_(std::move(tok)) {}
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

 private:
  tokenizer::Tokenizer tok_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<TextTokenizer>> OpenTokenizer(const checkpoint::TensorDict& dict,
                                                             const std::string& model_path,
                                                             const std::string& tokenizer_path,
                                                             int vocab_size) {
  if (tokenizer_path.empty() && dict.HasMetadata("tokenizer.ggml.model")) {
    absl::StatusOr<tokenizer::Tokenizer> vocab = tokenizer::Tokenizer::FromGguf(dict);
    if (!vocab.ok()) {
      return absl::Status(vocab.status().code(), absl::StrFormat("'%s': vocabulary: %s", model_path,
                                                                 vocab.status().message()));
    }
    if (vocab_size > 0 && vocab->n_tokens() != vocab_size) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "'%s': its vocabulary has %d tokens, but the model's embedding has %d rows", model_path,
          vocab->n_tokens(), vocab_size));
    }
    return std::unique_ptr<TextTokenizer>(new VocabTokenizer(*std::move(vocab)));
  }
  // A llama2.c tokenizer file: special ids from the model's metadata where it has them.
  EDGEQ_ASSIGN_OR_RETURN(
      tokenizer::Llama2cTokenizer tok,
      tokenizer::Llama2cTokenizer::ForModel(dict, model_path, tokenizer_path, vocab_size));
  auto get_int = [&](const char* key, int dflt) {
    absl::StatusOr<int64_t> v = dict.GetInt(key);
    return v.ok() ? static_cast<int>(*v) : dflt;
  };
  const int bos = get_int("tokenizer.ggml.bos_token_id", tokenizer::kLlama2cBosId);
  const int eos = get_int("tokenizer.ggml.eos_token_id", tokenizer::kLlama2cEosId);
  bool add_bos = true;
  if (dict.HasMetadata("tokenizer.ggml.add_bos_token")) {
    add_bos = (*dict.GetMetadata("tokenizer.ggml.add_bos_token"))->bool_value();
  }
  return std::unique_ptr<TextTokenizer>(
      new Llama2cFileTokenizer(std::move(tok), bos, eos, add_bos));
}

absl::StatusOr<std::shared_ptr<const grammar::Grammar>> LoadGrammar(const GrammarFlag& flag) {
  std::string text = flag.value;
  const char* name = "--grammar";
  switch (flag.kind) {
    case GrammarFlag::Kind::kNone:
      return std::shared_ptr<const grammar::Grammar>();
    case GrammarFlag::Kind::kGbnf:
      break;
    case GrammarFlag::Kind::kGbnfFile: {
      name = "--grammar-file";
      EDGEQ_ASSIGN_OR_RETURN(text, ReadFileBounded(flag.value, grammar::Limits().max_input_bytes,
                                                   "grammar file"));
      break;
    }
    case GrammarFlag::Kind::kJsonSchema: {
      name = "--json-schema";
      absl::StatusOr<std::string> gbnf = grammar::JsonSchemaToGbnf(flag.value);
      if (!gbnf.ok()) {
        return absl::Status(gbnf.status().code(),
                            absl::StrCat(name, ": ", gbnf.status().message()));
      }
      text = *std::move(gbnf);
      break;
    }
  }
  absl::StatusOr<std::shared_ptr<const grammar::Grammar>> g = grammar::ParseGbnf(text);
  if (!g.ok()) {
    std::string where = name;
    if (flag.kind == GrammarFlag::Kind::kGbnfFile) where = flag.value;
    return absl::Status(g.status().code(), absl::StrCat(where, ": ", g.status().message()));
  }
  return *std::move(g);
}

absl::Status ConstrainSampler(std::shared_ptr<const grammar::Grammar> grammar,
                              const TextTokenizer& tok, int vocab_size, llm::Sampler* sampler) {
  if (grammar == nullptr) return absl::OkStatus();
  std::vector<std::string> pieces(vocab_size);
  for (int i = 0; i < vocab_size; ++i) pieces[i] = tok.TokenBytes(i);
  std::vector<int> eog = tok.stop_tokens();
  for (int id : eog) {
    if (id >= 0 && id < vocab_size) pieces[id].clear();
  }
  return sampler->SetGrammar(
      std::move(grammar), std::make_shared<const llm::GrammarVocab>(std::move(pieces), eog));
}

int LlmFail(absl::string_view command, const absl::Status& status) {
  std::string message(status.message());
  std::replace(message.begin(), message.end(), '\n', ' ');
  absl::FPrintF(stderr, "edgeq %s: error: %s\n", command, message);
  return 1;
}

uint64_t ParameterCount(const checkpoint::TensorDict& dict) {
  uint64_t n = 0;
  for (const std::string& name : dict.Keys()) {
    n += static_cast<uint64_t>((*dict.Get(name))->logical_shape().num_elements());
  }
  return n;
}

std::string ParamsLabel(uint64_t params) {
  if (params >= 1000000000ull) return absl::StrFormat("%.2fB", params / 1e9);
  if (params >= 1000000ull) return absl::StrFormat("%.2fM", params / 1e6);
  return absl::StrFormat("%.2fK", params / 1e3);
}

std::string WeightTypeLabel(const checkpoint::TensorDict& dict) {
  // The type holding most of the matrix weights, upper-case as llama.cpp prints it.
  std::map<std::string, uint64_t> by_type;
  for (const std::string& name : dict.Keys()) {
    const Tensor& t = **dict.Get(name);
    if (t.logical_shape().rank() < 2) continue;
    const std::string type = t.is_quantized() ? t.encoding() : std::string(DTypeName(t.dtype()));
    by_type[type] += static_cast<uint64_t>(t.logical_shape().num_elements());
  }
  if (by_type.empty()) return "?";
  auto best = std::max_element(by_type.begin(), by_type.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  std::string label = best->first;
  for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return by_type.size() > 1 ? absl::StrCat(label, " (mixed)") : label;
}

uint64_t PeakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "VmHWM:")) {
      uint64_t kb = 0;
      std::string v(absl::StripAsciiWhitespace(line.substr(6)));
      if (absl::EndsWith(v, " kB")) v.resize(v.size() - 3);
      if (absl::SimpleAtoi(v, &kb)) return kb * 1024;
    }
  }
  return 0;
}

}  // namespace tools
}  // namespace edgeq
