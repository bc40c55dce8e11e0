#include "llm/chat_template.h"

#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checkpoint/internal/json_input.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "jinja/chat.h"
#include "jinja/template.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace llm {
namespace {

using Family = ChatTemplate::Family;

struct FamilyName {
  Family family;
  const char* name;
};
constexpr FamilyName kFamilies[] = {
    {Family::kChatml, "chatml"},   {Family::kQwen25, "qwen2.5"}, {Family::kQwen3, "qwen3"},
    {Family::kSmolLm2, "smollm2"}, {Family::kLlama3, "llama3"},  {Family::kLlama31, "llama3.1"},
    {Family::kGemma, "gemma"},     {Family::kPhi3, "phi3"},      {Family::kPhi3Mini, "phi3-mini"},
    {Family::kLlama2, "llama2"},
};

constexpr char kQwen25DefaultSystem[] =
    "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";
constexpr char kSmolLm2DefaultSystem[] =
    "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

absl::string_view Trim(absl::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

absl::string_view StripChar(absl::string_view s, char c, bool left, bool right) {
  while (left && !s.empty() && s.front() == c) s.remove_prefix(1);
  while (right && !s.empty() && s.back() == c) s.remove_suffix(1);
  return s;
}

absl::Status CheckAlternation(absl::Span<const ChatMessage> loop, absl::string_view name) {
  for (size_t i = 0; i < loop.size(); ++i) {
    if ((loop[i].role == "user") != (i % 2 == 0)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "chat template %s: conversation roles must alternate user/assistant/user/assistant/... "
          "(message %d is '%s')",
          name, i, loop[i].role));
    }
  }
  return absl::OkStatus();
}

void RenderChatml(absl::Span<const ChatMessage> messages, const char* default_system,
                  std::string* out) {
  if (default_system != nullptr && (messages.empty() || messages[0].role != "system")) {
    absl::StrAppend(out, "<|im_start|>system\n", default_system, "<|im_end|>\n");
  }
  for (const ChatMessage& m : messages) {
    absl::StrAppend(out, "<|im_start|>", m.role, "\n", m.content, "<|im_end|>\n");
  }
}

void RenderQwen3(absl::Span<const ChatMessage> messages, std::string* out) {
  // The last user message (Qwen3's last_query_index; a user message wrapped in
  // <tool_response> does not count).
  int last_query = static_cast<int>(messages.size()) - 1;
  for (int i = static_cast<int>(messages.size()) - 1; i >= 0; --i) {
    const std::string& c = messages[i].content;
    if (messages[i].role == "user" &&
        !(absl::StartsWith(c, "<tool_response>") && absl::EndsWith(c, "</tool_response>"))) {
      last_query = i;
      break;
    }
  }
  for (int i = 0; i < static_cast<int>(messages.size()); ++i) {
    const ChatMessage& m = messages[i];
    if (m.role != "assistant") {
      absl::StrAppend(out, "<|im_start|>", m.role, "\n", m.content, "<|im_end|>\n");
      continue;
    }
    absl::string_view content = m.content;
    absl::string_view reasoning;
    const size_t close = m.content.find("</think>");
    if (close != std::string::npos) {
      const size_t last_close = m.content.rfind("</think>");
      content = StripChar(absl::string_view(m.content).substr(last_close + 8), '\n', true, false);
      absl::string_view before =
          StripChar(absl::string_view(m.content).substr(0, close), '\n', false, true);
      const size_t open = before.rfind("<think>");
      if (open != absl::string_view::npos) before = before.substr(open + 7);
      reasoning = StripChar(before, '\n', true, false);
    }
    const bool last = i + 1 == static_cast<int>(messages.size());
    if (i > last_query && (last || !reasoning.empty())) {
      absl::StrAppend(out, "<|im_start|>assistant\n<think>\n",
                      StripChar(reasoning, '\n', true, true), "\n</think>\n\n",
                      StripChar(content, '\n', true, false));
    } else {
      absl::StrAppend(out, "<|im_start|>assistant\n", content);
    }
    absl::StrAppend(out, "<|im_end|>\n");
  }
}

}  // namespace

std::vector<std::string> ChatTemplate::Names() {
  std::vector<std::string> names;
  for (const FamilyName& f : kFamilies) names.push_back(f.name);
  return names;
}

const std::string& ChatTemplate::name() const {
  static const auto* jinja_name = new std::string("jinja");
  if (family_ == Family::kJinja) return *jinja_name;
  static const auto* names = new std::vector<std::string>(Names());
  for (size_t i = 0; i < names->size(); ++i) {
    if (kFamilies[i].family == family_) return (*names)[i];
  }
  return (*names)[0];  // unreachable: every family is in kFamilies
}

absl::StatusOr<ChatTemplate> ChatTemplate::FromName(absl::string_view name, std::string bos_text,
                                                    std::string eos_text) {
  for (const FamilyName& f : kFamilies) {
    if (name == f.name) {
      ChatTemplate t(f.family, std::move(bos_text), std::move(eos_text));
      t.phi3_bos_ = f.family == Family::kPhi3Mini;
      return t;
    }
  }
  return absl::InvalidArgumentError(absl::StrFormat("unknown chat template %s (expected one of %s)",
                                                    QuoteForError(name),
                                                    absl::StrJoin(Names(), ", ")));
}

absl::StatusOr<ChatTemplate> ChatTemplate::FromJinja(std::string text, std::string bos_text,
                                                     std::string eos_text) {
  absl::StatusOr<jinja::Template> parsed = jinja::Template::Parse(text);
  if (!parsed.ok()) {
    return absl::Status(parsed.status().code(),
                        absl::StrCat("chat template: ", parsed.status().message()));
  }
  ChatTemplate t(Family::kJinja, std::move(bos_text), std::move(eos_text));
  t.jinja_ = std::move(text);
  return t;
}

absl::StatusOr<ChatTemplate> ChatTemplate::Open(std::string name_or_text, std::string bos_text,
                                                std::string eos_text) {
  for (const FamilyName& f : kFamilies) {
    if (name_or_text == f.name) {
      return FromName(name_or_text, std::move(bos_text), std::move(eos_text));
    }
  }
  return FromJinja(std::move(name_or_text), std::move(bos_text), std::move(eos_text));
}

absl::StatusOr<std::string> ChatTemplate::RenderJson(const nlohmann::ordered_json& messages,
                                                     const nlohmann::ordered_json& tools,
                                                     bool add_generation_prompt) const {
  if (family_ == Family::kJinja) {
    std::optional<std::string> bos, eos;
    if (!bos_.empty()) bos = bos_;
    if (!eos_.empty()) eos = eos_;
    absl::StatusOr<std::string> out =
        jinja::RenderChat(jinja_, messages, tools, add_generation_prompt, bos, eos);
    if (!out.ok()) {
      return absl::Status(out.status().code(),
                          absl::StrCat("chat template: ", out.status().message()));
    }
    return out;
  }
  if (!tools.is_null() && !(tools.is_array() && tools.empty())) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "chat template %s: the preset renders no tools; use the model's own template or "
        "--template FILE",
        name()));
  }
  if (!messages.is_array()) {
    return absl::InvalidArgumentError("chat messages: expected a JSON array");
  }
  std::vector<ChatMessage> list;
  for (size_t i = 0; i < messages.size(); ++i) {
    const nlohmann::ordered_json& m = messages[i];
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content") ||
        !m["content"].is_string() || m.contains("tool_calls")) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "chat template %s: message %d: the preset renders only {role, content} messages with "
          "string content; use the model's own template or --template FILE",
          name(), i));
    }
    list.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
  }
  return Render(list, add_generation_prompt);
}

absl::StatusOr<ChatTemplate> ChatTemplate::Detect(absl::string_view text, std::string bos_text,
                                                  std::string eos_text) {
  for (const FamilyName& f : kFamilies) {
    if (text == f.name) return FromName(text, std::move(bos_text), std::move(eos_text));
  }
  if (text.size() > kMaxTemplateBytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "chat template of %d bytes: above the limit of %d bytes", text.size(), kMaxTemplateBytes));
  }
  auto has = [&](absl::string_view s) { return absl::StrContains(text, s); };
  auto make = [&](Family f) { return ChatTemplate(f, std::move(bos_text), std::move(eos_text)); };
  if (has("<|im_start|>")) {
    if (has("<|im_sep|>")) {
      return absl::UnimplementedError(
          "the chat template is Phi-4's (<|im_sep|>), which edgeq does not render");
    }
    if (has("named SmolLM")) return make(Family::kSmolLm2);
    if (has("You are Qwen, created by Alibaba Cloud")) return make(Family::kQwen25);
    if (has("</think>") || has("reasoning_content")) return make(Family::kQwen3);
    return make(Family::kChatml);
  }
  if (has("<|start_header_id|>") && has("<|end_header_id|>")) {
    if (!has("Cutting Knowledge Date")) return make(Family::kLlama3);
    ChatTemplate t = make(Family::kLlama31);
    if (has("strftime_now")) {
      // Llama 3.2 dates the system turn with today's date, as transformers' strftime_now.
      const std::time_t now = std::time(nullptr);
      std::tm utc;
      gmtime_r(&now, &utc);
      char buf[32];
      if (std::strftime(buf, sizeof(buf), "%d %b %Y", &utc) > 0) t.date_ = buf;
    }
    return t;
  }
  if (has("<start_of_turn>")) return make(Family::kGemma);
  if (has("<|assistant|>") && has("<|end|>")) {
    // Phi-3.5 and Phi-3-small name every role; Phi-3-mini/medium only user and assistant.
    const bool phi3 =
        has("<|system|>") || has("'<|' + message['role']") || has("'<|' + message.role");
    ChatTemplate t = make(phi3 ? Family::kPhi3 : Family::kPhi3Mini);
    t.phi3_bos_ = has("bos_token");  // Phi-3-mini and -small start with it, 3.5 and medium not
    return t;
  }
  if (has("[INST]")) {
    if (has("<<SYS>>")) return make(Family::kLlama2);
    return absl::UnimplementedError(
        "the chat template is a Mistral-style [INST] template without <<SYS>>, which edgeq does "
        "not render");
  }
  std::string start(text.substr(0, 80));
  for (char& c : start) {
    if (c == '\n') {
      c = ' ';
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      c = '?';  // no terminal control bytes from the file in the message
    }
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "unknown chat template (it begins '%s%s'): edgeq recognizes %s; pass --template NAME", start,
      text.size() > 80 ? "..." : "", absl::StrJoin(Names(), ", ")));
}

absl::StatusOr<std::string> ChatTemplate::TextFromGguf(const checkpoint::TensorDict& dict) {
  if (!dict.HasMetadata("tokenizer.chat_template")) {
    return absl::NotFoundError("no tokenizer.chat_template in the model's metadata");
  }
  absl::StatusOr<std::string> s = dict.GetString("tokenizer.chat_template");
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tokenizer.chat_template: expected a string: ", s.status().message()));
  }
  return *s;
}

absl::StatusOr<std::string> ChatTemplate::TextFromTokenizerConfig(const std::string& path) {
  // Size-capped, depth-checked, duplicate keys refused.
  using json = nlohmann::json;
  EDGEQ_ASSIGN_OR_RETURN(json j,
                         checkpoint::internal::ReadJsonObjectFile(
                             path, nullptr, checkpoint::internal::kMaxTokenizerConfigBytes));
  auto it = j.find("chat_template");
  if (it == j.end() || it->is_null()) {
    return absl::NotFoundError(absl::StrCat(path, ": no chat_template"));
  }
  auto capped = [&](const json& t) -> absl::StatusOr<std::string> {
    const std::string& s = t.get_ref<const std::string&>();
    if (s.size() > kMaxTemplateBytes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: chat_template is %d bytes, above the limit of %d bytes", path,
                          s.size(), kMaxTemplateBytes));
    }
    return s;
  };
  if (it->is_string()) return capped(*it);
  if (it->is_array()) {
    for (const json& e : *it) {
      if (!e.is_object()) continue;
      auto n = e.find("name");
      auto t = e.find("template");
      if (n != e.end() && n->is_string() && n->get<std::string>() == "default" && t != e.end() &&
          t->is_string()) {
        return capped(*t);
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": chat_template is a list without a {\"name\": \"default\"} entry"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": chat_template: expected a string or a list of named templates"));
}

absl::StatusOr<std::string> ChatTemplate::Render(absl::Span<const ChatMessage> messages,
                                                 bool add_generation_prompt) const {
  if (family_ == Family::kJinja) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const ChatMessage& m : messages) {
      list.push_back({{"role", m.role}, {"content", m.content}});
    }
    return RenderJson(list, nullptr, add_generation_prompt);
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string& r = messages[i].role;
    if (r != "system" && r != "user" && r != "assistant") {
      return absl::InvalidArgumentError(absl::StrFormat(
          "chat template %s: message %d has role '%s' (expected system, user or assistant)", name(),
          i, r));
    }
  }
  std::string out;
  const bool has_system = !messages.empty() && messages[0].role == "system";
  switch (family_) {
    case Family::kJinja:
      break;  // handled above
    case Family::kChatml:
    case Family::kQwen25:
    case Family::kSmolLm2:
      RenderChatml(messages,
                   family_ == Family::kQwen25    ? kQwen25DefaultSystem
                   : family_ == Family::kSmolLm2 ? kSmolLm2DefaultSystem
                                                 : nullptr,
                   &out);
      if (add_generation_prompt) out += "<|im_start|>assistant\n";
      break;
    case Family::kQwen3:
      RenderQwen3(messages, &out);
      if (add_generation_prompt) out += "<|im_start|>assistant\n";
      break;
    case Family::kLlama3:
      for (size_t i = 0; i < messages.size(); ++i) {
        if (i == 0) out += bos_;
        absl::StrAppend(&out, "<|start_header_id|>", messages[i].role, "<|end_header_id|>\n\n",
                        Trim(messages[i].content), "<|eot_id|>");
      }
      // Llama 3's template ends with the assistant header whatever add_generation_prompt says.
      out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
      break;
    case Family::kLlama31: {
      absl::StrAppend(&out, bos_,
                      "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: "
                      "December 2023\nToday Date: ",
                      date_, "\n\n", has_system ? Trim(messages[0].content) : "", "<|eot_id|>");
      for (size_t i = has_system ? 1 : 0; i < messages.size(); ++i) {
        absl::StrAppend(&out, "<|start_header_id|>", messages[i].role, "<|end_header_id|>\n\n",
                        Trim(messages[i].content), "<|eot_id|>");
      }
      if (add_generation_prompt) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
      break;
    }
    case Family::kGemma: {
      absl::Span<const ChatMessage> loop = messages;
      std::string first_user_prefix;
      if (has_system) {
        first_user_prefix = absl::StrCat(messages[0].content, "\n\n");
        loop = messages.subspan(1);
      }
      EDGEQ_RETURN_IF_ERROR(CheckAlternation(loop, name()));
      out += bos_;
      for (size_t i = 0; i < loop.size(); ++i) {
        absl::StrAppend(&out, "<start_of_turn>", loop[i].role == "assistant" ? "model" : "user",
                        "\n", i == 0 ? first_user_prefix : "", Trim(loop[i].content),
                        "<end_of_turn>\n");
      }
      if (add_generation_prompt) out += "<start_of_turn>model\n";
      break;
    }
    case Family::kPhi3:
      if (phi3_bos_) out += bos_;
      for (const ChatMessage& m : messages) {
        if (m.role == "system" && m.content.empty()) continue;
        absl::StrAppend(&out, "<|", m.role, "|>\n", m.content, "<|end|>\n");
      }
      out += add_generation_prompt ? "<|assistant|>\n" : eos_;
      break;
    case Family::kPhi3Mini:
      if (phi3_bos_) out += bos_;
      for (const ChatMessage& m : messages) {
        if (m.role == "user") {
          absl::StrAppend(&out, "<|user|>\n", m.content, "<|end|>\n<|assistant|>\n");
        } else if (m.role == "assistant") {
          absl::StrAppend(&out, m.content, "<|end|>\n");
        }
      }
      break;  // the assistant header follows every user turn
    case Family::kLlama2: {
      absl::Span<const ChatMessage> loop = messages;
      if (has_system) loop = messages.subspan(1);
      EDGEQ_RETURN_IF_ERROR(CheckAlternation(loop, name()));
      for (size_t i = 0; i < loop.size(); ++i) {
        std::string content = loop[i].content;
        if (i == 0 && has_system) {
          content = absl::StrCat("<<SYS>>\n", messages[0].content, "\n<</SYS>>\n\n", content);
        }
        if (loop[i].role == "user") {
          absl::StrAppend(&out, bos_, "[INST] ", Trim(content), " [/INST]");
        } else {
          absl::StrAppend(&out, " ", Trim(content), " ", eos_);
        }
      }
      break;  // the template has no generation prompt: "[/INST]" ends a user turn
    }
  }
  return out;
}

}  // namespace llm
}  // namespace edgeq
