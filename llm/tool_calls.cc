#include "llm/tool_calls.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"

namespace edgeq {
namespace llm {
namespace {

using json = nlohmann::ordered_json;

constexpr char kHermesOpen[] = "<tool_call>";
constexpr char kHermesClose[] = "</tool_call>";
constexpr char kPythonTag[] = "<|python_tag|>";
constexpr char kDsCallsBegin[] = "<｜tool▁calls▁begin｜>";
constexpr char kDsCallsEnd[] = "<｜tool▁calls▁end｜>";
constexpr char kDsCallBegin[] = "<｜tool▁call▁begin｜>";
constexpr char kDsCallEnd[] = "<｜tool▁call▁end｜>";
constexpr char kDsSep[] = "<｜tool▁sep｜>";
constexpr char kMistralCalls[] = "[TOOL_CALLS]";
constexpr char kGptOssTo[] = "to=functions.";
constexpr char kGptOssMessage[] = "<|message|>";
constexpr char kGptOssCall[] = "<|call|>";
// JSON in a reply nests no deeper than this (a hostile reply cannot recurse the parser).
constexpr int kMaxArgumentsDepth = 64;

std::string Trim(absl::string_view s) { return std::string(absl::StripAsciiWhitespace(s)); }

absl::Status Bad(ToolCallFormat f, absl::string_view what, absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("tool call (", ToolCallFormatName(f), "): ", what,
                                                 ": ", QuoteForError(text, 80)));
}

absl::StatusOr<json> ParseJson(ToolCallFormat f, absl::string_view text) {
  if (!CheckJsonDepth(text, kMaxArgumentsDepth, "tool call").ok()) {
    return Bad(f, "JSON nested too deeply", text);
  }
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad(f, "not valid JSON", text);
  return j;
}

// Arguments as an object's text: an object, or a string that holds one.
absl::StatusOr<std::string> ArgumentsText(ToolCallFormat f, const json& args,
                                          absl::string_view context) {
  if (args.is_object()) return args.dump(-1, ' ', false, json::error_handler_t::replace);
  if (args.is_string()) {
    const std::string s = args.get<std::string>();
    EDGEQ_ASSIGN_OR_RETURN(json inner, ParseJson(f, s));
    if (inner.is_object()) return inner.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  return Bad(f, "arguments are not a JSON object", context);
}

// {"name": N, "arguments"|"parameters": {...}} -> a call.
absl::StatusOr<ToolCall> CallFromObject(ToolCallFormat f, const json& j,
                                        absl::string_view context) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) {
    return Bad(f, "expected an object with a string \"name\"", context);
  }
  ToolCall call;
  call.name = j["name"].get<std::string>();
  const char* key = j.contains("arguments") ? "arguments" : "parameters";
  if (!j.contains(key)) {
    call.arguments = "{}";
    return call;
  }
  EDGEQ_ASSIGN_OR_RETURN(call.arguments, ArgumentsText(f, j[key], context));
  return call;
}

absl::Status ParseHermes(ToolCallFormat f, absl::string_view reply, ParsedReply& out) {
  std::string content;
  size_t pos = 0;
  while (true) {
    const size_t open = reply.find(kHermesOpen, pos);
    if (open == absl::string_view::npos) {
      content += std::string(reply.substr(pos));
      break;
    }
    content += std::string(reply.substr(pos, open - pos));
    const size_t body = open + sizeof(kHermesOpen) - 1;
    const size_t close = reply.find(kHermesClose, body);
    if (close == absl::string_view::npos) {
      return Bad(f, "<tool_call> without </tool_call>", reply.substr(open));
    }
    const absl::string_view inner = absl::StripAsciiWhitespace(reply.substr(body, close - body));
    EDGEQ_ASSIGN_OR_RETURN(json j, ParseJson(f, inner));
    EDGEQ_ASSIGN_OR_RETURN(ToolCall call, CallFromObject(f, j, inner));
    out.calls.push_back(std::move(call));
    pos = close + sizeof(kHermesClose) - 1;
  }
  out.content = Trim(content);
  return absl::OkStatus();
}

// One JSON object with "name" and arguments, or content when the reply is not such an object.
absl::Status ParseBareJson(ToolCallFormat f, absl::string_view reply, ParsedReply& out,
                           bool semicolons) {
  const absl::string_view text = absl::StripAsciiWhitespace(reply);
  if (!absl::StartsWith(text, "{")) {
    out.content = std::string(text);
    return absl::OkStatus();
  }
  std::vector<absl::string_view> parts;
  if (semicolons) {
    // Objects separated by ';' outside strings and brackets.
    bool in_string = false, escaped = false;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      const char c = i < text.size() ? text[i] : ';';
      if (in_string) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          in_string = false;
        }
        if (i < text.size()) continue;
      }
      if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        --depth;
      } else if (c == ';' && (depth == 0 || i == text.size())) {
        const absl::string_view part = absl::StripAsciiWhitespace(text.substr(start, i - start));
        if (!part.empty()) parts.push_back(part);
        start = i + 1;
      }
    }
  } else {
    parts.push_back(text);
  }
  std::vector<ToolCall> calls;
  for (absl::string_view part : parts) {
    absl::StatusOr<json> j = ParseJson(f, part);
    if (!j.ok() || !j->is_object() || !j->contains("name")) {
      // Not a call: an answer that happens to start with '{'.
      out.content = std::string(text);
      return absl::OkStatus();
    }
    EDGEQ_ASSIGN_OR_RETURN(ToolCall call, CallFromObject(f, *j, part));
    calls.push_back(std::move(call));
  }
  out.calls = std::move(calls);
  return absl::OkStatus();
}

absl::Status ParseLlama31(absl::string_view reply, ParsedReply& out) {
  const ToolCallFormat f = ToolCallFormat::kLlama31;
  const size_t tag = reply.find(kPythonTag);
  if (tag == absl::string_view::npos) return ParseBareJson(f, reply, out, /*semicolons=*/true);
  const std::string before = Trim(reply.substr(0, tag));
  const absl::string_view rest =
      absl::StripAsciiWhitespace(reply.substr(tag + sizeof(kPythonTag) - 1));
  ParsedReply inner;
  EDGEQ_RETURN_IF_ERROR(ParseBareJson(f, rest, inner, /*semicolons=*/true));
  if (inner.calls.empty()) {
    // The code interpreter: <|python_tag|>CODE.
    ToolCall call;
    call.name = "python";
    call.arguments =
        json{{"code", std::string(rest)}}.dump(-1, ' ', false, json::error_handler_t::replace);
    inner.calls.push_back(std::move(call));
  }
  out.calls = std::move(inner.calls);
  out.content = before;
  return absl::OkStatus();
}

absl::Status ParseDeepSeekV3(absl::string_view reply, ParsedReply& out) {
  const ToolCallFormat f = ToolCallFormat::kDeepSeekV3;
  const size_t begin = reply.find(kDsCallsBegin);
  if (begin == absl::string_view::npos) {
    out.content = Trim(reply);
    return absl::OkStatus();
  }
  out.content = Trim(reply.substr(0, begin));
  size_t pos = begin + sizeof(kDsCallsBegin) - 1;
  const size_t end = reply.find(kDsCallsEnd, pos);
  const absl::string_view calls =
      reply.substr(pos, end == absl::string_view::npos ? absl::string_view::npos : end - pos);
  pos = 0;
  while (true) {
    const size_t cb = calls.find(kDsCallBegin, pos);
    if (cb == absl::string_view::npos) break;
    const size_t ce = calls.find(kDsCallEnd, cb);
    if (ce == absl::string_view::npos)
      return Bad(f, "a call without its end marker", calls.substr(cb));
    const absl::string_view body =
        calls.substr(cb + sizeof(kDsCallBegin) - 1, ce - cb - (sizeof(kDsCallBegin) - 1));
    const size_t sep = body.find(kDsSep);
    if (sep == absl::string_view::npos) return Bad(f, "a call without <｜tool▁sep｜>", body);
    absl::string_view after = body.substr(sep + sizeof(kDsSep) - 1);
    const size_t nl = after.find('\n');
    if (nl == absl::string_view::npos) return Bad(f, "a call without arguments", body);
    ToolCall call;
    call.name = Trim(after.substr(0, nl));
    absl::string_view args = absl::StripAsciiWhitespace(after.substr(nl + 1));
    absl::ConsumePrefix(&args, "```json");
    absl::ConsumeSuffix(&args, "```");
    args = absl::StripAsciiWhitespace(args);
    EDGEQ_ASSIGN_OR_RETURN(json j, ParseJson(f, args));
    EDGEQ_ASSIGN_OR_RETURN(call.arguments, ArgumentsText(f, j, args));
    if (call.name.empty()) return Bad(f, "a call without a name", body);
    out.calls.push_back(std::move(call));
    pos = ce + sizeof(kDsCallEnd) - 1;
  }
  if (out.calls.empty()) return Bad(f, "tool calls without a call", calls);
  return absl::OkStatus();
}

absl::Status ParseMistral(absl::string_view reply, ParsedReply& out) {
  const ToolCallFormat f = ToolCallFormat::kMistral;
  const size_t at = reply.find(kMistralCalls);
  if (at == absl::string_view::npos) {
    out.content = Trim(reply);
    return absl::OkStatus();
  }
  out.content = Trim(reply.substr(0, at));
  const absl::string_view rest =
      absl::StripAsciiWhitespace(reply.substr(at + sizeof(kMistralCalls) - 1));
  EDGEQ_ASSIGN_OR_RETURN(json j, ParseJson(f, rest));
  if (j.is_object()) j = json::array({j});
  if (!j.is_array() || j.empty()) return Bad(f, "expected a JSON array of calls", rest);
  for (const json& c : j) {
    EDGEQ_ASSIGN_OR_RETURN(ToolCall call, CallFromObject(f, c, rest));
    out.calls.push_back(std::move(call));
  }
  return absl::OkStatus();
}

absl::Status ParseGptOss(absl::string_view reply, ParsedReply& out) {
  const ToolCallFormat f = ToolCallFormat::kGptOss;
  std::string content;
  size_t pos = 0;
  while (true) {
    const size_t to = reply.find(kGptOssTo, pos);
    if (to == absl::string_view::npos) {
      content += std::string(reply.substr(pos));
      break;
    }
    // The call's header starts at its <|channel|> (or <|start|>) marker.
    size_t head = reply.rfind("<|channel|>", to);
    if (head == absl::string_view::npos || head < pos) head = to;
    content += std::string(reply.substr(pos, head - pos));
    const size_t name_at = to + sizeof(kGptOssTo) - 1;
    size_t name_end = name_at;
    while (name_end < reply.size() && reply[name_end] != ' ' && reply[name_end] != '<') {
      ++name_end;
    }
    ToolCall call;
    call.name = std::string(reply.substr(name_at, name_end - name_at));
    if (call.name.empty()) return Bad(f, "a call without a name", reply.substr(to));
    const size_t msg = reply.find(kGptOssMessage, name_end);
    if (msg == absl::string_view::npos)
      return Bad(f, "a call without <|message|>", reply.substr(to));
    const size_t body = msg + sizeof(kGptOssMessage) - 1;
    size_t end = reply.find(kGptOssCall, body);
    const size_t next = end == absl::string_view::npos ? reply.size() : end;
    const absl::string_view args = absl::StripAsciiWhitespace(reply.substr(body, next - body));
    EDGEQ_ASSIGN_OR_RETURN(json j, ParseJson(f, args));
    EDGEQ_ASSIGN_OR_RETURN(call.arguments, ArgumentsText(f, j, args));
    out.calls.push_back(std::move(call));
    pos = end == absl::string_view::npos ? reply.size() : end + sizeof(kGptOssCall) - 1;
  }
  out.content = Trim(content);
  return absl::OkStatus();
}

}  // namespace

const char* ToolCallFormatName(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::kGeneric:
      return "generic";
    case ToolCallFormat::kHermes:
      return "hermes";
    case ToolCallFormat::kLlama31:
      return "llama3.1";
    case ToolCallFormat::kDeepSeekV3:
      return "deepseek-v3";
    case ToolCallFormat::kMistral:
      return "mistral";
    case ToolCallFormat::kGptOss:
      return "gpt-oss";
  }
  return "generic";
}

ToolCallFormat ToolCallFormatForTemplate(absl::string_view t) {
  if (absl::StrContains(t, kHermesOpen)) return ToolCallFormat::kHermes;
  if (absl::StrContains(t, kDsCallBegin)) return ToolCallFormat::kDeepSeekV3;
  if (absl::StrContains(t, kMistralCalls)) return ToolCallFormat::kMistral;
  // gpt-oss's own template builds the marker from pieces (" to=" then "functions." + name).
  if (absl::StrContains(t, kGptOssTo) ||
      (absl::StrContains(t, "<|channel|>") && absl::StrContains(t, "functions."))) {
    return ToolCallFormat::kGptOss;
  }
  if (absl::StrContains(t, kPythonTag) || absl::StrContains(t, "<|start_header_id|>")) {
    return ToolCallFormat::kLlama31;
  }
  return ToolCallFormat::kGeneric;
}

absl::StatusOr<ParsedReply> ParseToolCalls(absl::string_view reply, ToolCallFormat format) {
  ParsedReply out;
  switch (format) {
    case ToolCallFormat::kHermes:
      EDGEQ_RETURN_IF_ERROR(ParseHermes(format, reply, out));
      break;
    case ToolCallFormat::kLlama31:
      EDGEQ_RETURN_IF_ERROR(ParseLlama31(reply, out));
      break;
    case ToolCallFormat::kDeepSeekV3:
      EDGEQ_RETURN_IF_ERROR(ParseDeepSeekV3(reply, out));
      break;
    case ToolCallFormat::kMistral:
      EDGEQ_RETURN_IF_ERROR(ParseMistral(reply, out));
      break;
    case ToolCallFormat::kGptOss:
      EDGEQ_RETURN_IF_ERROR(ParseGptOss(reply, out));
      break;
    case ToolCallFormat::kGeneric:
      if (absl::StrContains(reply, kHermesOpen)) {
        EDGEQ_RETURN_IF_ERROR(ParseHermes(format, reply, out));
      } else {
        EDGEQ_RETURN_IF_ERROR(ParseBareJson(format, reply, out, /*semicolons=*/false));
      }
      break;
  }
  return out;
}

json AssistantMessage(const ParsedReply& reply, ToolCallFormat format) {
  json m = {{"role", "assistant"}, {"content", reply.content}};
  if (reply.calls.empty()) return m;
  if (format == ToolCallFormat::kDeepSeekV3 && reply.content.empty()) m["content"] = nullptr;
  json calls = json::array();
  for (const ToolCall& c : reply.calls) {
    json args = json::parse(c.arguments, nullptr, false);
    if (format == ToolCallFormat::kDeepSeekV3 || args.is_discarded()) args = c.arguments;
    calls.push_back({{"type", "function"}, {"function", {{"name", c.name}, {"arguments", args}}}});
  }
  m["tool_calls"] = std::move(calls);
  return m;
}

}  // namespace llm
}  // namespace edgeq
