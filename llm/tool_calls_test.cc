#include "llm/tool_calls.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "llm/chat_template.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace llm {
namespace {

using json = nlohmann::ordered_json;

json ReadJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
}

TEST(ToolCallsTest, FormatFromTemplateText) {
  EXPECT_EQ(ToolCallFormatForTemplate("{{ '<tool_call>\\n' }}"), ToolCallFormat::kHermes);
  EXPECT_EQ(ToolCallFormatForTemplate("<|start_header_id|>{{ '<|python_tag|>' }}"),
            ToolCallFormat::kLlama31);
  EXPECT_EQ(ToolCallFormatForTemplate("'<｜tool▁call▁begin｜>' + tool['type']"),
            ToolCallFormat::kDeepSeekV3);
  EXPECT_EQ(ToolCallFormatForTemplate("{{ '[TOOL_CALLS]' }}"), ToolCallFormat::kMistral);
  EXPECT_EQ(ToolCallFormatForTemplate("to=functions.{{ name }}"), ToolCallFormat::kGptOss);
  // The marker written in pieces, as gpt-oss's own template does.
  EXPECT_EQ(ToolCallFormatForTemplate(
                "{{- '<|start|>assistant to=' }}{{- 'functions.' + c.name + '<|channel|>' }}"),
            ToolCallFormat::kGptOss);
  EXPECT_EQ(ToolCallFormatForTemplate("{{ '<|channel|>analysis' }}"), ToolCallFormat::kGeneric);
  EXPECT_EQ(ToolCallFormatForTemplate("{{ messages[0].content }}"), ToolCallFormat::kGeneric);
}

// The Qwen3 golden (@huggingface/jinja's rendering of the real template, jinja/testdata) writes
// the conversation's call as the model is trained to: parsing that assistant turn gives the
// call back.
TEST(ToolCallsTest, ParsesTheQwen3GoldenRendering) {
  const json goldens = ReadJson("jinja/testdata/goldens.json");
  const json convs = ReadJson("jinja/testdata/conversations.json");
  ASSERT_TRUE(goldens.is_object() && convs.is_object());
  std::string text;
  for (const json& r : goldens["renderings"]) {
    if (r["template"] == "qwen3" && r["conversation"] == "tools_object_args" &&
        r["add_generation_prompt"] == false) {
      text = r["text"].get<std::string>();
    }
  }
  ASSERT_FALSE(text.empty());
  const std::string head = "<|im_start|>assistant\n";
  const size_t at = text.find(head + "<tool_call>");
  ASSERT_NE(at, std::string::npos);
  const size_t end = text.find("<|im_end|>", at);
  const std::string turn = text.substr(at + head.size(), end - at - head.size());
  absl::StatusOr<ParsedReply> r = ParseToolCalls(turn, ToolCallFormat::kHermes);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->calls.size(), 1u);
  EXPECT_EQ(r->calls[0].name, "get_weather");
  EXPECT_EQ(r->calls[0].arguments, R"({"city":"Paris","unit":"celsius"})");
  EXPECT_EQ(r->content, "");
  // The message built from the parsed call is the conversation's own.
  EXPECT_EQ(AssistantMessage(*r, ToolCallFormat::kHermes),
            convs["tools_object_args"]["messages"][2]);
}

// Rendered -> parsed -> rendered: a call the parser reads from a reply renders through a Jinja
// template exactly as the reply said it.
TEST(ToolCallsTest, RoundTripsThroughAJinjaTemplate) {
  absl::StatusOr<ChatTemplate> t = ChatTemplate::FromJinja(
      "{% for m in messages %}{% if m.tool_calls %}{% for c in m.tool_calls %}<tool_call>\n"
      "{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}\n"
      "</tool_call>{% endfor %}{% else %}{{ m.content }}{% endif %}\n{% endfor %}",
      "", "");
  ASSERT_TRUE(t.ok()) << t.status();
  const std::string reply =
      "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"timezone\": \"Europe/Paris\"}}\n"
      "</tool_call>";
  absl::StatusOr<ParsedReply> r = ParseToolCalls(reply, ToolCallFormat::kHermes);
  ASSERT_TRUE(r.ok()) << r.status();
  json messages = json::array({AssistantMessage(*r, ToolCallFormat::kHermes)});
  absl::StatusOr<std::string> text = t->RenderJson(messages, nullptr, false);
  ASSERT_TRUE(text.ok()) << text.status();
  // (Jinja drops the template's final newline, as keep_trailing_newline is off.)
  EXPECT_EQ(*text, reply);
}

TEST(ToolCallsTest, HermesSeveralCallsAndContent) {
  absl::StatusOr<ParsedReply> r = ParseToolCalls(
      "Let me check.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</tool_call>\n"
      "<tool_call>{\"name\": \"b\", \"arguments\": \"{\\\"y\\\": [2]}\"}</tool_call>",
      ToolCallFormat::kHermes);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->content, "Let me check.");
  ASSERT_EQ(r->calls.size(), 2u);
  EXPECT_EQ(r->calls[0].name, "a");
  EXPECT_EQ(r->calls[0].arguments, R"({"x":1})");
  EXPECT_EQ(r->calls[1].name, "b");
  EXPECT_EQ(r->calls[1].arguments, R"({"y":[2]})");
}

TEST(ToolCallsTest, PlainRepliesHaveNoCalls) {
  for (ToolCallFormat f :
       {ToolCallFormat::kGeneric, ToolCallFormat::kHermes, ToolCallFormat::kLlama31,
        ToolCallFormat::kDeepSeekV3, ToolCallFormat::kMistral, ToolCallFormat::kGptOss}) {
    absl::StatusOr<ParsedReply> r = ParseToolCalls("  It is sunny.\n", f);
    ASSERT_TRUE(r.ok()) << ToolCallFormatName(f) << ": " << r.status();
    EXPECT_TRUE(r->calls.empty()) << ToolCallFormatName(f);
    EXPECT_EQ(r->content, "It is sunny.") << ToolCallFormatName(f);
  }
  // A JSON answer that is not a call stays content.
  absl::StatusOr<ParsedReply> r = ParseToolCalls("{\"answer\": 42}", ToolCallFormat::kLlama31);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->calls.empty());
  EXPECT_EQ(r->content, "{\"answer\": 42}");
}

TEST(ToolCallsTest, Llama31JsonAndPythonTag) {
  absl::StatusOr<ParsedReply> r =
      ParseToolCalls("{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
                     ToolCallFormat::kLlama31);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->calls.size(), 1u);
  EXPECT_EQ(r->calls[0].name, "get_weather");
  EXPECT_EQ(r->calls[0].arguments, R"({"city":"Paris"})");

  r = ParseToolCalls(
      "<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": "
      "{\"s\": \"x;y\"}}",
      ToolCallFormat::kLlama31);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->calls.size(), 2u);
  EXPECT_EQ(r->calls[0].name, "a");
  EXPECT_EQ(r->calls[1].arguments, R"({"s":"x;y"})");

  r = ParseToolCalls("<|python_tag|>print(1 + 1)", ToolCallFormat::kLlama31);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->calls.size(), 1u);
  EXPECT_EQ(r->calls[0].name, "python");
  EXPECT_EQ(r->calls[0].arguments, R"j({"code":"print(1 + 1)"})j");
}

// The text DeepSeek V3's template writes for a call (its tool-call branch), parsed back.
TEST(ToolCallsTest, DeepSeekV3) {
  absl::StatusOr<ParsedReply> r = ParseToolCalls(
      "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
      "{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>"
      "get_time\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
      ToolCallFormat::kDeepSeekV3);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->calls.size(), 2u);
  EXPECT_EQ(r->calls[0].name, "get_weather");
  EXPECT_EQ(r->calls[0].arguments, R"({"city":"Paris"})");
  EXPECT_EQ(r->calls[1].name, "get_time");
  const json m = AssistantMessage(*r, ToolCallFormat::kDeepSeekV3);
  EXPECT_TRUE(m["content"].is_null());
  EXPECT_EQ(m["tool_calls"][0]["function"]["arguments"], R"({"city":"Paris"})");
}

TEST(ToolCallsTest, MistralAndGptOss) {
  absl::StatusOr<ParsedReply> r = ParseToolCalls(
      "[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {\"k\": true}}]", ToolCallFormat::kMistral);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->calls.size(), 1u);
  EXPECT_EQ(r->calls[0].arguments, R"({"k":true})");

  r = ParseToolCalls(
      "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary "
      "to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>",
      ToolCallFormat::kGptOss);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->calls.size(), 1u);
  EXPECT_EQ(r->calls[0].name, "get_weather");
  EXPECT_EQ(r->calls[0].arguments, R"({"city":"Paris"})");
}

TEST(ToolCallsTest, MalformedCallsAreErrors) {
  struct Case {
    const char* reply;
    ToolCallFormat format;
    const char* message;
  } cases[] = {
      {"<tool_call>{\"name\": \"a\"", ToolCallFormat::kHermes, "without </tool_call>"},
      {"<tool_call>{nope}</tool_call>", ToolCallFormat::kHermes, "not valid JSON"},
      {"<tool_call>{\"arguments\": {}}</tool_call>", ToolCallFormat::kHermes, "string \"name\""},
      {"<tool_call>{\"name\": \"a\", \"arguments\": [1]}</tool_call>", ToolCallFormat::kHermes,
       "arguments are not a JSON object"},
      {"[TOOL_CALLS]{", ToolCallFormat::kMistral, "not valid JSON"},
      {"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function", ToolCallFormat::kDeepSeekV3,
       "without its end marker"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ParsedReply> r = ParseToolCalls(c.reply, c.format);
    ASSERT_FALSE(r.ok()) << c.reply;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << c.reply;
    EXPECT_TRUE(absl::StrContains(r.status().message(), c.message)) << r.status();
  }
  // Deep nesting is refused, not recursed into.
  const std::string deep = "<tool_call>" + std::string(100000, '[') + "</tool_call>";
  absl::StatusOr<ParsedReply> r = ParseToolCalls(deep, ToolCallFormat::kHermes);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "nested too deeply")) << r.status();
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
