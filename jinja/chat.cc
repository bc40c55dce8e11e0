#include "jinja/chat.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "jinja/value.h"

namespace edgeq {
namespace jinja {

namespace {

// Whether `j` nests deeper than `max_depth` (the walk stops there, so it is bounded too).
bool TooDeep(const nlohmann::ordered_json& j, int max_depth) {
  if (!j.is_structured()) return false;
  if (max_depth <= 0) return true;
  for (const auto& e : j) {
    if (TooDeep(e, max_depth - 1)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::string> RenderChat(
    absl::string_view template_text, const nlohmann::ordered_json& messages,
    const nlohmann::ordered_json& tools, bool add_generation_prompt,
    const std::optional<std::string>& bos, const std::optional<std::string>& eos,
    const nlohmann::ordered_json& extra, const Limits& limits, const RenderOptions& options) {
  if (!messages.is_array()) {
    return absl::InvalidArgumentError("chat messages must be a JSON array of message objects");
  }
  if (!tools.is_null() && !tools.is_array()) {
    return absl::InvalidArgumentError("chat tools must be a JSON array (or null for none)");
  }
  if (!extra.is_null() && !extra.is_object()) {
    return absl::InvalidArgumentError("extra chat template variables must be a JSON object");
  }
  for (const auto* j : {&messages, &tools, &extra}) {
    if (TooDeep(*j, limits.max_depth)) {
      return absl::InvalidArgumentError(
          absl::StrCat("chat messages, tools or extra variables nest deeper than ",
                       limits.max_depth, " levels (Limits::max_depth)"));
    }
  }
  EDGEQ_ASSIGN_OR_RETURN(Template t, Template::Parse(template_text, limits));
  Value context = Value::MakeObject();
  Object& vars = context.mutable_object();
  vars.Set("messages", Value::FromJson(messages));
  if (!tools.is_null()) vars.Set("tools", Value::FromJson(tools));
  vars.Set("add_generation_prompt", Value::Bool(add_generation_prompt));
  if (bos) vars.Set("bos_token", Value::String(*bos));
  if (eos) vars.Set("eos_token", Value::String(*eos));
  if (extra.is_object()) {
    for (auto it = extra.begin(); it != extra.end(); ++it) {
      vars.Set(it.key(), Value::FromJson(it.value()));
    }
  }
  return t.Render(context, options);
}

namespace {

absl::StatusOr<std::optional<std::string>> TokenText(const nlohmann::ordered_json& config,
                                                     const char* key) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::optional<std::string>();
  if (it->is_string()) return std::optional<std::string>(it->get<std::string>());
  if (it->is_object()) {
    auto c = it->find("content");
    if (c != it->end() && c->is_string()) return std::optional<std::string>(c->get<std::string>());
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "tokenizer_config.json: ", key, " must be a string or an object with a string \"content\""));
}

}  // namespace

absl::StatusOr<ChatTemplateSource> ChatTemplateFromTokenizerConfig(
    const nlohmann::ordered_json& config, bool with_tools) {
  if (!config.is_object()) {
    return absl::InvalidArgumentError("tokenizer_config.json must hold a JSON object");
  }
  ChatTemplateSource src;
  auto it = config.find("chat_template");
  if (it == config.end() || it->is_null()) {
    return absl::NotFoundError("tokenizer_config.json has no chat_template");
  }
  if (it->is_string()) {
    src.text = it->get<std::string>();
  } else if (it->is_array()) {
    const nlohmann::ordered_json* chosen = nullptr;
    const nlohmann::ordered_json* fallback = nullptr;
    for (const auto& e : *it) {
      if (!e.is_object() || !e.contains("name") || !e.contains("template") ||
          !e["name"].is_string() || !e["template"].is_string()) {
        return absl::InvalidArgumentError(
            "tokenizer_config.json: chat_template list items must be {\"name\", \"template\"} "
            "strings");
      }
      if (e["name"] == "tool_use" && with_tools) chosen = &e;
      if (e["name"] == "default") fallback = &e;
    }
    if (chosen == nullptr) chosen = fallback;
    if (chosen == nullptr) {
      return absl::NotFoundError(
          "tokenizer_config.json: chat_template list has no \"default\" template");
    }
    src.text = (*chosen)["template"].get<std::string>();
  } else {
    return absl::InvalidArgumentError(
        "tokenizer_config.json: chat_template must be a string or a list of named templates");
  }
  EDGEQ_ASSIGN_OR_RETURN(src.bos, TokenText(config, "bos_token"));
  EDGEQ_ASSIGN_OR_RETURN(src.eos, TokenText(config, "eos_token"));
  return src;
}

}  // namespace jinja
}  // namespace edgeq
