// Tokenizer::FromHfTokenizerJson: a Hugging Face tokenizer.json (+ tokenizer_config.json).
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checkpoint/internal/json_input.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "nlohmann/json.hpp"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace edgeq {
namespace tokenizer {
namespace {

using json = nlohmann::json;

// Size-capped, depth-checked, duplicate keys refused (checkpoint/internal/json_input.h).
absl::StatusOr<json> ReadJson(const std::string& path,
                              const json::parser_callback_t& callback = nullptr) {
  return checkpoint::internal::ReadJsonObjectFile(path, callback);
}

// The big parts of a tokenizer.json (model.vocab and model.merges), taken out while parsing
// instead of being built as JSON values (a Gemma 3 file has 262k tokens and 515k merges).
struct BigParts {
  std::vector<std::pair<std::string, int64_t>> vocab;
  bool vocab_bad = false;
  std::vector<std::pair<std::string, std::string>> merges;
  bool merges_bad = false;
};

absl::StatusOr<json> ReadTokenizerJson(const std::string& path, BigParts* big) {
  std::vector<std::string> stack;  // keys of the open containers ("" for the root / elements)
  std::string pending_key;
  std::vector<std::string> pair;  // elements of the merge pair being read
  auto at = [&](std::initializer_list<const char*> p) {
    if (stack.size() != p.size() + 1) return false;
    size_t i = 1;
    for (const char* k : p) {
      if (stack[i++] != k) return false;
    }
    return true;
  };
  using E = json::parse_event_t;
  json::parser_callback_t cb = [&](int /*depth*/, E event, json& parsed) -> bool {
    switch (event) {
      case E::key:
        pending_key = parsed.is_string() ? parsed.get<std::string>() : std::string();
        return true;
      case E::object_start:
      case E::array_start:
        stack.push_back(pending_key);
        pending_key.clear();
        if (event == E::array_start && at({"model", "merges", ""})) pair.clear();
        return true;
      case E::object_end:
      case E::array_end:
        if (event == E::array_end && at({"model", "merges", ""})) {
          if (pair.size() == 2) {
            big->merges.emplace_back(std::move(pair[0]), std::move(pair[1]));
          } else {
            big->merges_bad = true;
          }
          stack.pop_back();
          return false;
        }
        if (!stack.empty()) stack.pop_back();
        return true;
      case E::value:
        if (at({"model", "vocab"})) {
          if (parsed.is_number_integer()) {
            big->vocab.emplace_back(pending_key, parsed.get<int64_t>());
          } else {
            big->vocab_bad = true;
          }
          return false;
        }
        if (at({"model", "merges"})) {
          if (parsed.is_string()) {
            const std::string m = parsed.get<std::string>();
            const size_t pos = m.size() > 1 ? m.find(' ', 1) : std::string::npos;
            if (pos == std::string::npos) {
              big->merges_bad = true;
            } else {
              big->merges.emplace_back(m.substr(0, pos), m.substr(pos + 1));
            }
          } else {
            big->merges_bad = true;
          }
          return false;
        }
        if (at({"model", "merges", ""})) {
          if (parsed.is_string()) {
            pair.push_back(parsed.get<std::string>());
          } else {
            big->merges_bad = true;
          }
          return false;
        }
        return true;
    }
    return true;
  };
  return ReadJson(path, cb);
}

// A name from the file for an error message, in double quotes, capped (QuoteForError's rules).
std::string DoubleQuoted(absl::string_view s) {
  std::string q = QuoteForError(s);  // 'body'... : the body holds no raw single quote
  q[0] = '"';
  q[q.find('\'', 1)] = '"';
  return q;
}

const json* Member(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}
std::string StringMember(const json& j, const char* key) {
  const json* m = Member(j, key);
  return m != nullptr && m->is_string() ? m->get<std::string>() : std::string();
}
// Booleans of one file: absent or null gives the default; any other non-boolean ("false" as a
// string) is an error, kept in `status` (the first one) instead of being read as the default.
struct BoolReader {
  std::string path;
  absl::Status status;
  bool operator()(const json& j, const char* key, bool def) {
    const json* m = Member(j, key);
    if (m == nullptr) return def;
    if (!m->is_boolean()) {
      if (status.ok()) {
        status = absl::InvalidArgumentError(absl::StrCat(path, ": key \"", key, "\" is ",
                                                         checkpoint::internal::JsonForError(*m),
                                                         ", expected true or false"));
      }
      return def;
    }
    return m->get<bool>();
  }
};

// Real split patterns are below 200 bytes; the compiler's errors repeat the pattern.
constexpr size_t kMaxSplitRegexBytes = 4096;

// The original (Hugging Face) spellings of the byte-level split patterns we know GGUF names for.
constexpr char kHfLlama3[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr char kHfQwen2[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr char kHfGpt2[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

}  // namespace

absl::StatusOr<Tokenizer> Tokenizer::FromHfTokenizerJson(const std::string& path,
                                                         const std::string& config_path) {
  BigParts big;
  EDGEQ_ASSIGN_OR_RETURN(json root, ReadTokenizerJson(path, &big));
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
  };
  BoolReader BoolMember{path, absl::OkStatus()};
  const json* model = Member(root, "model");
  if (model == nullptr || !model->is_object()) return bad("missing \"model\"");
  const std::string type = StringMember(*model, "type");
  if (type != "BPE") {
    return bad(
        absl::StrCat("model type ", DoubleQuoted(type), " is not supported (supported: BPE)"));
  }
  if (Member(*model, "vocab") == nullptr || big.vocab_bad) {
    return bad("model.vocab must be an object of token -> integer id");
  }
  if (Member(*model, "merges") == nullptr || big.merges_bad) {
    return bad("model.merges must be an array of \"a b\" strings or [\"a\", \"b\"] pairs");
  }

  Tokenizer t;
  t.model_ = Model::kBpe;
  t.model_name_ = "gpt2";
  t.add_space_prefix_ = false;
  t.clean_spaces_ = false;
  t.ignore_merges_ = BoolMember(*model, "ignore_merges", false);
  t.bpe_byte_fallback_ = BoolMember(*model, "byte_fallback", false);

  // Token table: the vocabulary plus added tokens, indexed by id.
  int64_t max_id = -1;
  for (const auto& v : big.vocab) max_id = std::max(max_id, v.second);
  const json* added = Member(root, "added_tokens");
  if (added != nullptr && !added->is_array()) return bad("added_tokens must be an array");
  if (added != nullptr) {
    for (const json& a : *added) {
      const json* id = Member(a, "id");
      if (id == nullptr || !id->is_number_integer() || StringMember(a, "content").empty()) {
        return bad("added_tokens entries need an integer id and a content string");
      }
      max_id = std::max<int64_t>(max_id, id->get<int64_t>());
    }
  }
  // Ids are dense in real files; a sparse table would only waste memory (or exhaust it).
  const int64_t n_entries =
      static_cast<int64_t>(big.vocab.size()) + (added ? static_cast<int64_t>(added->size()) : 0);
  if (max_id < 0 || max_id >= n_entries + 1024) {
    return bad(absl::StrCat("token ids must be dense: the largest is ", max_id, " for ", n_entries,
                            " vocabulary and added entries"));
  }
  t.tokens_.resize(static_cast<size_t>(max_id + 1));
  std::vector<bool> seen(t.tokens_.size(), false);
  for (auto& v : big.vocab) {
    if (v.second < 0) return bad(absl::StrCat("negative id for token ", QuoteForError(v.first)));
    if (seen[v.second]) {
      return bad(absl::StrCat("model.vocab gives id ", v.second, " to two tokens (again to ",
                              QuoteForError(v.first), "); expected one token per id"));
    }
    t.tokens_[v.second].text = std::move(v.first);
    t.tokens_[v.second].attr = kAttrNormal;
    seen[v.second] = true;
  }
  big.vocab = {};
  if (added != nullptr) {
    for (const json& a : *added) {
      const int64_t id = a["id"].get<int64_t>();
      if (id < 0) return bad("negative added token id");
      Token& tok = t.tokens_[id];
      tok.text = a["content"].get<std::string>();
      tok.attr = BoolMember(a, "special", false) ? kAttrControl : kAttrUserDefined;
      if (BoolMember(a, "lstrip", false)) tok.attr |= kAttrLstrip;
      if (BoolMember(a, "rstrip", false)) tok.attr |= kAttrRstrip;
      seen[id] = true;
    }
  }
  for (size_t i = 0; i < t.tokens_.size(); ++i) {
    if (!seen[i]) {
      t.tokens_[i].text = absl::StrCat("[UNUSED_", i, "]");
      t.tokens_[i].attr = kAttrUnused;
    }
  }
  t.token_to_id_.reserve(t.tokens_.size());
  for (size_t i = 0; i < t.tokens_.size(); ++i) {
    t.token_to_id_[t.tokens_[i].text] = static_cast<int32_t>(i);
  }

  // Merges, in rank order.
  t.bpe_merges_.reserve(big.merges.size());
  t.merge_list_.reserve(big.merges.size());
  for (const auto& m : big.merges) t.AddMerge(m.first, m.second);
  big.merges = {};

  // Normalizer: none, NFC, or Replace(" " -> "▁") (possibly in a Sequence).
  std::vector<const json*> norms;
  if (const json* n = Member(root, "normalizer")) {
    if (StringMember(*n, "type") == "Sequence") {
      const json* list = Member(*n, "normalizers");
      if (list != nullptr && list->is_array()) {
        for (const json& x : *list) norms.push_back(&x);
      }
    } else {
      norms.push_back(n);
    }
  }
  bool spm_style = false;
  for (const json* n : norms) {
    const std::string nt = StringMember(*n, "type");
    const json* pattern = Member(*n, "pattern");
    if (nt == "NFC") {
      t.nfc_ = true;
    } else if (nt == "Replace" && pattern != nullptr && StringMember(*pattern, "String") == " " &&
               StringMember(*n, "content") == "\xe2\x96\x81") {
      spm_style = true;
    } else {
      return bad(
          absl::StrCat("normalizer ", DoubleQuoted(nt),
                       " is not supported (supported: NFC, Replace \" \" -> \"\xe2\x96\x81\")"));
    }
  }

  // Pre-tokenizer: byte-level with a Split regex, plain ByteLevel (GPT-2's regex), or, with the
  // "▁" normalizer, none (a Split on " " finds nothing once spaces are "▁").
  std::vector<std::string> patterns;
  bool byte_level = false;
  std::vector<const json*> pres;
  if (const json* p = Member(root, "pre_tokenizer")) {
    if (StringMember(*p, "type") == "Sequence") {
      const json* list = Member(*p, "pretokenizers");
      if (list != nullptr && list->is_array()) {
        for (const json& x : *list) pres.push_back(&x);
      }
    } else {
      pres.push_back(p);
    }
  }
  for (const json* p : pres) {
    const std::string pt = StringMember(*p, "type");
    const json* pattern = Member(*p, "pattern");
    if (pt == "ByteLevel") {
      byte_level = true;
      if (BoolMember(*p, "add_prefix_space", false)) {
        return bad("ByteLevel pre-tokenizer with add_prefix_space is not supported");
      }
      if (BoolMember(*p, "use_regex", true)) patterns.push_back(kHfGpt2);
    } else if (pt == "Split" && pattern != nullptr && !StringMember(*pattern, "Regex").empty()) {
      if (StringMember(*pattern, "Regex").size() > kMaxSplitRegexBytes) {
        return bad(absl::StrCat("Split regex of ", StringMember(*pattern, "Regex").size(),
                                " bytes, above the limit of ", kMaxSplitRegexBytes));
      }
      if (StringMember(*p, "behavior") != "Isolated" || BoolMember(*p, "invert", false)) {
        return bad("Split pre-tokenizers other than behavior Isolated are not supported");
      }
      patterns.push_back(StringMember(*pattern, "Regex"));
    } else if (pt == "Split" && pattern != nullptr && StringMember(*pattern, "String") == " " &&
               spm_style) {
      // no-op after the "▁" normalizer
    } else {
      return bad(absl::StrCat("pre-tokenizer ", DoubleQuoted(pt),
                              " is not supported (supported: ByteLevel, Split with a Regex, "
                              "and Split on \" \" after the \"\xe2\x96\x81\" normalizer)"));
    }
  }
  t.byte_encode_ = byte_level;
  t.escape_whitespaces_ = spm_style;
  for (const std::string& p : patterns) {
    EDGEQ_ASSIGN_OR_RETURN(PreTokenizerRegex re, PreTokenizerRegex::Compile(p));
    t.regexes_.push_back(std::move(re));
  }
  if (spm_style == byte_level) {
    return bad(spm_style ? "both byte-level and \"\xe2\x96\x81\" handling of spaces"
                         : "neither a ByteLevel pre-tokenizer nor the \"\xe2\x96\x81\" normalizer");
  }
  if (spm_style) {
    t.pre_ = "gemma4";
  } else if (patterns.size() == 1 && patterns[0] == kHfLlama3) {
    t.pre_ = "llama-bpe";
  } else if (patterns.size() == 1 && patterns[0] == kHfQwen2) {
    t.pre_ = "qwen2";
  } else if (patterns.size() == 1 && (patterns[0] == kHfGpt2)) {
    t.pre_ = "gpt-2";
  } else {
    t.pre_ = "hf-regex";
  }
  EDGEQ_RETURN_IF_ERROR(BoolMember.status);
  if (t.bpe_byte_fallback_) {
    for (Token& tok : t.tokens_) {
      if ((tok.attr & kAttrNormal) && tok.text.size() == 6 && tok.text.compare(0, 3, "<0x") == 0 &&
          tok.text[5] == '>') {
        tok.attr = kAttrByte;
      }
    }
  }
  const std::string unk = StringMember(*model, "unk_token");
  if (!unk.empty()) {
    t.unk_id_ = t.TokenId(unk);
    if (t.unk_id_ >= 0 && (t.tokens_[t.unk_id_].attr & kAttrNormal)) {
      t.tokens_[t.unk_id_].attr = kAttrUnknown;
    }
  }

  // Post-processor: a TemplateProcessing "single" starting/ending with a special token means
  // BOS/EOS are added.
  if (const json* post = Member(root, "post_processor")) {
    const json* single = Member(*post, "single");
    if (StringMember(*post, "type") == "TemplateProcessing" && single != nullptr &&
        single->is_array() && !single->empty()) {
      auto special_id = [&](const json& e) -> int32_t {
        const json* st = Member(e, "SpecialToken");
        return st == nullptr ? -1 : t.TokenId(StringMember(*st, "id"));
      };
      const int32_t first = special_id(single->front());
      const int32_t last = single->size() > 1 ? special_id(single->back()) : -1;
      if (first >= 0) t.add_bos_ = true, t.bos_id_ = first;
      if (last >= 0) t.add_eos_ = true, t.eos_id_ = last;
    }
  }

  if (!config_path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(
        json cfg, checkpoint::internal::ReadJsonObjectFile(
                      config_path, nullptr, checkpoint::internal::kMaxTokenizerConfigBytes));
    auto token_id = [&](const char* key) -> int32_t {
      const json* v = Member(cfg, key);
      if (v == nullptr) return -1;
      if (v->is_string()) return t.TokenId(v->get<std::string>());
      if (v->is_object()) return t.TokenId(StringMember(*v, "content"));
      return -1;
    };
    if (token_id("bos_token") >= 0) t.bos_id_ = token_id("bos_token");
    if (token_id("eos_token") >= 0) t.eos_id_ = token_id("eos_token");
    if (token_id("pad_token") >= 0) t.pad_id_ = token_id("pad_token");
    if (token_id("unk_token") >= 0) t.unk_id_ = token_id("unk_token");
    BoolReader config_bool{config_path, absl::OkStatus()};
    t.add_bos_ = config_bool(cfg, "add_bos_token", t.add_bos_);
    t.add_eos_ = config_bool(cfg, "add_eos_token", t.add_eos_);
    EDGEQ_RETURN_IF_ERROR(config_bool.status);
  }
  // Llama 3's and Qwen's chat turns end with these.
  for (const char* eot : {"<|eot_id|>", "<|im_end|>", "<end_of_turn>"}) {
    const int32_t id = t.TokenId(eot);
    if (id >= 0 && id != t.eos_id_) {
      t.eot_id_ = id;
      break;
    }
  }
  EDGEQ_RETURN_IF_ERROR(t.Finish(t.pre_));
  return t;
}

}  // namespace tokenizer
}  // namespace edgeq
