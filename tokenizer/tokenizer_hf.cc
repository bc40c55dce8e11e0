// Tokenizer::FromHfTokenizerJson: a Hugging Face tokenizer.json (+ tokenizer_config.json).
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checkpoint/internal/json_input.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "nlohmann/json.hpp"
#include "tokenizer/hf_patterns.h"
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

constexpr char kSpaceMarkUtf8[] = "\xe2\x96\x81";  // U+2581, SentencePiece's space

// A file's normalizers and pre-tokenizers, as edgeq runs them.
struct HfPipeline {
  std::vector<Tokenizer::Normalizer> unicode;  // NFC / NFKC / Lowercase, in order
  bool prepend = false;                        // Prepend "▁", or Metaspace with a prepend scheme
  bool replace_space = false;                  // Replace " " -> "▁", or Metaspace
  bool byte_level = false;
  std::vector<std::string> patterns;  // Split regexes (and ByteLevel's own)
};

// The members of a Sequence (key `list`), or the one object itself.
std::vector<const json*> Flatten(const json* j, const char* list_key) {
  std::vector<const json*> out;
  if (j == nullptr) return out;
  if (StringMember(*j, "type") == "Sequence") {
    const json* list = Member(*j, list_key);
    if (list != nullptr && list->is_array()) {
      for (const json& x : *list) out.push_back(&x);
    }
  } else {
    out.push_back(j);
  }
  return out;
}

constexpr char kSupportedNormalizers[] =
    "supported: NFC, NFKC, Lowercase, Prepend \"\xe2\x96\x81\", Replace \" \" -> "
    "\"\xe2\x96\x81\", and a Sequence of these";

absl::Status ReadNormalizers(const json& root, const std::string& path, HfPipeline* p) {
  for (const json* n : Flatten(Member(root, "normalizer"), "normalizers")) {
    const std::string type = StringMember(*n, "type");
    const json* pattern = Member(*n, "pattern");
    if (type == "NFC") {
      p->unicode.push_back(Tokenizer::Normalizer::kNfc);
    } else if (type == "NFKC") {
      p->unicode.push_back(Tokenizer::Normalizer::kNfkc);
    } else if (type == "Lowercase") {
      p->unicode.push_back(Tokenizer::Normalizer::kLowercase);
    } else if (type == "Prepend" && StringMember(*n, "prepend") == kSpaceMarkUtf8) {
      p->prepend = true;
    } else if (type == "Replace" && pattern != nullptr && StringMember(*pattern, "String") == " " &&
               StringMember(*n, "content") == kSpaceMarkUtf8) {
      p->replace_space = true;
    } else {
      std::string what = DoubleQuoted(type);
      if (type == "Replace") {
        const std::string from =
            pattern == nullptr ? std::string() : StringMember(*pattern, "String");
        absl::StrAppend(&what, " (", QuoteForError(from), " -> ",
                        QuoteForError(StringMember(*n, "content")), ")");
      } else if (type == "Prepend") {
        absl::StrAppend(&what, " (", QuoteForError(StringMember(*n, "prepend")), ")");
      }
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": normalizer ", what, " is not supported (", kSupportedNormalizers, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadMetaspace(const json& m, const std::string& path, BoolReader& bools,
                           HfPipeline* p) {
  const std::string replacement = StringMember(m, "replacement");
  if (!replacement.empty() && replacement != kSpaceMarkUtf8) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": Metaspace replacement ", DoubleQuoted(replacement),
                     " is not supported (expected \"\xe2\x96\x81\")"));
  }
  if (bools(m, "split", true)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": Metaspace with split true is not supported (the SentencePiece "
                     "model runs on the whole text: expected split false)"));
  }
  std::string scheme = StringMember(m, "prepend_scheme");
  if (scheme.empty()) scheme = bools(m, "add_prefix_space", true) ? "always" : "never";
  if (scheme != "always" && scheme != "first" && scheme != "never") {
    return absl::InvalidArgumentError(absl::StrCat(path, ": Metaspace prepend_scheme ",
                                                   DoubleQuoted(scheme),
                                                   " is not supported (always, first, never)"));
  }
  p->replace_space = true;
  p->prepend = p->prepend || scheme != "never";
  return absl::OkStatus();
}

absl::Status ReadPreTokenizers(const json& root, const std::string& path, BoolReader& bools,
                               HfPipeline* p) {
  for (const json* pre : Flatten(Member(root, "pre_tokenizer"), "pretokenizers")) {
    const std::string type = StringMember(*pre, "type");
    const json* pattern = Member(*pre, "pattern");
    const std::string regex = pattern ? StringMember(*pattern, "Regex") : std::string();
    if (type == "ByteLevel") {
      p->byte_level = true;
      if (bools(*pre, "add_prefix_space", false)) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": ByteLevel pre-tokenizer with add_prefix_space is not supported"));
      }
      if (bools(*pre, "use_regex", true)) p->patterns.push_back(hf_patterns::kGpt2);
    } else if (type == "Metaspace") {
      EDGEQ_RETURN_IF_ERROR(ReadMetaspace(*pre, path, bools, p));
    } else if (type == "Split" && !regex.empty()) {
      if (regex.size() > kMaxSplitRegexBytes) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": Split regex of ", regex.size(),
                                                       " bytes, above the limit of ",
                                                       kMaxSplitRegexBytes));
      }
      if (StringMember(*pre, "behavior") != "Isolated" || bools(*pre, "invert", false)) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, ": Split pre-tokenizers other than behavior Isolated are not supported"));
      }
      EDGEQ_RETURN_IF_ERROR(PreTokenizerRegex::Compile(regex).status());  // names the regex
      p->patterns.push_back(regex);
    } else if (type == "Split" && pattern != nullptr && StringMember(*pattern, "String") == " " &&
               p->replace_space) {
      // Nothing to split once the normalizer has made every space a "▁".
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": pre-tokenizer ", DoubleQuoted(type),
          " is not supported (supported: ByteLevel, Metaspace, Split with a Regex, and Split on "
          "\" \" after the \"\xe2\x96\x81\" normalizer)"));
    }
  }
  if (p->replace_space == p->byte_level) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": ",
        p->replace_space
            ? "both byte-level and \"\xe2\x96\x81\" handling of spaces"
            : "neither a ByteLevel pre-tokenizer nor the \"\xe2\x96\x81\" normalizer"));
  }
  return absl::OkStatus();
}

// The GGUF pre-tokenizer name of a byte-level file's split patterns ("hf-regex" if none fits:
// such a file runs from its tokenizer.json, but ToGgufMetadata refuses to write it).
std::string PreTokenizerName(const std::vector<std::string>& patterns) {
  using namespace hf_patterns;  // NOLINT(build/namespaces)
  const struct {
    const char* name;
    std::vector<const char*> patterns;
  } kKnown[] = {
      {"llama-bpe", {kLlama3}},
      {"qwen2", {kQwen2}},
      {"gpt-2", {kGpt2}},
      {"deepseek-v3", {kDeepseekV3Digits, kDeepseekV3Cjk, kDeepseekV3Words}},
      {"gpt-4o", {kGpt4o}},
  };
  for (const auto& k : kKnown) {
    if (std::equal(patterns.begin(), patterns.end(), k.patterns.begin(), k.patterns.end())) {
      return k.name;
    }
  }
  return "hf-regex";
}

}  // namespace

// Builds a Tokenizer from a parsed tokenizer.json (a friend: it fills the private tables).
class HfTokenizerBuilder {
 public:
  HfTokenizerBuilder(std::string path, json root, BigParts big)
      : path_(std::move(path)), root_(std::move(root)), big_(std::move(big)), bools_{path_, {}} {}

  absl::StatusOr<Tokenizer> Build(const std::string& config_path);

 private:
  absl::Status Bad(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": ", what));
  }
  absl::Status CheckModel();
  absl::Status ReadTokens();
  void MarkSpecialTypes();
  void ReadPostProcessor();
  absl::Status ReadConfig(const std::string& config_path);
  void SpmScoresFromMerges();

  std::string path_;
  json root_;
  BigParts big_;
  BoolReader bools_;
  const json* model_ = nullptr;
  Tokenizer t_;
};

absl::Status HfTokenizerBuilder::CheckModel() {
  model_ = Member(root_, "model");
  if (model_ == nullptr || !model_->is_object()) return Bad("missing \"model\"");
  const std::string type = StringMember(*model_, "type");
  if (type != "BPE") {
    return Bad(
        absl::StrCat("model type ", DoubleQuoted(type), " is not supported (supported: BPE)"));
  }
  if (Member(*model_, "vocab") == nullptr || big_.vocab_bad) {
    return Bad("model.vocab must be an object of token -> integer id");
  }
  if (Member(*model_, "merges") == nullptr || big_.merges_bad) {
    return Bad("model.merges must be an array of \"a b\" strings or [\"a\", \"b\"] pairs");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (!StringMember(*model_, key).empty()) {
      return Bad(absl::StrCat("model.", key, " ", DoubleQuoted(StringMember(*model_, key)),
                              " is not supported (expected none)"));
    }
  }
  return absl::OkStatus();
}

// The token table: the vocabulary plus added tokens, indexed by id.
absl::Status HfTokenizerBuilder::ReadTokens() {
  int64_t max_id = -1;
  for (const auto& v : big_.vocab) max_id = std::max(max_id, v.second);
  const json* added = Member(root_, "added_tokens");
  if (added != nullptr && !added->is_array()) return Bad("added_tokens must be an array");
  if (added != nullptr) {
    for (const json& a : *added) {
      const json* id = Member(a, "id");
      if (id == nullptr || !id->is_number_integer() || StringMember(a, "content").empty()) {
        return Bad("added_tokens entries need an integer id and a content string");
      }
      max_id = std::max<int64_t>(max_id, id->get<int64_t>());
    }
  }
  // Ids are dense in real files; a sparse table would only waste memory (or exhaust it).
  const int64_t n_entries =
      static_cast<int64_t>(big_.vocab.size()) + (added ? static_cast<int64_t>(added->size()) : 0);
  if (max_id < 0 || max_id >= n_entries + 1024) {
    return Bad(absl::StrCat("token ids must be dense: the largest is ", max_id, " for ", n_entries,
                            " vocabulary and added entries"));
  }
  std::vector<Tokenizer::Token>& tokens = t_.tokens_;
  tokens.resize(static_cast<size_t>(max_id + 1));
  std::vector<bool> seen(tokens.size(), false);
  for (auto& v : big_.vocab) {
    if (v.second < 0) return Bad(absl::StrCat("negative id for token ", QuoteForError(v.first)));
    if (seen[v.second]) {
      return Bad(absl::StrCat("model.vocab gives id ", v.second, " to two tokens (again to ",
                              QuoteForError(v.first), "); expected one token per id"));
    }
    tokens[v.second].text = std::move(v.first);
    tokens[v.second].attr = kAttrNormal;
    seen[v.second] = true;
  }
  big_.vocab = {};
  if (added != nullptr) {
    for (const json& a : *added) {
      const int64_t id = a["id"].get<int64_t>();
      if (id < 0) return Bad("negative added token id");
      Tokenizer::Token& tok = tokens[id];
      tok.text = a["content"].get<std::string>();
      tok.attr = bools_(a, "special", false) ? kAttrControl : kAttrUserDefined;
      if (bools_(a, "lstrip", false)) tok.attr |= kAttrLstrip;
      if (bools_(a, "rstrip", false)) tok.attr |= kAttrRstrip;
      seen[id] = true;
    }
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!seen[i]) {
      tokens[i].text = absl::StrCat("[UNUSED_", i, "]");
      tokens[i].attr = kAttrUnused;
    }
  }
  t_.token_to_id_.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    t_.token_to_id_[tokens[i].text] = static_cast<int32_t>(i);
  }
  // Merges, in rank order.
  t_.bpe_merges_.reserve(big_.merges.size());
  t_.merge_list_.reserve(big_.merges.size());
  for (const auto& m : big_.merges) t_.AddMerge(m.first, m.second);
  big_.merges = {};
  return absl::OkStatus();
}

// Byte tokens (<0xXX>) of a byte-fallback vocabulary, and the unknown token.
void HfTokenizerBuilder::MarkSpecialTypes() {
  if (t_.bpe_byte_fallback_) {
    for (Tokenizer::Token& tok : t_.tokens_) {
      if ((tok.attr & kAttrNormal) && tok.text.size() == 6 && tok.text.compare(0, 3, "<0x") == 0 &&
          tok.text[5] == '>') {
        tok.attr = kAttrByte;
      }
    }
  }
  const std::string unk = StringMember(*model_, "unk_token");
  if (!unk.empty()) {
    t_.unk_id_ = t_.TokenId(unk);
    if (t_.unk_id_ >= 0 && (t_.tokens_[t_.unk_id_].attr & (kAttrNormal | kAttrControl))) {
      t_.tokens_[t_.unk_id_].attr = kAttrUnknown;
    }
  }
}

// A TemplateProcessing "single" starting/ending with a special token: BOS/EOS are added (also
// inside a Sequence of processors).
void HfTokenizerBuilder::ReadPostProcessor() {
  for (const json* post : Flatten(Member(root_, "post_processor"), "processors")) {
    const json* single = Member(*post, "single");
    if (StringMember(*post, "type") != "TemplateProcessing" || single == nullptr ||
        !single->is_array() || single->empty()) {
      continue;
    }
    auto special_id = [&](const json& e) -> int32_t {
      const json* st = Member(e, "SpecialToken");
      return st == nullptr ? -1 : t_.TokenId(StringMember(*st, "id"));
    };
    const int32_t first = special_id(single->front());
    const int32_t last = single->size() > 1 ? special_id(single->back()) : -1;
    if (first >= 0) t_.add_bos_ = true, t_.bos_id_ = first;
    if (last >= 0) t_.add_eos_ = true, t_.eos_id_ = last;
  }
}

absl::Status HfTokenizerBuilder::ReadConfig(const std::string& config_path) {
  if (config_path.empty()) return absl::OkStatus();
  EDGEQ_ASSIGN_OR_RETURN(json cfg,
                         checkpoint::internal::ReadJsonObjectFile(
                             config_path, nullptr, checkpoint::internal::kMaxTokenizerConfigBytes));
  auto token_id = [&](const char* key) -> int32_t {
    const json* v = Member(cfg, key);
    if (v == nullptr) return -1;
    if (v->is_string()) return t_.TokenId(v->get<std::string>());
    if (v->is_object()) return t_.TokenId(StringMember(*v, "content"));
    return -1;
  };
  if (token_id("bos_token") >= 0) t_.bos_id_ = token_id("bos_token");
  if (token_id("eos_token") >= 0) t_.eos_id_ = token_id("eos_token");
  if (token_id("pad_token") >= 0) t_.pad_id_ = token_id("pad_token");
  if (token_id("unk_token") >= 0) t_.unk_id_ = token_id("unk_token");
  BoolReader config_bool{config_path, absl::OkStatus()};
  t_.add_bos_ = config_bool(cfg, "add_bos_token", t_.add_bos_);
  t_.add_eos_ = config_bool(cfg, "add_eos_token", t_.add_eos_);
  return config_bool.status;
}

// SentencePiece scores that make the score-ordered merging of the SPM model apply merges in
// the file's rank order: a token made by merges scores minus the rank of the first merge that
// makes it; any other normal token scores below every merge (it is never a merge's result).
void HfTokenizerBuilder::SpmScoresFromMerges() {
  const size_t n_merges = t_.merge_list_.size();
  std::vector<int64_t> rank(t_.tokens_.size(), -1);
  for (size_t r = 0; r < n_merges; ++r) {
    const auto& m = t_.merge_list_[r];
    const int32_t id = t_.TokenId(t_.tokens_[m.first].text + t_.tokens_[m.second].text);
    if (id >= 0 && rank[id] < 0) rank[id] = static_cast<int64_t>(r);
  }
  for (size_t i = 0; i < t_.tokens_.size(); ++i) {
    Tokenizer::Token& tok = t_.tokens_[i];
    if (!(tok.attr & kAttrNormal)) {
      tok.score = 0.0f;
    } else {
      tok.score = -static_cast<float>(rank[i] >= 0 ? rank[i] : static_cast<int64_t>(n_merges + i));
    }
  }
}

absl::StatusOr<Tokenizer> HfTokenizerBuilder::Build(const std::string& config_path) {
  EDGEQ_RETURN_IF_ERROR(CheckModel());
  HfPipeline p;
  EDGEQ_RETURN_IF_ERROR(ReadNormalizers(root_, path_, &p));
  EDGEQ_RETURN_IF_ERROR(ReadPreTokenizers(root_, path_, bools_, &p));
  t_.ignore_merges_ = bools_(*model_, "ignore_merges", false);
  t_.bpe_byte_fallback_ = bools_(*model_, "byte_fallback", false);
  EDGEQ_RETURN_IF_ERROR(ReadTokens());
  t_.normalizers_ = p.unicode;
  t_.clean_spaces_ = false;
  t_.byte_encode_ = p.byte_level;
  t_.escape_whitespaces_ = p.replace_space;
  if (p.replace_space && p.prepend) {
    // SentencePiece form (Llama 2, Mistral, TinyLlama, Phi-3): the "llama" model, with scores
    // that reproduce the merge order and a space before the text (after each special token).
    if (!t_.bpe_byte_fallback_) {
      return Bad("a \"\xe2\x96\x81\" vocabulary with a prefix space needs byte_fallback true");
    }
    t_.model_ = Tokenizer::Model::kSpm;
    t_.model_name_ = "llama";
    t_.pre_ = "default";
    t_.add_space_prefix_ = true;
    SpmScoresFromMerges();
  } else {
    t_.model_ = Tokenizer::Model::kBpe;
    t_.model_name_ = "gpt2";
    t_.add_space_prefix_ = false;
    for (const std::string& pattern : p.patterns) {
      EDGEQ_ASSIGN_OR_RETURN(PreTokenizerRegex re, PreTokenizerRegex::Compile(pattern));
      t_.regexes_.push_back(std::move(re));
    }
    t_.pre_ = p.replace_space ? "gemma4" : PreTokenizerName(p.patterns);
    if (t_.pre_ == "hf-regex") t_.hf_patterns_ = p.patterns;
  }
  EDGEQ_RETURN_IF_ERROR(bools_.status);
  MarkSpecialTypes();
  ReadPostProcessor();
  EDGEQ_RETURN_IF_ERROR(ReadConfig(config_path));
  // Llama 3's and Qwen's chat turns end with these.
  for (const char* eot : {"<|eot_id|>", "<|im_end|>", "<end_of_turn>"}) {
    const int32_t id = t_.TokenId(eot);
    if (id >= 0 && id != t_.eos_id_) {
      t_.eot_id_ = id;
      break;
    }
  }
  EDGEQ_RETURN_IF_ERROR(t_.Finish(t_.pre_));
  return std::move(t_);
}

absl::StatusOr<Tokenizer> Tokenizer::FromHfTokenizerJson(const std::string& path,
                                                         const std::string& config_path) {
  BigParts big;
  EDGEQ_ASSIGN_OR_RETURN(json root, ReadTokenizerJson(path, &big));
  HfTokenizerBuilder builder(path, std::move(root), std::move(big));
  return builder.Build(config_path);
}

}  // namespace tokenizer
}  // namespace edgeq
