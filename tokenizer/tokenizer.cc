#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <queue>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "checkpoint/gguf.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "tokenizer/hf_patterns.h"
#include "tokenizer/unicode.h"

namespace edgeq {
namespace tokenizer {
namespace {

constexpr char kSpaceMark[] = "\xe2\x96\x81";  // U+2581, SentencePiece's space

bool IsByteTokenText(absl::string_view t) {
  if (t.size() != 6 || t.substr(0, 3) != "<0x" || t[5] != '>') return false;
  return absl::ascii_isxdigit(static_cast<unsigned char>(t[3])) &&
         absl::ascii_isxdigit(static_cast<unsigned char>(t[4]));
}
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}
std::string ByteTokenText(uint8_t b) {
  static const char kHex[] = "0123456789ABCDEF";
  return std::string{'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>'};
}

bool IsSpaceAscii(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace

absl::Status Tokenizer::Finish(absl::string_view /*pre*/) {
  if ((add_bos_ && bos_id_ < 0) || (add_eos_ && eos_id_ < 0)) {
    return absl::InvalidArgumentError(absl::StrCat("the vocabulary asks to add ",
                                                   add_bos_ && bos_id_ < 0 ? "BOS" : "EOS",
                                                   " but has no such token id"));
  }
  special_tokens_.clear();
  for (int32_t id = 0; id < n_tokens(); ++id) {
    if (tokens_[id].attr & (kAttrControl | kAttrUserDefined | kAttrUnknown)) {
      special_tokens_.push_back(id);
    }
  }
  std::stable_sort(special_tokens_.begin(), special_tokens_.end(), [&](int32_t a, int32_t b) {
    return tokens_[a].text.size() > tokens_[b].text.size();
  });
  eog_ids_.clear();
  auto add_eog = [&](int32_t id) {
    if (id >= 0 && std::find(eog_ids_.begin(), eog_ids_.end(), id) == eog_ids_.end()) {
      eog_ids_.push_back(id);
    }
  };
  add_eog(eos_id_);
  add_eog(eot_id_);
  add_eog(eom_id_);
  for (const char* text : {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                           "<EOT>", "<|eom_id|>"}) {
    const int32_t id = TokenId(text);
    if (id >= 0 && (tokens_[id].attr & (kAttrControl | kAttrUserDefined))) add_eog(id);
  }
  return absl::OkStatus();
}

void Tokenizer::AddMerge(absl::string_view left, absl::string_view right) {
  const int32_t l = TokenId(left), r = TokenId(right);
  if (l < 0 || r < 0) return;
  const uint64_t key = (static_cast<uint64_t>(l) << 32) | static_cast<uint32_t>(r);
  if (bpe_merges_.emplace(key, static_cast<int32_t>(merge_list_.size())).second) {
    merge_list_.emplace_back(l, r);
  }
}

const std::string& Tokenizer::token_text(int32_t id) const {
  static const std::string* const empty = new std::string();
  return id >= 0 && id < n_tokens() ? tokens_[id].text : *empty;
}
uint32_t Tokenizer::token_attr(int32_t id) const {
  return id >= 0 && id < n_tokens() ? tokens_[id].attr : kAttrUndefined;
}
float Tokenizer::token_score(int32_t id) const {
  return id >= 0 && id < n_tokens() ? tokens_[id].score : 0.0f;
}
int32_t Tokenizer::TokenId(absl::string_view text) const {
  auto it = token_to_id_.find(text);
  return it == token_to_id_.end() ? -1 : it->second;
}
bool Tokenizer::IsEndOfGeneration(int32_t id) const {
  return id >= 0 && std::find(eog_ids_.begin(), eog_ids_.end(), id) != eog_ids_.end();
}

int32_t Tokenizer::ByteToToken(uint8_t byte) const {
  int32_t id = TokenId(ByteTokenText(byte));
  if (id >= 0) return id;
  if (byte_encode_) {
    std::string s;
    AppendUtf8(ByteToCodePoint(byte), &s);
    id = TokenId(s);
  } else {
    id = TokenId(std::string(1, static_cast<char>(byte)));
  }
  return id >= 0 ? id : unk_id_;
}

// Splits the text around special tokens, as llama.cpp's tokenizer_st_partition: longest tokens
// first; control and unknown tokens only with parse_special; user-defined ones always.
void Tokenizer::Partition(absl::string_view text, bool parse_special,
                          std::vector<Fragment>* out) const {
  std::vector<Fragment> frags;
  if (!text.empty()) frags.push_back({-1, 0, text.size()});
  for (int32_t id : special_tokens_) {
    const Token& tok = tokens_[id];
    if (!parse_special && (tok.attr & (kAttrControl | kAttrUnknown))) continue;
    if (tok.text.empty()) continue;
    std::vector<Fragment> next;
    bool changed = false;
    for (const Fragment& f : frags) {
      if (f.token >= 0) {
        next.push_back(f);
        continue;
      }
      size_t off = f.offset, len = f.length;
      while (true) {
        const absl::string_view hay = text.substr(off, len);
        const size_t m = hay.find(tok.text);
        if (m == absl::string_view::npos) {
          if (len > 0) next.push_back({-1, off, len});
          break;
        }
        changed = true;
        size_t left_len = m;
        if (tok.attr & kAttrLstrip) {
          while (left_len > 0 && IsSpaceAscii(text[off + left_len - 1])) --left_len;
        }
        if (left_len > 0) next.push_back({-1, off, left_len});
        next.push_back({id, 0, 0});
        size_t r_off = off + m + tok.text.size();
        size_t r_len = off + len - r_off;
        if (tok.attr & kAttrRstrip) {
          while (r_len > 0 && IsSpaceAscii(text[r_off])) ++r_off, --r_len;
        }
        off = r_off;
        len = r_len;
        if (len == 0) break;
      }
    }
    if (changed) frags = std::move(next);
  }
  *out = std::move(frags);
}

absl::StatusOr<std::vector<int32_t>> Tokenizer::Encode(absl::string_view text,
                                                       EncodeOptions options) const {
  std::vector<Fragment> frags;
  Partition(text, options.parse_special, &frags);
  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 4);
  if (options.add_special && add_bos_) out.push_back(bos_id_);
  bool prev_special = true;
  for (const Fragment& f : frags) {
    if (f.token >= 0) {
      out.push_back(f.token);
      prev_special = true;
      continue;
    }
    std::string piece;
    if (model_ == Model::kSpm && add_space_prefix_ && prev_special) piece = " ";
    if (normalizers_.empty()) {
      piece.append(text.data() + f.offset, f.length);
    } else {
      piece += Normalize(text.substr(f.offset, f.length));
    }
    if (escape_whitespaces_) piece = absl::StrReplaceAll(piece, {{" ", kSpaceMark}});
    if (model_ == Model::kSpm) {
      EncodeSpm(piece, &out);
    } else if (model_ == Model::kWpm) {
      EncodeWpm(piece, &out);
    } else {
      EDGEQ_RETURN_IF_ERROR(EncodeBpe(piece, &out));
    }
    prev_special = false;
  }
  if (options.add_special && add_eos_) out.push_back(eos_id_);
  if (options.add_special && add_sep_) out.push_back(sep_id_);
  return out;
}

namespace {
bool IsChineseChar(uint32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}
}  // namespace

// WordPiece (llama.cpp's llm_tokenizer_wpm): lower-case and strip accents (NFD, drop marks),
// split at whitespace, punctuation, ASCII symbols and CJK ideographs, then per word (with a "▁"
// in front) take the longest vocabulary match from the left; a word that cannot be covered
// becomes the unknown token.
void Tokenizer::EncodeWpm(absl::string_view text, std::vector<int32_t>* out) const {
  const CodePoints in = DecodeUtf8(text);
  std::vector<uint32_t> cps;
  cps.reserve(in.cps.size());
  for (uint32_t cp : in.cps) {
    if (wpm_strip_accents_) {
      for (uint32_t d : DecomposeNfd(cp)) cps.push_back(d);
    } else {
      cps.push_back(cp);
    }
  }
  std::vector<std::string> words(1);
  for (uint32_t cp : cps) {
    if (IsWhiteSpace(cp)) {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    const uint32_t cat = CategoryBit(cp);
    const bool control = (cat & (kCatC & ~1u)) != 0;  // Cc, Cf, Cs, Co (not unassigned)
    if (cp == 0 || cp == 0xFFFD || control) continue;
    if (wpm_strip_accents_ && (cat & kCatM)) continue;
    std::string s;
    AppendUtf8(wpm_lowercase_ ? ToLower(cp) : cp, &s);
    if ((cat & kCatP) || (cp < 0x7F && (cat & kCatS)) || IsChineseChar(cp)) {
      if (!words.back().empty()) words.emplace_back();
      words.back() = s;
      words.emplace_back();
    } else {
      words.back() += s;
    }
  }
  for (const std::string& word : words) {
    if (word.empty()) continue;
    const std::string w = kSpaceMark + word;
    const size_t n = w.size();
    const size_t start = out->size();
    for (size_t i = 0; i < n; ++i) {
      bool match = false;
      for (size_t j = std::min(n, i + max_token_len_ + 1); j > i; --j) {
        const int32_t id = TokenId(absl::string_view(w).substr(i, j - i));
        if (id >= 0) {
          out->push_back(id);
          match = true;
          i = j - 1;
          break;
        }
      }
      if (!match) {
        out->resize(start);
        break;
      }
    }
    if (out->size() == start && unk_id_ >= 0) out->push_back(unk_id_);
  }
}

// SentencePiece BPE (llama.cpp's llm_tokenizer_spm): merge the adjacent pair whose
// concatenation is the highest-scoring token, leftmost first; bytes of leftover pieces that are
// not tokens become <0xXX> tokens.
void Tokenizer::EncodeSpm(absl::string_view text, std::vector<int32_t>* out) const {
  struct Symbol {
    int prev, next;
    size_t begin, n;
  };
  struct Bigram {
    int left, right;
    float score;
    size_t size;
  };
  struct Cmp {
    bool operator()(const Bigram& l, const Bigram& r) const {
      return l.score < r.score || (l.score == r.score && l.left > r.left);
    }
  };
  std::vector<Symbol> sym;
  for (size_t off = 0; off < text.size();) {
    const size_t len =
        std::min(Utf8SequenceLength(static_cast<uint8_t>(text[off])), text.size() - off);
    const int idx = static_cast<int>(sym.size());
    sym.push_back({idx - 1, off + len == text.size() ? -1 : idx + 1, off, len});
    off += len;
  }
  std::priority_queue<Bigram, std::vector<Bigram>, Cmp> queue;
  absl::flat_hash_map<std::string, std::pair<int, int>> rev_merge;
  auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const absl::string_view s = text.substr(sym[left].begin, sym[left].n + sym[right].n);
    const int32_t id = TokenId(s);
    if (id < 0) return;
    queue.push({left, right, tokens_[id].score, s.size()});
    rev_merge[std::string(s)] = {left, right};
  };
  for (int i = 1; i < static_cast<int>(sym.size()); ++i) try_add(i - 1, i);
  while (!queue.empty()) {
    const Bigram b = queue.top();
    queue.pop();
    Symbol& l = sym[b.left];
    Symbol& r = sym[b.right];
    if (l.n == 0 || r.n == 0 || l.n + r.n != b.size) continue;
    l.n += r.n;
    r.n = 0;
    l.next = r.next;
    if (r.next >= 0) sym[r.next].prev = b.left;
    try_add(l.prev, b.left);
    try_add(b.left, l.next);
  }
  // Resegment (iteratively): a symbol that is a token is output; one built by a merge that is
  // not a token is split back; anything else becomes bytes.
  std::vector<std::pair<size_t, size_t>> stack;
  for (int i = sym.empty() ? -1 : 0; i != -1; i = sym[i].next) {
    stack.emplace_back(sym[i].begin, sym[i].n);
    while (!stack.empty()) {
      const auto [begin, n] = stack.back();
      stack.pop_back();
      const absl::string_view s = text.substr(begin, n);
      const int32_t id = TokenId(s);
      if (id >= 0) {
        out->push_back(id);
        continue;
      }
      auto it = rev_merge.find(s);
      if (it != rev_merge.end() && stack.size() < text.size()) {
        const Symbol& a = sym[it->second.first];
        const Symbol& b = sym[it->second.second];
        // Push right first so that left is processed first. Lengths are the original halves.
        const size_t left_n = b.begin - a.begin;
        if (left_n > 0 && left_n < n) {
          stack.emplace_back(begin + left_n, n - left_n);
          stack.emplace_back(begin, left_n);
          continue;
        }
      }
      for (char c : s) {
        const int32_t bid = ByteToToken(static_cast<uint8_t>(c));
        if (bid >= 0) out->push_back(bid);
      }
    }
  }
}

absl::Status Tokenizer::EncodeBpe(absl::string_view text, std::vector<int32_t>* out) const {
  if (regexes_.empty()) {
    BpeWord(byte_encode_ ? ByteLevelEncode(text) : std::string(text), out);
    return absl::OkStatus();
  }
  EDGEQ_ASSIGN_OR_RETURN(auto words, RegexSplit(text, regexes_));
  for (const auto& w : words) {
    const absl::string_view word = text.substr(w.first, w.second - w.first);
    if (byte_encode_) {
      BpeWord(ByteLevelEncode(word), out);
    } else {
      BpeWord(word, out);
    }
  }
  return absl::OkStatus();
}

// Byte-pair merges by rank (llama.cpp's llm_tokenizer_bpe_session / Hugging Face's BPE): merge
// the adjacent pair with the lowest merge rank, leftmost first, until none applies.
void Tokenizer::BpeWord(absl::string_view word, std::vector<int32_t>* out) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    const int32_t id = TokenId(word);
    if (id >= 0) {
      out->push_back(id);
      return;
    }
  }
  struct Symbol {
    int prev, next;
    size_t begin, n;
    int32_t id;  // -1: not a token (cannot take part in a merge)
  };
  struct Bigram {
    int left, right;
    int32_t rank;
    size_t lsize, rsize;
  };
  struct Cmp {
    bool operator()(const Bigram& l, const Bigram& r) const {
      return l.rank > r.rank || (l.rank == r.rank && l.left > r.left);
    }
  };
  std::vector<Symbol> sym;
  sym.reserve(word.size());
  for (size_t off = 0; off < word.size();) {
    const size_t len =
        std::min(Utf8SequenceLength(static_cast<uint8_t>(word[off])), word.size() - off);
    const int idx = static_cast<int>(sym.size());
    sym.push_back({idx - 1, off + len == word.size() ? -1 : idx + 1, off, len,
                   TokenId(word.substr(off, len))});
    off += len;
  }
  std::priority_queue<Bigram, std::vector<Bigram>, Cmp> queue;
  auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0 || sym[left].id < 0 || sym[right].id < 0) return;
    const uint64_t key =
        (static_cast<uint64_t>(sym[left].id) << 32) | static_cast<uint32_t>(sym[right].id);
    auto it = bpe_merges_.find(key);
    if (it == bpe_merges_.end()) return;
    queue.push({left, right, it->second, sym[left].n, sym[right].n});
  };
  for (int i = 1; i < static_cast<int>(sym.size()); ++i) try_add(i - 1, i);
  while (!queue.empty()) {
    const Bigram b = queue.top();
    queue.pop();
    Symbol& l = sym[b.left];
    Symbol& r = sym[b.right];
    // Outdated if either side changed (symbols only grow, and a merged-away one has n == 0).
    if (l.n == 0 || r.n == 0 || l.n != b.lsize || r.n != b.rsize || l.next != b.right) continue;
    l.n += r.n;
    l.id = TokenId(word.substr(l.begin, l.n));
    r.n = 0;
    l.next = r.next;
    if (r.next >= 0) sym[r.next].prev = b.left;
    try_add(l.prev, b.left);
    try_add(b.left, l.next);
  }
  for (int i = 0; i != -1; i = sym[i].next) {
    const absl::string_view s = word.substr(sym[i].begin, sym[i].n);
    const int32_t id = sym[i].id >= 0 ? sym[i].id : TokenId(s);
    if (id >= 0) {
      out->push_back(id);
      continue;
    }
    if (byte_encode_) {
      // Each code point stands for one byte; look each one up on its own.
      for (size_t off = 0; off < s.size();) {
        const size_t len =
            std::min(Utf8SequenceLength(static_cast<uint8_t>(s[off])), s.size() - off);
        const int32_t cid = TokenId(s.substr(off, len));
        if (cid >= 0) {
          out->push_back(cid);
        } else if (unk_id_ >= 0) {
          out->push_back(unk_id_);
        }
        off += len;
      }
    } else {
      for (char c : s) {
        int32_t bid = bpe_byte_fallback_ ? TokenId(ByteTokenText(static_cast<uint8_t>(c))) : -1;
        if (bid < 0) bid = unk_id_;
        if (bid >= 0) out->push_back(bid);
      }
    }
  }
}

std::string Tokenizer::TokenToPiece(int32_t id, bool special) const {
  if (id < 0 || id >= n_tokens()) return "";
  const Token& tok = tokens_[id];
  const uint32_t attr = tok.attr;
  if (!special && (attr & (kAttrUnknown | kAttrControl))) return "";
  if (attr & (kAttrUnknown | kAttrControl)) return tok.text;
  if (attr & kAttrUserDefined) {
    // Added tokens of "▁" vocabularies (Gemma's runs of spaces) stand for spaces too.
    return escape_whitespaces_ && model_ == Model::kBpe
               ? absl::StrReplaceAll(tok.text, {{kSpaceMark, " "}})
               : tok.text;
  }
  if (attr & kAttrByte) {
    if (IsByteTokenText(tok.text)) {
      return std::string(1, static_cast<char>(HexValue(tok.text[3]) * 16 + HexValue(tok.text[4])));
    }
    if (byte_encode_) {
      const CodePoints cp = DecodeUtf8(tok.text);
      if (cp.cps.size() == 1 && CodePointToByte(cp.cps[0]) >= 0) {
        return std::string(1, static_cast<char>(CodePointToByte(cp.cps[0])));
      }
    }
    return tok.text;
  }
  if (attr & kAttrNormal) {
    if (model_ != Model::kBpe || escape_whitespaces_) {
      return absl::StrReplaceAll(tok.text, {{kSpaceMark, " "}});
    }
    // Byte-level: every code point maps back to one byte.
    std::string bytes;
    const CodePoints cp = DecodeUtf8(tok.text);
    for (size_t i = 0; i < cp.cps.size(); ++i) {
      const int b = CodePointToByte(cp.cps[i]);
      if (b >= 0) {
        bytes.push_back(static_cast<char>(b));
      } else {
        bytes.append(tok.text, cp.offsets[i], cp.offsets[i + 1] - cp.offsets[i]);
      }
    }
    return bytes;
  }
  return "";
}

std::string Tokenizer::TokenBytes(int32_t id) const {
  if (id < 0 || id >= n_tokens() || (tokens_[id].attr & kAttrUnused)) return "";
  return TokenToPiece(id, /*special=*/false);
}

std::string Tokenizer::Decode(absl::Span<const int32_t> ids, DecodeOptions options) const {
  bool remove_space = add_space_prefix_;
  if (options.remove_special && add_bos_ && !ids.empty() && ids.front() == bos_id_) {
    remove_space = false;
    ids.remove_prefix(1);
  }
  if (options.remove_special && add_eos_ && !ids.empty() && ids.back() == eos_id_) {
    ids.remove_suffix(1);
  }
  std::string text;
  for (int32_t id : ids) {
    std::string piece = TokenToPiece(id, options.unparse_special);
    if (remove_space && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
    remove_space = false;
    text += piece;
  }
  if (!clean_spaces_ || !options.clean_spaces || text.empty()) return text;
  // llama.cpp's three clean-up passes: " ?", " !", " .", " ," lose the space; " ' " loses both
  // spaces; " 's", " 'm", " 're", " 've" lose the space.
  std::string a;
  a.push_back(text[0]);
  for (size_t i = 1; i < text.size(); ++i) {
    const char x = text[i];
    if (text[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) a.pop_back();
    a.push_back(x);
  }
  std::string b;
  b.push_back(a[0]);
  for (size_t i = 1; i < a.size(); ++i) {
    const char x = a[i];
    if (x == '\'' && i + 1 < a.size() && a[i - 1] == ' ' && a[i + 1] == ' ') {
      b.pop_back();
      b.push_back(x);
      ++i;  // drop the next space
      continue;
    }
    b.push_back(x);
  }
  std::string c;
  c.push_back(b[0]);
  for (size_t i = 1; i < b.size(); ++i) {
    const char x = b[i];
    if (b[i - 1] == ' ' && x == '\'' && i + 1 < b.size()) {
      const char x1 = b[i + 1];
      const char x2 = i + 2 < b.size() ? b[i + 2] : '\0';
      if (x1 == 's' || x1 == 'm' || (x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e')) {
        c.pop_back();
      }
    }
    c.push_back(x);
  }
  return c;
}

bool Tokenizer::normalizes_nfc() const {
  return std::find(normalizers_.begin(), normalizers_.end(), Normalizer::kNfc) !=
         normalizers_.end();
}

std::string Tokenizer::Normalize(absl::string_view text) const {
  std::string out(text);
  for (Normalizer n : normalizers_) {
    switch (n) {
      case Normalizer::kNfc:
        out = NormalizeNfc(out);
        break;
      case Normalizer::kNfkc:
        out = NormalizeNfkc(out);
        break;
      case Normalizer::kLowercase:
        out = LowercaseUtf8(out);
        break;
    }
  }
  return out;
}

std::string StreamDecoder::Push(int32_t id) {
  pending_ += tok_->TokenToPiece(id, special_);
  // Hold back an incomplete UTF-8 character at the end.
  size_t cut = pending_.size();
  for (size_t back = 1; back <= 4 && back <= pending_.size(); ++back) {
    const uint8_t c = static_cast<uint8_t>(pending_[pending_.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte: keep looking for the lead
    const size_t need = Utf8SequenceLength(c);
    if (c >= 0xC2 && c <= 0xF4 && need > back) cut = pending_.size() - back;
    break;
  }
  std::string out = pending_.substr(0, cut);
  pending_.erase(0, cut);
  return out;
}

std::string StreamDecoder::Flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

}  // namespace tokenizer
}  // namespace edgeq
