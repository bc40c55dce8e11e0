#include "tokenizer/llama2c.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "checkpoint/llama2c.h"
#include "core/status_macros.h"

namespace edgeq {
namespace tokenizer {
namespace {

// Parses "<0xXX>" (the llama2.c byte-fallback piece); returns -1 if `piece` is not one.
int ByteOfPiece(const std::string& piece) {
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
  int value = 0;
  for (int i = 3; i < 5; ++i) {
    const char c = piece[i];
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

}  // namespace

absl::StatusOr<Llama2cTokenizer> Llama2cTokenizer::Load(const std::string& path, int vocab_size) {
  if (vocab_size <= 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tokenizer '%s': vocab_size must be positive, got %d", path, vocab_size));
  }
  absl::StatusOr<checkpoint::Llama2cTokenizer> t =
      checkpoint::ReadLlama2cTokenizer(path, vocab_size);
  if (t.status().code() == absl::StatusCode::kInvalidArgument) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s (mismatched tokenizer? the model's vocabulary has %d pieces)",
                        t.status().message(), vocab_size));
  }
  if (!t.ok()) return t.status();
  return FromPieces(std::move(t->pieces), std::move(t->scores));
}

absl::StatusOr<Llama2cTokenizer> Llama2cTokenizer::FromMetadata(
    const checkpoint::TensorDict& dict) {
  absl::StatusOr<const checkpoint::MetadataValue*> tokens =
      dict.GetMetadata("tokenizer.ggml.tokens");
  absl::StatusOr<const checkpoint::MetadataValue*> scores =
      dict.GetMetadata("tokenizer.ggml.scores");
  if (!tokens.ok() || !scores.ok()) {
    return absl::NotFoundError(
        "the model carries no vocabulary (metadata tokenizer.ggml.tokens and "
        "tokenizer.ggml.scores)");
  }
  // GGUF (SentencePiece) pieces spell a space as U+2581; llama2.c's as ' '.
  std::vector<std::string> pieces = (*tokens)->strings();
  for (std::string& p : pieces) p = absl::StrReplaceAll(p, {{"\xE2\x96\x81", " "}});
  std::vector<float> s((*scores)->floats().begin(), (*scores)->floats().end());
  return FromPieces(std::move(pieces), std::move(s));
}

absl::StatusOr<Llama2cTokenizer> Llama2cTokenizer::ForModel(const checkpoint::TensorDict& dict,
                                                            const std::string& model_path,
                                                            const std::string& tokenizer_path,
                                                            int vocab_size) {
  if (!tokenizer_path.empty()) return Load(tokenizer_path, vocab_size);
  absl::StatusOr<Llama2cTokenizer> t = FromMetadata(dict);
  if (!t.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("'%s' carries no vocabulary; pass --tokenizer=PATH (%s)", model_path,
                        t.status().message()));
  }
  if (t->vocab_size() != vocab_size) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the tokenizer has %d pieces but the model's vocabulary is %d (mismatched tokenizer)",
        t->vocab_size(), vocab_size));
  }
  return t;
}

void Llama2cTokenizer::ToMetadata(checkpoint::TensorDict& dict) const {
  dict.SetMetadata("tokenizer.ggml.model", checkpoint::MetadataValue::String("llama"));
  std::vector<std::string> pieces = pieces_;
  for (std::string& p : pieces) p = absl::StrReplaceAll(p, {{" ", "\xE2\x96\x81"}});
  dict.SetMetadata("tokenizer.ggml.tokens", checkpoint::MetadataValue::StringArray(pieces));
  dict.SetMetadata("tokenizer.ggml.scores", checkpoint::MetadataValue::FloatArray(
                                                std::vector<double>(scores_.begin(), scores_.end()),
                                                checkpoint::MetadataValue::Width::kF32));
}

absl::StatusOr<Llama2cTokenizer> Llama2cTokenizer::FromPieces(std::vector<std::string> pieces,
                                                              std::vector<float> scores) {
  if (pieces.size() != scores.size() || pieces.size() < 3) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tokenizer: %d pieces and %d scores (need equal counts, at least 3)",
                        pieces.size(), scores.size()));
  }
  Llama2cTokenizer tok;
  tok.pieces_ = std::move(pieces);
  tok.scores_ = std::move(scores);
  for (int i = 0; i < static_cast<int>(tok.pieces_.size()); ++i) {
    // The first occurrence wins, as run.c's binary search over a sorted copy would find any;
    // real vocabularies have unique pieces.
    tok.ids_.emplace(tok.pieces_[i], i);
    tok.max_token_length_ =
        std::max(tok.max_token_length_, static_cast<int>(tok.pieces_[i].size()));
  }
  return tok;
}

int Llama2cTokenizer::Lookup(absl::string_view piece) const {
  auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

std::vector<int> Llama2cTokenizer::Encode(absl::string_view text, bool bos, bool eos) const {
  std::vector<int> tokens;
  tokens.reserve(text.size() + 3);
  if (bos) tokens.push_back(kLlama2cBosId);
  if (!text.empty()) {
    const int space = Lookup(" ");
    if (space >= 0) tokens.push_back(space);
  }
  // Split into UTF-8 code points (at most 4 bytes each).
  size_t i = 0;
  while (i < text.size()) {
    size_t len = 1;
    while (i + len < text.size() && len < 4 &&
           (static_cast<unsigned char>(text[i + len]) & 0xC0) == 0x80) {
      ++len;
    }
    const absl::string_view cp = text.substr(i, len);
    const int id = Lookup(cp);
    if (id >= 0) {
      tokens.push_back(id);
    } else {
      for (unsigned char c : cp) tokens.push_back(static_cast<int>(c) + 3);
    }
    i += len;
  }
  // Merge the best-scoring adjacent pair until none merges.
  std::string pair;
  while (true) {
    float best_score = -1e10f;
    int best_id = -1;
    size_t best_idx = 0;
    for (size_t j = 0; j + 1 < tokens.size(); ++j) {
      pair.assign(pieces_[tokens[j]]);
      pair.append(pieces_[tokens[j + 1]]);
      const int id = Lookup(pair);
      if (id >= 0 && scores_[id] > best_score) {
        best_score = scores_[id];
        best_id = id;
        best_idx = j;
      }
    }
    if (best_id < 0) break;
    tokens[best_idx] = best_id;
    tokens.erase(tokens.begin() + best_idx + 1);
  }
  if (eos) tokens.push_back(kLlama2cEosId);
  return tokens;
}

std::string Llama2cTokenizer::Decode(int prev, int token) const {
  if (token < 0 || token >= vocab_size()) return "";
  const std::string& piece = pieces_[token];
  if (prev == kLlama2cBosId && !piece.empty() && piece[0] == ' ') return piece.substr(1);
  const int byte = ByteOfPiece(piece);
  if (byte >= 0) return std::string(1, static_cast<char>(byte));
  return piece;
}

std::string Llama2cTokenizer::DecodeForPrint(int prev, int token) const {
  std::string s = Decode(prev, token);
  if (s.size() == 1) {
    const unsigned char c = static_cast<unsigned char>(s[0]);
    if (!(std::isprint(c) || std::isspace(c))) return "";
  }
  return s;
}

}  // namespace tokenizer
}  // namespace edgeq
