// Tokenizer::FromSentencePieceModel (tokenizer.model) and Tokenizer::FromHfDirectory.
#include <sys/stat.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "checkpoint/internal/json_input.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "nlohmann/json.hpp"
#include "tokenizer/sentencepiece_model.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace tokenizer {
namespace {

using json = nlohmann::json;
using MV = checkpoint::MetadataValue;

bool IsFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// What edgeq's SentencePiece ("llama") model runs: BPE pieces, no normalization beyond "▁".
absl::Status CheckRunnable(const SentencePieceModel& m, const std::string& path) {
  auto refuse = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
  };
  if (m.model_type != SentencePieceModel::kBpe) {
    const char* names[] = {"", "UNIGRAM", "BPE", "WORD", "CHAR"};
    const bool known = m.model_type >= 1 && m.model_type <= 4;
    return refuse(absl::StrCat("model_type ",
                               known ? names[m.model_type] : absl::StrCat(m.model_type),
                               " is not supported (supported: BPE)"));
  }
  if (m.charsmap_bytes > 0 || (!m.normalizer_name.empty() && m.normalizer_name != "identity")) {
    return refuse(absl::StrCat("normalizer ", QuoteForError(m.normalizer_name), " (",
                               m.charsmap_bytes,
                               " bytes of precompiled rules) is not supported "
                               "(supported: identity)"));
  }
  if (m.remove_extra_whitespaces) {
    return refuse("remove_extra_whitespaces true is not supported (expected false)");
  }
  if (!m.escape_whitespaces) {
    return refuse("escape_whitespaces false is not supported (expected true)");
  }
  return absl::OkStatus();
}

// llama.cpp's converter: added_tokens_decoder entries of tokenizer_config.json replace the
// pieces at their ids (control if special, else user-defined with "▁" as a space; score -1000).
absl::Status ApplyConfig(const std::string& config_path, std::vector<std::string>* texts,
                         std::vector<double>* scores, std::vector<int64_t>* types,
                         checkpoint::TensorDict* dict) {
  EDGEQ_ASSIGN_OR_RETURN(json cfg,
                         checkpoint::internal::ReadJsonObjectFile(
                             config_path, nullptr, checkpoint::internal::kMaxTokenizerConfigBytes));
  for (const char* key : {"add_bos_token", "add_eos_token"}) {
    auto it = cfg.find(key);
    if (it == cfg.end() || it->is_null()) continue;
    if (!it->is_boolean()) {
      return absl::InvalidArgumentError(absl::StrCat(config_path, ": key \"", key, "\" is ",
                                                     checkpoint::internal::JsonForError(*it),
                                                     ", expected true or false"));
    }
    dict->SetMetadata(absl::StrCat("tokenizer.ggml.", key), MV::Bool(it->get<bool>()));
  }
  auto added = cfg.find("added_tokens_decoder");
  if (added == cfg.end() || !added->is_object()) return absl::OkStatus();
  for (auto it = added->begin(); it != added->end(); ++it) {
    const std::optional<int64_t> id = ParseDecimalInt64(it.key());
    const json& e = it.value();
    auto content = e.is_object() ? e.find("content") : e.end();
    if (!id || content == e.end() || !content->is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat(config_path, ": added_tokens_decoder entry ", QuoteForError(it.key()),
                       " must have a decimal id and a content string"));
    }
    if (*id < 0 || *id >= static_cast<int64_t>(texts->size())) continue;  // as the converter
    auto special = e.find("special");
    const bool is_special = special != e.end() && special->is_boolean() && special->get<bool>();
    std::string text = content->get<std::string>();
    if (!is_special) text = absl::StrReplaceAll(text, {{"\xe2\x96\x81", " "}});
    (*texts)[*id] = std::move(text);
    (*scores)[*id] = -1000.0;
    (*types)[*id] = is_special ? SentencePieceModel::kControl : SentencePieceModel::kUserDefined;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tokenizer> Tokenizer::FromSentencePieceModel(const std::string& path,
                                                            const std::string& config_path) {
  EDGEQ_ASSIGN_OR_RETURN(SentencePieceModel m, ReadSentencePieceModelFile(path));
  EDGEQ_RETURN_IF_ERROR(CheckRunnable(m, path));
  // The GGUF vocabulary llama.cpp's converter writes, read back by FromGguf.
  std::vector<std::string> texts;
  std::vector<double> scores;
  std::vector<int64_t> types;
  for (SentencePieceModel::Piece& p : m.pieces) {
    texts.push_back(std::move(p.text));
    scores.push_back(p.score);
    types.push_back(p.type == SentencePieceModel::kUserDefined ? SentencePieceModel::kNormal
                                                               : p.type);
  }
  checkpoint::TensorDict dict;
  dict.SetMetadata("tokenizer.ggml.model", MV::String("llama"));
  dict.SetMetadata("tokenizer.ggml.pre", MV::String("default"));
  const int64_t n = static_cast<int64_t>(texts.size());
  const struct {
    const char* key;
    int32_t id;
  } kIds[] = {{"tokenizer.ggml.unknown_token_id", m.unk_id},
              {"tokenizer.ggml.bos_token_id", m.bos_id},
              {"tokenizer.ggml.eos_token_id", m.eos_id},
              {"tokenizer.ggml.padding_token_id", m.pad_id}};
  for (const auto& k : kIds) {
    if (k.id >= 0 && k.id < n) dict.SetMetadata(k.key, MV::Int(k.id, MV::Width::kU32));
  }
  dict.SetMetadata("tokenizer.ggml.add_bos_token", MV::Bool(m.bos_id >= 0 && m.bos_id < n));
  dict.SetMetadata("tokenizer.ggml.add_eos_token", MV::Bool(false));
  dict.SetMetadata("tokenizer.ggml.add_space_prefix", MV::Bool(m.add_dummy_prefix));
  if (!config_path.empty()) {
    EDGEQ_RETURN_IF_ERROR(ApplyConfig(config_path, &texts, &scores, &types, &dict));
  }
  dict.SetMetadata("tokenizer.ggml.tokens", MV::StringArray(std::move(texts)));
  dict.SetMetadata("tokenizer.ggml.scores", MV::FloatArray(std::move(scores), MV::Width::kF32));
  dict.SetMetadata("tokenizer.ggml.token_type", MV::IntArray(std::move(types), MV::Width::kI32));
  absl::StatusOr<Tokenizer> tok = FromGguf(dict);
  if (!tok.ok()) {
    return absl::Status(tok.status().code(), absl::StrCat(path, ": ", tok.status().message()));
  }
  return tok;
}

absl::StatusOr<Tokenizer> Tokenizer::FromHfDirectory(const std::string& dir) {
  const std::string config = dir + "/tokenizer_config.json";
  const std::string config_path = IsFile(config) ? config : "";
  if (IsFile(dir + "/tokenizer.json")) {
    return FromHfTokenizerJson(dir + "/tokenizer.json", config_path);
  }
  if (IsFile(dir + "/tokenizer.model")) {
    return FromSentencePieceModel(dir + "/tokenizer.model", config_path);
  }
  return absl::NotFoundError(
      absl::StrCat(dir, ": no tokenizer.json or tokenizer.model (expected one of them)"));
}

}  // namespace tokenizer
}  // namespace edgeq
