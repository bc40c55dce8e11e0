// Tokenizer <-> GGUF metadata (tokenizer.ggml.*): FromGguf, ToGgufMetadata, and the
// pre-tokenizer table that names the split patterns.
#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checkpoint/gguf.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "tokenizer/hf_patterns.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace tokenizer {
namespace {

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
    // As their tokenizer.json files spell the patterns (our engine runs them as written).
    v->push_back({{"deepseek-v3"},
                  {hf_patterns::kDeepseekV3Digits, hf_patterns::kDeepseekV3Cjk,
                   hf_patterns::kDeepseekV3Words},
                  false});
    // gpt-oss's tokenizer.json sets ignore_merges, which Hugging Face's ids depend on.
    v->push_back({{"gpt-4o"}, {hf_patterns::kGpt4o}, false, true});
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

// The GGUF key of the Unicode normalizers (edgeq's own; llama.cpp ignores it).
constexpr char kNormalizersKey[] = "tokenizer.edgeq.normalizers";

const char* NormalizerName(Tokenizer::Normalizer n) {
  switch (n) {
    case Tokenizer::Normalizer::kNfc:
      return "NFC";
    case Tokenizer::Normalizer::kNfkc:
      return "NFKC";
    case Tokenizer::Normalizer::kLowercase:
      return "Lowercase";
  }
  return "";
}

absl::StatusOr<Tokenizer::Normalizer> NormalizerFromName(absl::string_view name) {
  for (Tokenizer::Normalizer n : {Tokenizer::Normalizer::kNfc, Tokenizer::Normalizer::kNfkc,
                                  Tokenizer::Normalizer::kLowercase}) {
    if (name == NormalizerName(n)) return n;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown normalizer ", QuoteForError(name), " in ",
                                                 kNormalizersKey,
                                                 "; supported: NFC, NFKC, Lowercase"));
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

// The model kind and its defaults (tokenizer.ggml.model, .pre, WordPiece's options), and the
// Unicode normalizers.
absl::Status Tokenizer::SetModelFromGguf(const checkpoint::TensorDict& dict) {
  using Kind = checkpoint::MetadataValue::Kind;
  EDGEQ_ASSIGN_OR_RETURN(model_name_, dict.GetString("tokenizer.ggml.model"));
  std::string pre = "default";
  if (dict.HasMetadata("tokenizer.ggml.pre")) {
    EDGEQ_ASSIGN_OR_RETURN(pre, dict.GetString("tokenizer.ggml.pre"));
  }
  if (model_name_ == "llama") {
    model_ = Model::kSpm;
    pre_ = pre;
    bos_id_ = 1, eos_id_ = 2, unk_id_ = 0;
    add_space_prefix_ = true;
    add_bos_ = true;
    escape_whitespaces_ = true;
    byte_encode_ = false;
  } else if (model_name_ == "gpt2") {
    model_ = Model::kBpe;
    bos_id_ = 11, eos_id_ = 11;
    EDGEQ_RETURN_IF_ERROR(SetPreTokenizer(pre));
  } else if (model_name_ == "bert") {
    model_ = Model::kWpm;
    pre_ = pre;
    bos_id_ = 101, unk_id_ = 100, sep_id_ = 102, pad_id_ = 0;
    add_bos_ = true;
    add_sep_ = true;
    clean_spaces_ = true;
    escape_whitespaces_ = false;
    byte_encode_ = false;
    for (const char* key : {"tokenizer.ggml.seperator_token_id", "tokenizer.ggml.cls_token_id"}) {
      if (!dict.HasMetadata(key)) continue;
      EDGEQ_ASSIGN_OR_RETURN(int64_t id, dict.GetInt(key));
      (std::strcmp(key, "tokenizer.ggml.cls_token_id") == 0 ? bos_id_ : sep_id_) =
          static_cast<int32_t>(id);
    }
    EDGEQ_RETURN_IF_ERROR(
        OptionalBool(dict, "tokenizer.ggml.normalizer.lowercase", &wpm_lowercase_));
    wpm_strip_accents_ = wpm_lowercase_;
    EDGEQ_RETURN_IF_ERROR(
        OptionalBool(dict, "tokenizer.ggml.normalizer.strip_accents", &wpm_strip_accents_));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown tokenizer model ", QuoteForError(model_name_),
                     " (tokenizer.ggml.model); supported: llama (SentencePiece), gpt2 (BPE), bert "
                     "(WordPiece)"));
  }
  EDGEQ_RETURN_IF_ERROR(OptionalBool(dict, "tokenizer.ggml.add_space_prefix", &add_space_prefix_));
  if (dict.HasMetadata(kNormalizersKey)) {
    EDGEQ_ASSIGN_OR_RETURN(const checkpoint::MetadataValue* names,
                           GetArray(dict, kNormalizersKey, Kind::kString, "strings"));
    for (const std::string& name : names->strings()) {
      EDGEQ_ASSIGN_OR_RETURN(Normalizer n, NormalizerFromName(name));
      normalizers_.push_back(n);
    }
  }
  return absl::OkStatus();
}

// Tokens with scores and types, and the BPE merges.
absl::Status Tokenizer::ReadGgufVocabulary(const checkpoint::TensorDict& dict) {
  using Kind = checkpoint::MetadataValue::Kind;
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
  tokens_.resize(n);
  token_to_id_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Token& tok = tokens_[i];
    tok.text = tokens->strings()[i];
    if (tok.text.empty()) tok.text = absl::StrCat("[EMPTY_", i, "]");
    tok.score = scores ? static_cast<float>((*scores)[i]) : 0.0f;
    tok.attr = types ? AttrFromGgufType((*types)[i]) : kAttrNormal;
    token_to_id_[tok.text] = static_cast<int32_t>(i);
    max_token_len_ = std::max(max_token_len_, tok.text.size());
  }
  if (model_ == Model::kBpe) {
    EDGEQ_ASSIGN_OR_RETURN(const checkpoint::MetadataValue* merges,
                           GetArray(dict, "tokenizer.ggml.merges", Kind::kString, "strings"));
    bpe_merges_.reserve(merges->size());
    merge_list_.reserve(merges->size());
    for (size_t i = 0; i < merges->size(); ++i) {
      const std::string& m = merges->strings()[i];
      const size_t pos = m.size() > 1 ? m.find(' ', 1) : std::string::npos;
      if (pos == std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat("GGUF key 'tokenizer.ggml.merges' entry ", i,
                                                       " ", QuoteForError(m),
                                                       " is not two tokens separated by a space"));
      }
      AddMerge(absl::string_view(m).substr(0, pos), absl::string_view(m).substr(pos + 1));
    }
  }
  return absl::OkStatus();
}

// Special token ids and the add_bos / add_eos flags.
absl::Status Tokenizer::ReadGgufSpecialIds(const checkpoint::TensorDict& dict) {
  const size_t n = tokens_.size();
  const struct {
    const char* key;
    int32_t* id;
  } kIds[] = {
      {"tokenizer.ggml.bos_token_id", &bos_id_},     {"tokenizer.ggml.eos_token_id", &eos_id_},
      {"tokenizer.ggml.eot_token_id", &eot_id_},     {"tokenizer.ggml.eom_token_id", &eom_id_},
      {"tokenizer.ggml.unknown_token_id", &unk_id_}, {"tokenizer.ggml.padding_token_id", &pad_id_},
  };
  for (const auto& k : kIds) {
    if (*k.id >= static_cast<int64_t>(n)) *k.id = -1;  // a default outside this vocabulary
    if (!dict.HasMetadata(k.key)) continue;
    EDGEQ_ASSIGN_OR_RETURN(int64_t id, dict.GetInt(k.key));
    // As llama.cpp: an id outside the vocabulary (files write 0xFFFFFFFF for "none") keeps the
    // default.
    if (id >= 0 && id < static_cast<int64_t>(n)) *k.id = static_cast<int32_t>(id);
  }
  if (sep_id_ >= static_cast<int64_t>(n)) {
    return absl::InvalidArgumentError(absl::StrCat("the separator token id ", sep_id_,
                                                   " is outside the vocabulary (", n, " tokens)"));
  }
  if (add_sep_ && sep_id_ < 0) {
    return absl::InvalidArgumentError("a WordPiece vocabulary needs a separator token id");
  }
  EDGEQ_RETURN_IF_ERROR(OptionalBool(dict, "tokenizer.ggml.add_bos_token", &add_bos_));
  EDGEQ_RETURN_IF_ERROR(OptionalBool(dict, "tokenizer.ggml.add_eos_token", &add_eos_));
  if (pre_ == "gemma4") add_bos_ = true;
  return absl::OkStatus();
}

absl::StatusOr<Tokenizer> Tokenizer::FromGguf(const checkpoint::TensorDict& dict) {
  Tokenizer t;
  EDGEQ_RETURN_IF_ERROR(t.SetModelFromGguf(dict));
  EDGEQ_RETURN_IF_ERROR(t.ReadGgufVocabulary(dict));
  EDGEQ_RETURN_IF_ERROR(t.ReadGgufSpecialIds(dict));
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

absl::Status Tokenizer::ToGgufMetadata(checkpoint::TensorDict* dict) const {
  using MV = checkpoint::MetadataValue;
  if (!hf_patterns_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the tokenizer's Split regex ", QuoteForError(hf_patterns_[0], 120), " (one of ",
        hf_patterns_.size(),
        ") has no GGUF pre-tokenizer name, so a GGUF file could not run it; supported: ",
        absl::StrJoin(SupportedPreTokenizers(), ", ")));
  }
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
  if (!normalizers_.empty()) {
    std::vector<std::string> names;
    for (Normalizer n : normalizers_) names.push_back(NormalizerName(n));
    dict->SetMetadata(kNormalizersKey, MV::StringArray(std::move(names)));
  }
  return absl::OkStatus();
}

}  // namespace tokenizer
}  // namespace edgeq
