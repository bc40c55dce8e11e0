// Chat prompts through a model's own Jinja template, with the variables Hugging Face's
// apply_chat_template gives it: messages, tools (when there are any), add_generation_prompt,
// bos_token and eos_token (when the tokenizer has them), and any extra variables
// (enable_thinking, date_string, ...).
//
//   EDGEQ_ASSIGN_OR_RETURN(jinja::ChatTemplateSource src,
//                          jinja::ChatTemplateFromTokenizerConfig(config_json, has_tools));
//   EDGEQ_ASSIGN_OR_RETURN(std::string prompt,
//                          jinja::RenderChat(src.text, messages, tools, true, src.bos, src.eos));
#ifndef EDGEQ_JINJA_CHAT_H_
#define EDGEQ_JINJA_CHAT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "jinja/template.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace jinja {

// messages: a JSON array of message objects (role, content, and whatever else the template
// reads: tool_calls, reasoning_content, ...). tools: a JSON array, or null for none (then
// `tools` stays undefined, as in transformers). extra: an object whose entries become
// variables too (null for none). bos/eos: nullopt leaves the variable undefined.
// InvalidArgument for messages that are not an array or extra that is not an object, and
// every error Template::Parse/Render gives (raise_exception -> FailedPrecondition).
absl::StatusOr<std::string> RenderChat(
    absl::string_view template_text, const nlohmann::ordered_json& messages,
    const nlohmann::ordered_json& tools, bool add_generation_prompt,
    const std::optional<std::string>& bos, const std::optional<std::string>& eos,
    const nlohmann::ordered_json& extra = nullptr, const Limits& limits = {},
    const RenderOptions& options = {});

// The chat template of a Hugging Face tokenizer_config.json and its special-token texts.
struct ChatTemplateSource {
  std::string text;
  std::optional<std::string> bos;
  std::optional<std::string> eos;
};

// chat_template may be a string or a list of {name, template}: then "tool_use" when
// `with_tools` and there is one, else "default". bos_token/eos_token may be strings or
// AddedToken objects ({"content": ...}); null leaves them unset. NotFound when the config has
// no chat_template; InvalidArgument naming the field when it has the wrong type.
absl::StatusOr<ChatTemplateSource> ChatTemplateFromTokenizerConfig(
    const nlohmann::ordered_json& config, bool with_tools = false);

}  // namespace jinja
}  // namespace edgeq

#endif  // EDGEQ_JINJA_CHAT_H_
