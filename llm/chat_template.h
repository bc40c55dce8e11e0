// Chat templates: a conversation (system/user/assistant messages) -> the prompt text a chat
// model was trained on.
//
// The Jinja text a model carries (GGUF `tokenizer.chat_template`, or `chat_template` in a
// Hugging Face tokenizer_config.json, or a --template file) is executed by the Jinja engine
// (jinja/chat.h, Open/FromJinja below), with messages, tools, add_generation_prompt, bos_token
// and eos_token as transformers' apply_chat_template gives them. The ten families below remain
// as named presets (FromName), rendered in C++; Detect still recognizes a template's family by
// substrings (used to pick the tool-call format, llm/tool_calls.h). The preset renderings
// equal those of the real templates run by @huggingface/jinja
// (llm/testdata/chat_template_goldens.json), including what each template does with a system
// message and with add_generation_prompt:
//
//   chatml   "<|im_start|>ROLE\nCONTENT<|im_end|>\n" per message (any template with
//            <|im_start|> not recognized as one of the next three)
//   qwen2.5  ChatML; without a system message, Qwen2.5's default one ("You are Qwen, ...")
//   qwen3    ChatML; earlier assistant turns lose their <think>...</think> part, an assistant
//            turn after the last user message gets "<think>\n...\n</think>\n\n"
//   smollm2  ChatML; without a system message, SmolLM2's default one
//   llama3   Llama 3 (3.0): BOS, "<|start_header_id|>ROLE<|end_header_id|>\n\n" + trimmed
//            content + "<|eot_id|>"; the assistant header always ends the prompt (the template
//            ignores add_generation_prompt)
//   llama3.1 Llama 3.1/3.2/3.3 without tools: BOS, a system turn "Cutting Knowledge Date: December
//            2023\nToday Date: DATE\n\n" + the trimmed system message, then as llama3, the
//            assistant header only with add_generation_prompt. DATE is date_string(): "26 Jul
//            2024" (the templates' default), or today's UTC date for templates that call
//            strftime_now (3.2), fixed when the template is made
//   gemma    Gemma 2/3: BOS, "<start_of_turn>user|model\n" + trimmed content +
//            "<end_of_turn>\n"; the system message is folded into the first user turn; roles
//            must alternate user/assistant
//   phi3     Phi-3.5/-small: "<|system|>\n" (if non-empty), "<|user|>\n", "<|assistant|>\n" +
//            content + "<|end|>\n"; without add_generation_prompt the EOS text ends the prompt;
//            BOS first if the template writes bos_token (Phi-3-small)
//   phi3-mini  Phi-3-mini/medium: (BOS,) "<|user|>\n" + content + "<|end|>\n<|assistant|>\n",
//            assistant content + "<|end|>\n"; system messages are dropped (the template has no
//            system role); the assistant header follows every user turn
//   llama2   Llama 2 chat: "BOS[INST] <<SYS>>\nSYSTEM\n<</SYS>>\n\nUSER [/INST] ASSISTANT EOS"
//            with stripped contents; roles must alternate user/assistant
//
// The BOS/EOS texts are the vocabulary's (e.g. "<|begin_of_text|>"), as the templates use
// bos_token/eos_token. Contents are trimmed (trim/strip) of ASCII whitespace.
//
//   EDGEQ_ASSIGN_OR_RETURN(ChatTemplate t, ChatTemplate::Open(jinja_text, "<s>", "</s>"));
//   EDGEQ_ASSIGN_OR_RETURN(std::string prompt, t.Render({{"user", "Hello"}}, true));
#ifndef EDGEQ_LLM_CHAT_TEMPLATE_H_
#define EDGEQ_LLM_CHAT_TEMPLATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace llm {

// A plain message; RenderJson takes any message Hugging Face passes (tool_calls, role "tool").
struct ChatMessage {
  std::string role;  // "system", "user" or "assistant" (a Jinja template may accept others)
  std::string content;
};

class ChatTemplate {
 public:
  enum class Family {
    kChatml,
    kQwen25,
    kQwen3,
    kSmolLm2,
    kLlama3,
    kLlama31,
    kGemma,
    kPhi3,
    kPhi3Mini,
    kLlama2,
    kJinja  // a template's own text, executed by the Jinja engine
  };

  // "chatml", "qwen2.5", "qwen3", "smollm2", "llama3", "llama3.1", "gemma", "phi3", "phi3-mini",
  // "llama2".
  static std::vector<std::string> Names();

  // By name (phi3-mini: the variant that starts with BOS); InvalidArgument naming an unknown one
  // and listing Names().
  static absl::StatusOr<ChatTemplate> FromName(absl::string_view name, std::string bos_text,
                                               std::string eos_text);
  // A template's own Jinja text, parsed now (InvalidArgument with the engine's message, which
  // names the line, when it does not parse) and executed at each Render. bos_text/eos_text
  // become bos_token/eos_token (left undefined when empty).
  static absl::StatusOr<ChatTemplate> FromJinja(std::string template_text, std::string bos_text,
                                                std::string eos_text);
  // A name from Names() -> FromName, anything else -> FromJinja.
  static absl::StatusOr<ChatTemplate> Open(std::string name_or_text, std::string bos_text,
                                           std::string eos_text);
  // Recognizes a Jinja chat template by its text (or a name from Names()). InvalidArgument
  // quoting the start of an unrecognized template (and naming the templates it recognizes);
  // Unimplemented for recognized families edgeq does not render (Phi-4, Mistral [INST] without
  // <<SYS>>).
  static absl::StatusOr<ChatTemplate> Detect(absl::string_view template_text, std::string bos_text,
                                             std::string eos_text);

  // The `tokenizer.chat_template` string of a GGUF; NotFound naming the key if absent.
  static absl::StatusOr<std::string> TextFromGguf(const checkpoint::TensorDict& dict);
  // The `chat_template` of a Hugging Face tokenizer_config.json: a string, or a list of
  // {"name", "template"} objects (the one named "default" is taken). NotFound / InvalidArgument
  // naming the file otherwise.
  static absl::StatusOr<std::string> TextFromTokenizerConfig(const std::string& path);

  // The prompt for `messages`. `add_generation_prompt`: end with the assistant's turn header.
  // Presets: InvalidArgument naming the role for a role other than system/user/assistant, and
  // (gemma, llama2) for roles that do not alternate user/assistant, as those templates raise.
  // kJinja: whatever the template does (raise_exception -> FailedPrecondition).
  absl::StatusOr<std::string> Render(absl::Span<const ChatMessage> messages,
                                     bool add_generation_prompt) const;
  // The same with messages as a JSON array (roles tool, tool_calls, ... as Hugging Face
  // passes them) and tools (a JSON array, or null for none). Presets render only
  // {role, content} messages without tools: InvalidArgument otherwise (use a Jinja template).
  absl::StatusOr<std::string> RenderJson(const nlohmann::ordered_json& messages,
                                         const nlohmann::ordered_json& tools,
                                         bool add_generation_prompt) const;
  // The Jinja text of a kJinja template (empty for presets).
  const std::string& jinja_text() const { return jinja_; }

  Family family() const { return family_; }
  const std::string& name() const;
  const std::string& bos_text() const { return bos_; }
  const std::string& eos_text() const { return eos_; }
  // The date llama3.1 writes in its system turn ("26 Jul 2024" style).
  const std::string& date_string() const { return date_; }
  void set_date_string(std::string date) { date_ = std::move(date); }
  // False for templates that drop system messages (phi3-mini). True for Jinja templates.
  bool supports_system() const { return family_ != Family::kPhi3Mini; }

 private:
  ChatTemplate(Family family, std::string bos, std::string eos)
      : family_(family), bos_(std::move(bos)), eos_(std::move(eos)) {}

  Family family_;
  // phi3, phi3-mini: the template starts with {{ bos_token }} (by name: phi3-mini only).
  bool phi3_bos_ = false;
  std::string date_ = "26 Jul 2024";
  std::string bos_, eos_;
  std::string jinja_;  // kJinja: the template text
};

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_CHAT_TEMPLATE_H_
