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
#include "tokenizer/unicode.h"

namespace edgeq {
namespace tokenizer {
namespace {

constexpr char kSpaceMark[] = "\xe2\x96\x81";  // U+2581, SentencePiece's space

// ---- Pre-tokenizer patterns (the splits each model family's tokenizer.json describes, in the
// form llama.cpp applies them: a list of patterns applied one after the other). ----

// GPT-2's pattern.
constexpr char kPatGpt2[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";
// Llama 3 (tiktoken cl100k-like); the case-insensitive contractions spelled out.
constexpr char kPatLlama3[] =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
// Qwen2: as Llama 3 but single digits.
constexpr char kPatQwen2[] =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
// Qwen3.5: marks join letters.
constexpr char kPatQwen35[] =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]"
    "+|"
    "\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
// DeepSeek LLM's letter class (Latin, Greek, Cyrillic, Armenian, Georgian, Cherokee, ... ranges
// as its tokenizer.json lists them).
constexpr char kPatDeepseekLetters[] =
    "\\s?[A-Za-z\xc2\xb5\xc3\x80-\xc3\x96\xc3\x98-\xc3\xb6\xc3\xb8-\xc6\xba\xc6\xbc-\xc6\xbf"
    "\xc7\x84-\xca\x93\xca\x95-\xca\xaf\xcd\xb0-\xcd\xb3\xcd\xb6\xcd\xb7\xcd\xbb-\xcd\xbd\xcd\xbf"
    "\xce\x86\xce\x88-\xce\x8a\xce\x8c\xce\x8e-\xce\xa1\xce\xa3-\xcf\xb5\xcf\xb7-\xd2\x81"
    "\xd2\x8a-\xd4\xaf\xd4\xb1-\xd5\x96\xe1\x82\xa0-\xe1\x83\x85\xe1\x8e\xa0-\xe1\x8f\xb5"
    "\xe1\x8f\xb8-\xe1\x8f\xbd\xe1\xb2\x90-\xe1\xb2\xba\xe1\xb2\xbd-\xe1\xb2\xbf\xe1\xb4\x80-"
    "\xe1\xb4\xab\xe1\xb5\xab-\xe1\xb5\xb7\xe1\xb5\xb9-\xe1\xb6\x9a\xe1\xb8\x80-\xe1\xbc\x95"
    "\xe1\xbc\x98-\xe1\xbc\x9d\xe1\xbc\xa0-\xe1\xbd\x85\xe1\xbd\x88-\xe1\xbd\x8d\xe1\xbd\x90-"
    "\xe1\xbd\x97\xe1\xbd\x99\xe1\xbd\x9b\xe1\xbd\x9d\xe1\xbd\x9f-\xe1\xbd\xbd\xe1\xbe\x80-"
    "\xe1\xbe\xb4\xe1\xbe\xb6-\xe1\xbe\xbc\xe1\xbe\xbe\xe1\xbf\x82-\xe1\xbf\x84\xe1\xbf\x86-"
    "\xe1\xbf\x8c\xe1\xbf\x90-\xe1\xbf\x93\xe1\xbf\x96-\xe1\xbf\x9b\xe1\xbf\xa0-\xe1\xbf\xac"
    "\xe1\xbf\xb2-\xe1\xbf\xb4\xe1\xbf\xb6-\xe1\xbf\xbc\xe2\x84\x82\xe2\x84\x87\xe2\x84\x8a-"
    "\xe2\x84\x93\xe2\x84\x95\xe2\x84\x99-\xe2\x84\x9d\xe2\x84\xa4\xe2\x84\xa6\xe2\x84\xa8"
    "\xe2\x84\xaa-\xe2\x84\xad\xe2\x84\xaf-\xe2\x84\xb4\xe2\x84\xb9\xe2\x84\xbc-\xe2\x84\xbf"
    "\xe2\x85\x85-\xe2\x85\x89\xe2\x85\x8e\xe2\x86\x83\xe2\x86\x84\xe2\xb0\x80-\xe2\xb1\xbb"
    "\xe2\xb1\xbe-\xe2\xb3\xa4\xe2\xb3\xab-\xe2\xb3\xae\xe2\xb3\xb2\xe2\xb3\xb3\xea\x99\x80-"
    "\xea\x99\xad\xea\x9a\x80-\xea\x9a\x9b\xea\x9c\xa2-\xea\x9d\xaf\xea\x9d\xb1-\xea\x9e\x87"
    "\xea\x9e\x8b-\xea\x9e\x8e\xea\xad\xb0-\xea\xae\xbf\xef\xac\x80-\xef\xac\x86\xef\xac\x93-"
    "\xef\xac\x97\xef\xbc\xa1-\xef\xbc\xba\xef\xbd\x81-\xef\xbd\x9a\xf0\x90\x90\x80-"
    "\xf0\x90\x91\x8f\xf0\x90\x92\xb0-\xf0\x90\x93\x93\xf0\x90\x93\x98-\xf0\x90\x93\xbb"
    "\xf0\x90\xb2\x80-\xf0\x90\xb2\xb2\xf0\x90\xb3\x80-\xf0\x90\xb3\xb2\xf0\x91\xa2\xa0-"
    "\xf0\x91\xa3\x9f\xf0\x9e\xa4\x80-\xf0\x9e\xa5\x83]+";
constexpr char kPatCjk[] =
    "[\xe4\xb8\x80-\xe9\xbe\xa5\xe0\xa0\x80-\xe4\xb8\x80\xea\xb0\x80-\xed\x9f\xbf]+";

struct PreTokenizerSpec {
  std::vector<const char*> names;
  std::vector<std::string> patterns;
  bool clean_spaces = true;
  bool ignore_merges = false;
  bool add_bos = false;
  bool spm_style = false;  // "▁" for spaces, raw UTF-8 (no byte-level mapping)
};

const std::vector<PreTokenizerSpec>& PreTokenizerSpecs() {
  static const std::vector<PreTokenizerSpec>* const specs = [] {
    auto* v = new std::vector<PreTokenizerSpec>();
    v->push_back(
        {{"default"}, {"[\\p{P}\\$\\+<=>\\^~\\|]+", kPatGpt2, "\\p{N}+", "[0-9][0-9][0-9]"}});
    v->push_back({{"llama3", "llama-v3", "llama-bpe", "falcon3", "pixtral", "dbrx", "smaug-bpe"},
                  {kPatLlama3},
                  true,
                  true,
                  true});
    v->push_back({{"deepseek-llm"},
                  {"[\r\n]", kPatDeepseekLetters,
                   "\\s?[!-/:-~\xef\xbc\x81-\xef\xbc\x8f\xef\xbc\x9a-\xef\xbd\x9e\xe2\x80\x98-"
                   "\xe2\x80\x9f\xe3\x80\x80-\xe3\x80\x82]+",
                   "\\s+$", kPatCjk, "\\p{N}+"},
                  false});
    v->push_back(
        {{"deepseek-coder"}, {"[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", kPatCjk, "\\p{N}"}, false});
    v->push_back({{"falcon"}, {"[\\p{P}\\$\\+<=>\\^~\\|`]+", kPatGpt2, "[0-9][0-9][0-9]"}});
    v->push_back({{"starcoder", "refact", "codeshell"}, {"\\p{N}", kPatGpt2}});
    v->push_back({{"command-r", "smollm"}, {"\\p{N}", kPatGpt2}, false});
    v->push_back({{"gpt-2", "mpt", "olmo", "phi-2", "jais", "gpt-neox"}, {kPatGpt2}});
    v->push_back({{"qwen2", "deepseek-r1-qwen"}, {kPatQwen2}, false});
    v->push_back({{"stablelm2"}, {kPatQwen2}});
    v->push_back({{"qwen35"}, {kPatQwen35}, false});
    v->push_back({{"gemma4"}, {"[^\\n]+|[\\n]+"}, true, false, true, true});
    return v;
  }();
  return *specs;
}

const PreTokenizerSpec* FindPreTokenizer(absl::string_view name) {
  for (const PreTokenizerSpec& s : PreTokenizerSpecs()) {
    for (const char* n : s.names) {
      if (name == n) return &s;
    }
  }
  return nullptr;
}

// GGUF token_type values (llama.cpp's llama_token_type).
uint32_t AttrFromGgufType(int64_t type) {
  switch (type) {
    case 1:
      return kAttrNormal;
    case 2:
      return kAttrUnknown;
    case 3:
      return kAttrControl;
    case 4:
      return kAttrUserDefined;
    case 5:
      return kAttrUnused;
    case 6:
      return kAttrByte;
    default:
      return kAttrUndefined;
  }
}
int64_t GgufTypeFromAttr(uint32_t attr) {
  if (attr & kAttrNormal) return 1;
  if (attr & kAttrUnknown) return 2;
  if (attr & kAttrControl) return 3;
  if (attr & kAttrUserDefined) return 4;
  if (attr & kAttrUnused) return 5;
  if (attr & kAttrByte) return 6;
  return 0;
}

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

absl::StatusOr<const checkpoint::MetadataValue*> GetArray(const checkpoint::TensorDict& dict,
                                                          absl::string_view key,
                                                          checkpoint::MetadataValue::Kind kind,
                                                          const char* kind_name) {
  EDGEQ_ASSIGN_OR_RETURN(const checkpoint::MetadataValue* v, dict.GetMetadata(key));
  if (!v->is_array() || v->kind() != kind) {
    return absl::InvalidArgumentError(absl::StrCat("GGUF key '", key, "' must be an array of ",
                                                   kind_name, ", found ", v->TypeName()));
  }
  return v;
}

// An optional per-token array (scores, token types): nullptr if `key` is absent, else it must be
// an array of `kind` with one entry per token.
absl::StatusOr<const checkpoint::MetadataValue*> GetPerTokenArray(
    const checkpoint::TensorDict& dict, absl::string_view key, checkpoint::MetadataValue::Kind kind,
    const char* kind_name, size_t n) {
  if (!dict.HasMetadata(key)) return nullptr;
  EDGEQ_ASSIGN_OR_RETURN(const checkpoint::MetadataValue* v, GetArray(dict, key, kind, kind_name));
  if (v->size() != n) {
    return absl::InvalidArgumentError(absl::StrCat("GGUF key '", key, "' has ", v->size(),
                                                   " entries, expected ", n, " (one per token)"));
  }
  return v;
}

// Sets *out to the bool at `key` if the key is present. A value of another type (an integer, or
// a string such as "false") is refused, naming the key and the stored type, rather than read as
// false.
absl::Status OptionalBool(const checkpoint::TensorDict& dict, absl::string_view key, bool* out) {
  if (!dict.HasMetadata(key)) return absl::OkStatus();
  absl::StatusOr<bool> v = dict.GetBool(key);
  if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat("GGUF ", v.status().message()));
  *out = *v;
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> Tokenizer::SupportedModels() { return {"llama", "gpt2", "bert"}; }

std::vector<std::string> Tokenizer::SupportedPreTokenizers() {
  std::vector<std::string> out;
  for (const PreTokenizerSpec& s : PreTokenizerSpecs()) {
    for (const char* n : s.names) out.push_back(n);
  }
  return out;
}

absl::Status Tokenizer::SetPreTokenizer(absl::string_view pre) {
  const PreTokenizerSpec* spec = FindPreTokenizer(pre);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown pre-tokenizer ", QuoteForError(pre),
        " (tokenizer.ggml.pre); supported: ", absl::StrJoin(SupportedPreTokenizers(), ", ")));
  }
  pre_ = std::string(pre);
  regexes_.clear();
  for (const std::string& p : spec->patterns) {
    EDGEQ_ASSIGN_OR_RETURN(PreTokenizerRegex re, PreTokenizerRegex::Compile(p));
    regexes_.push_back(std::move(re));
  }
  clean_spaces_ = spec->clean_spaces;
  ignore_merges_ = spec->ignore_merges;
  add_bos_ = spec->add_bos;
  escape_whitespaces_ = spec->spm_style;
  byte_encode_ = !spec->spm_style;
  bpe_byte_fallback_ = spec->spm_style;
  return absl::OkStatus();
}

absl::StatusOr<Tokenizer> Tokenizer::FromGgufFile(const std::string& path) {
  absl::StatusOr<checkpoint::TensorDict> dict = checkpoint::ReadGguf(path);
  if (!dict.ok()) return dict.status();
  absl::StatusOr<Tokenizer> tok = FromGguf(*dict);
  if (!tok.ok()) {
    return absl::Status(tok.status().code(), absl::StrCat(path, ": ", tok.status().message()));
  }
  return tok;
}

absl::StatusOr<Tokenizer> Tokenizer::FromGguf(const checkpoint::TensorDict& dict) {
  using Kind = checkpoint::MetadataValue::Kind;
  Tokenizer t;
  EDGEQ_ASSIGN_OR_RETURN(t.model_name_, dict.GetString("tokenizer.ggml.model"));
  std::string pre = "default";
  if (dict.HasMetadata("tokenizer.ggml.pre")) {
    EDGEQ_ASSIGN_OR_RETURN(pre, dict.GetString("tokenizer.ggml.pre"));
  }
  if (t.model_name_ == "llama") {
    t.model_ = Model::kSpm;
    t.pre_ = pre;
    t.bos_id_ = 1, t.eos_id_ = 2, t.unk_id_ = 0;
    t.add_space_prefix_ = true;
    t.add_bos_ = true;
    t.escape_whitespaces_ = true;
    t.byte_encode_ = false;
  } else if (t.model_name_ == "gpt2") {
    t.model_ = Model::kBpe;
    t.bos_id_ = 11, t.eos_id_ = 11;
    EDGEQ_RETURN_IF_ERROR(t.SetPreTokenizer(pre));
  } else if (t.model_name_ == "bert") {
    t.model_ = Model::kWpm;
    t.pre_ = pre;
    t.bos_id_ = 101, t.unk_id_ = 100, t.sep_id_ = 102, t.pad_id_ = 0;
    t.add_bos_ = true;
    t.add_sep_ = true;
    t.clean_spaces_ = true;
    t.escape_whitespaces_ = false;
    t.byte_encode_ = false;
    for (const char* key : {"tokenizer.ggml.seperator_token_id", "tokenizer.ggml.cls_token_id"}) {
      if (!dict.HasMetadata(key)) continue;
      EDGEQ_ASSIGN_OR_RETURN(int64_t id, dict.GetInt(key));
      (std::strcmp(key, "tokenizer.ggml.cls_token_id") == 0 ? t.bos_id_ : t.sep_id_) =
          static_cast<int32_t>(id);
    }
    EDGEQ_RETURN_IF_ERROR(
        OptionalBool(dict, "tokenizer.ggml.normalizer.lowercase", &t.wpm_lowercase_));
    t.wpm_strip_accents_ = t.wpm_lowercase_;
    EDGEQ_RETURN_IF_ERROR(
        OptionalBool(dict, "tokenizer.ggml.normalizer.strip_accents", &t.wpm_strip_accents_));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown tokenizer model ", QuoteForError(t.model_name_),
                     " (tokenizer.ggml.model); supported: llama (SentencePiece), gpt2 (BPE), bert "
                     "(WordPiece)"));
  }
  EDGEQ_RETURN_IF_ERROR(
      OptionalBool(dict, "tokenizer.ggml.add_space_prefix", &t.add_space_prefix_));

  EDGEQ_ASSIGN_OR_RETURN(const checkpoint::MetadataValue* tokens,
                         GetArray(dict, "tokenizer.ggml.tokens", Kind::kString, "strings"));
  const size_t n = tokens->size();
  if (n == 0 || n > (size_t{1} << 30)) {
    return absl::InvalidArgumentError(
        absl::StrCat("GGUF key 'tokenizer.ggml.tokens' has ", n, " tokens (expected 1..2^30)"));
  }
  EDGEQ_ASSIGN_OR_RETURN(
      const checkpoint::MetadataValue* score_values,
      GetPerTokenArray(dict, "tokenizer.ggml.scores", Kind::kFloat, "floats", n));
  EDGEQ_ASSIGN_OR_RETURN(
      const checkpoint::MetadataValue* type_values,
      GetPerTokenArray(dict, "tokenizer.ggml.token_type", Kind::kInt, "integers", n));
  const std::vector<double>* scores = score_values ? &score_values->floats() : nullptr;
  const std::vector<int64_t>* types = type_values ? &type_values->ints() : nullptr;
  t.tokens_.resize(n);
  t.token_to_id_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Token& tok = t.tokens_[i];
    tok.text = tokens->strings()[i];
    if (tok.text.empty()) tok.text = absl::StrCat("[EMPTY_", i, "]");
    tok.score = scores ? static_cast<float>((*scores)[i]) : 0.0f;
    tok.attr = types ? AttrFromGgufType((*types)[i]) : kAttrNormal;
    t.token_to_id_[tok.text] = static_cast<int32_t>(i);
    t.max_token_len_ = std::max(t.max_token_len_, tok.text.size());
  }
  if (t.model_ == Model::kBpe) {
    EDGEQ_ASSIGN_OR_RETURN(const checkpoint::MetadataValue* merges,
                           GetArray(dict, "tokenizer.ggml.merges", Kind::kString, "strings"));
    t.bpe_merges_.reserve(merges->size());
    t.merge_list_.reserve(merges->size());
    for (size_t i = 0; i < merges->size(); ++i) {
      const std::string& m = merges->strings()[i];
      const size_t pos = m.size() > 1 ? m.find(' ', 1) : std::string::npos;
      if (pos == std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat("GGUF key 'tokenizer.ggml.merges' entry ", i,
                                                       " ", QuoteForError(m),
                                                       " is not two tokens separated by a space"));
      }
      t.AddMerge(absl::string_view(m).substr(0, pos), absl::string_view(m).substr(pos + 1));
    }
  }

  const struct {
    const char* key;
    int32_t* id;
  } kIds[] = {
      {"tokenizer.ggml.bos_token_id", &t.bos_id_},
      {"tokenizer.ggml.eos_token_id", &t.eos_id_},
      {"tokenizer.ggml.eot_token_id", &t.eot_id_},
      {"tokenizer.ggml.eom_token_id", &t.eom_id_},
      {"tokenizer.ggml.unknown_token_id", &t.unk_id_},
      {"tokenizer.ggml.padding_token_id", &t.pad_id_},
  };
  for (const auto& k : kIds) {
    if (*k.id >= static_cast<int64_t>(n)) *k.id = -1;  // a default outside this vocabulary
    if (!dict.HasMetadata(k.key)) continue;
    EDGEQ_ASSIGN_OR_RETURN(int64_t id, dict.GetInt(k.key));
    // As llama.cpp: an id outside the vocabulary (files write 0xFFFFFFFF for "none") keeps the
    // default.
    if (id >= 0 && id < static_cast<int64_t>(n)) *k.id = static_cast<int32_t>(id);
  }
  if (t.sep_id_ >= static_cast<int64_t>(n)) {
    return absl::InvalidArgumentError(absl::StrCat("the separator token id ", t.sep_id_,
                                                   " is outside the vocabulary (", n, " tokens)"));
  }
  if (t.add_sep_ && t.sep_id_ < 0) {
    return absl::InvalidArgumentError("a WordPiece vocabulary needs a separator token id");
  }
  EDGEQ_RETURN_IF_ERROR(OptionalBool(dict, "tokenizer.ggml.add_bos_token", &t.add_bos_));
  EDGEQ_RETURN_IF_ERROR(OptionalBool(dict, "tokenizer.ggml.add_eos_token", &t.add_eos_));
  if (t.pre_ == "gemma4") t.add_bos_ = true;

  // llama.cpp sets per-token strip attributes by model name for Phi-3.
  std::string name;
  if (dict.HasMetadata("general.name")) {
    absl::StatusOr<std::string> s = dict.GetString("general.name");
    if (s.ok()) name = absl::AsciiStrToLower(*s);
  }
  EDGEQ_RETURN_IF_ERROR(t.Finish(t.pre_));
  if (absl::StrContains(name, "phi-3") || absl::StrContains(name, "phi3")) {
    for (int32_t id : t.special_tokens_) t.tokens_[id].attr |= kAttrRstrip;
    for (const char* s : {"</s>"}) {
      const int32_t id = t.TokenId(s);
      if (id >= 0) t.tokens_[id].attr |= kAttrRstrip;
    }
    for (const char* s : {"<unk>", "<s>", "<|endoftext|>"}) {
      const int32_t id = t.TokenId(s);
      if (id >= 0) t.tokens_[id].attr &= ~kAttrRstrip;
    }
  }
  return t;
}

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
  std::string normalized;
  if (nfc_) {
    normalized = NormalizeNfc(text);
    text = normalized;
  }
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
    piece.append(text.data() + f.offset, f.length);
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

void Tokenizer::ToGgufMetadata(checkpoint::TensorDict* dict) const {
  using MV = checkpoint::MetadataValue;
  dict->SetMetadata("tokenizer.ggml.model", MV::String(model_name_));
  dict->SetMetadata("tokenizer.ggml.pre", MV::String(pre_));
  std::vector<std::string> texts;
  std::vector<double> scores;
  std::vector<int64_t> types;
  for (const Token& t : tokens_) {
    texts.push_back(t.text);
    scores.push_back(t.score);
    types.push_back(GgufTypeFromAttr(t.attr));
  }
  dict->SetMetadata("tokenizer.ggml.tokens", MV::StringArray(std::move(texts)));
  dict->SetMetadata("tokenizer.ggml.scores", MV::FloatArray(std::move(scores), MV::Width::kF32));
  dict->SetMetadata("tokenizer.ggml.token_type", MV::IntArray(std::move(types), MV::Width::kI32));
  if (model_ == Model::kBpe) {
    std::vector<std::string> merges;
    merges.reserve(merge_list_.size());
    for (const auto& m : merge_list_) {
      merges.push_back(absl::StrCat(tokens_[m.first].text, " ", tokens_[m.second].text));
    }
    dict->SetMetadata("tokenizer.ggml.merges", MV::StringArray(std::move(merges)));
  }
  const struct {
    const char* key;
    int32_t id;
  } kIds[] = {{"tokenizer.ggml.bos_token_id", bos_id_},
              {"tokenizer.ggml.eos_token_id", eos_id_},
              {"tokenizer.ggml.eot_token_id", eot_id_},
              {"tokenizer.ggml.unknown_token_id", unk_id_},
              {"tokenizer.ggml.padding_token_id", pad_id_}};
  for (const auto& k : kIds) {
    if (k.id >= 0) dict->SetMetadata(k.key, MV::Int(k.id, MV::Width::kU32));
  }
  if (sep_id_ >= 0) {
    dict->SetMetadata("tokenizer.ggml.seperator_token_id", MV::Int(sep_id_, MV::Width::kU32));
  }
  if (model_ == Model::kWpm) {
    dict->SetMetadata("tokenizer.ggml.normalizer.lowercase", MV::Bool(wpm_lowercase_));
    dict->SetMetadata("tokenizer.ggml.normalizer.strip_accents", MV::Bool(wpm_strip_accents_));
  }
  dict->SetMetadata("tokenizer.ggml.add_bos_token", MV::Bool(add_bos_));
  dict->SetMetadata("tokenizer.ggml.add_eos_token", MV::Bool(add_eos_));
  if (model_ == Model::kSpm) {
    dict->SetMetadata("tokenizer.ggml.add_space_prefix", MV::Bool(add_space_prefix_));
  }
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
