// Tool calls in a model's reply: the text a chat model writes to call a tool -> structured
// calls {name, arguments JSON}, in the format of the model's chat template.
//
//   ToolCallFormat f = ToolCallFormatForTemplate(template_text);
//   EDGEQ_ASSIGN_OR_RETURN(ParsedReply r, ParseToolCalls(reply, f));
//   for (const ToolCall& c : r.calls) ...  // c.name, c.arguments ('{"city": "Paris"}')
//
// Formats (what the model writes after the generation prompt):
//   hermes       Qwen2.5/Qwen3/Hermes: <tool_call>\n{"name": N, "arguments": {...}}\n</tool_call>,
//                one block per call, text around them is the content
//   llama3.1     Llama 3.1/3.2/3.3: a reply that is a JSON object {"name": N, "parameters": {...}}
//                ("arguments" accepted too), several separated by ';', optionally after
//                <|python_tag|>; <|python_tag|> followed by other text is a call of "python"
//                with {"code": TEXT} (the code-interpreter tool)
//   deepseek-v3  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>N
//                \n```json\n{...}\n```<｜tool▁call▁end｜> ... <｜tool▁calls▁end｜>
//   mistral      [TOOL_CALLS][{"name": N, "arguments": {...}}, ...]
//   gpt-oss      <|channel|>commentary to=functions.N <|constrain|>json<|message|>{...}<|call|>
//   generic      hermes blocks if there are any, else a reply that is one JSON object with
//                "name" and "arguments"/"parameters" (templates of no known family)
#ifndef EDGEQ_LLM_TOOL_CALLS_H_
#define EDGEQ_LLM_TOOL_CALLS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace llm {

enum class ToolCallFormat { kGeneric, kHermes, kLlama31, kDeepSeekV3, kMistral, kGptOss };

// "generic", "hermes", "llama3.1", "deepseek-v3", "mistral", "gpt-oss".
const char* ToolCallFormatName(ToolCallFormat format);

// The format a chat template's text asks for, from the markers it writes (<tool_call>,
// <|python_tag|> or Llama 3 headers, DeepSeek's tool markers, [TOOL_CALLS], to=functions. or
// <|channel|> with functions.);
// kGeneric when none.
ToolCallFormat ToolCallFormatForTemplate(absl::string_view template_text);

struct ToolCall {
  std::string name;
  std::string arguments;  // a JSON object's text (compact, keys in the model's order)
};

struct ParsedReply {
  std::string content;          // the reply without its calls (trimmed of white space)
  std::vector<ToolCall> calls;  // in the reply's order; empty for a plain answer
};

// A reply without call markers is content only. InvalidArgument naming the format and what is
// wrong (quoting the start of the bad text) for a call that is cut off, is not JSON, lacks a
// string "name", or has arguments that are not an object (a JSON string holding an object is
// accepted).
absl::StatusOr<ParsedReply> ParseToolCalls(absl::string_view reply, ToolCallFormat format);

// The assistant message for the conversation, as Hugging Face passes tool calls to templates:
// {"role": "assistant", "content": C, "tool_calls": [{"type": "function", "function":
// {"name": N, "arguments": ARGS}}]}; ARGS is an object, or its text for deepseek-v3 (whose
// template concatenates it). Without calls: {"role": "assistant", "content": C}. A call-only
// reply has content null (as DeepSeek V3's template expects) for deepseek-v3, "" otherwise.
nlohmann::ordered_json AssistantMessage(const ParsedReply& reply, ToolCallFormat format);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_TOOL_CALLS_H_
