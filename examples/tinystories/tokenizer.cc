#include "examples/tinystories/tokenizer.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_format.h"

namespace edgeq {
namespace tinystories {
namespace {

bool ReadBytes(absl::string_view bytes, size_t* offset, void* out, size_t n) {
  if (bytes.size() - *offset < n) return false;
  std::memcpy(out, bytes.data() + *offset, n);
  *offset += n;
  return true;
}

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

absl::StatusOr<Tokenizer> Tokenizer::Load(const std::string& path, int vocab_size) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(absl::StrFormat("tokenizer file '%s' cannot be opened", path));
  }
  std::stringstream buffer;
  buffer << file.rdbuf();
  return FromBytes(buffer.str(), vocab_size, path);
}

absl::StatusOr<Tokenizer> Tokenizer::FromBytes(absl::string_view bytes, int vocab_size,
                                               absl::string_view name) {
  if (vocab_size <= 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tokenizer '%s': vocab_size must be positive, got %d", name, vocab_size));
  }
  size_t offset = 0;
  int32_t max_len = 0;
  if (!ReadBytes(bytes, &offset, &max_len, 4) || max_len <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tokenizer '%s': expected a positive int32 max_token_length at offset 0", name));
  }
  std::vector<std::string> pieces;
  std::vector<float> scores;
  pieces.reserve(vocab_size);
  scores.reserve(vocab_size);
  for (int i = 0; i < vocab_size; ++i) {
    float score;
    int32_t len;
    if (!ReadBytes(bytes, &offset, &score, 4) || !ReadBytes(bytes, &offset, &len, 4)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tokenizer '%s' ends after %d pieces, but the model's vocabulary has %d (mismatched "
          "tokenizer?)",
          name, i, vocab_size));
    }
    if (len < 0 || len > max_len || bytes.size() - offset < static_cast<size_t>(len)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tokenizer '%s': piece %d has length %d (max_token_length %d, %d bytes left)", name, i,
          len, max_len, bytes.size() - offset));
    }
    pieces.emplace_back(bytes.substr(offset, len));
    offset += len;
    scores.push_back(score);
  }
  if (offset != bytes.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tokenizer '%s' has %d bytes after the %d pieces the model's vocabulary expects "
        "(mismatched tokenizer?)",
        name, bytes.size() - offset, vocab_size));
  }
  absl::StatusOr<Tokenizer> tok = FromPieces(std::move(pieces), std::move(scores));
  if (tok.ok()) tok->max_token_length_ = max_len;
  return tok;
}

absl::StatusOr<Tokenizer> Tokenizer::FromPieces(std::vector<std::string> pieces,
                                                std::vector<float> scores) {
  if (pieces.size() != scores.size() || pieces.size() < 3) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tokenizer: %d pieces and %d scores (need equal counts, at least 3)",
                        pieces.size(), scores.size()));
  }
  Tokenizer tok;
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

int Tokenizer::Lookup(absl::string_view piece) const {
  auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

std::vector<int> Tokenizer::Encode(absl::string_view text, bool bos, bool eos) const {
  std::vector<int> tokens;
  tokens.reserve(text.size() + 3);
  if (bos) tokens.push_back(kBosId);
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
  if (eos) tokens.push_back(kEosId);
  return tokens;
}

std::string Tokenizer::Decode(int prev, int token) const {
  if (token < 0 || token >= vocab_size()) return "";
  const std::string& piece = pieces_[token];
  if (prev == kBosId && !piece.empty() && piece[0] == ' ') return piece.substr(1);
  const int byte = ByteOfPiece(piece);
  if (byte >= 0) return std::string(1, static_cast<char>(byte));
  return piece;
}

std::string Tokenizer::DecodeForPrint(int prev, int token) const {
  std::string s = Decode(prev, token);
  if (s.size() == 1) {
    const unsigned char c = static_cast<unsigned char>(s[0]);
    if (!(std::isprint(c) || std::isspace(c))) return "";
  }
  return s;
}

}  // namespace tinystories
}  // namespace edgeq
