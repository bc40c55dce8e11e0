// The C API's chat functions with tools (c_api/chat_c.cc): conversations with tool definitions
// rendered through a Jinja template against @huggingface/jinja's renderings
// (jinja/testdata/goldens.json), and tool calls parsed from replies into name + JSON arguments.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "edgeq/edgeq.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"
#include "tokenizer/tokenizer.h"

namespace {

using json = nlohmann::ordered_json;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

json ReadJson(const std::string& path) {
  return json::parse(ReadText(path), nullptr, /*allow_exceptions=*/false);
}

std::string LastError() { return edgeq_last_error(); }

// A library built with --define=edgeq_chat=off parses no tool calls (it says so).
bool ChatOff() {
  edgeq_tool_calls* calls = nullptr;
  if (edgeq_parse_tool_calls("hermes", "", &calls) != EDGEQ_ERROR_FAILED_PRECONDITION) {
    edgeq_tool_calls_free(calls);
    return false;
  }
  EXPECT_EQ(LastError(),
            "edgeq_parse_tool_calls: this libedgeq was built without chat templates "
            "(--define=edgeq_chat=off)");
  EXPECT_STREQ(edgeq_tool_call_format("<tool_call>"), "");
  return true;
}

#define SKIP_IF_CHAT_OFF() \
  if (ChatOff()) GTEST_SKIP() << "built with --define=edgeq_chat=off"

// stories260K carries the llama vocabulary whose BOS/EOS texts (<s>, </s>) are the ones
// jinja/testdata/goldens.json renders edgeq's own test template with.
class ChatCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/stories260K.gguf");
    path_ = path;
    ASSERT_EQ(edgeq_llm_load(path.c_str(), nullptr, &llm_), EDGEQ_OK) << LastError();
    size_t n = 0;
    if (edgeq_llm_chat_render(llm_, "x", "[]", nullptr, 1, nullptr, 0, &n) ==
            EDGEQ_ERROR_FAILED_PRECONDITION &&
        LastError().find("without chat templates") != std::string::npos) {
      GTEST_SKIP() << "built with --define=edgeq_chat=off";
    }
  }
  void TearDown() override { edgeq_llm_free(llm_); }

  // The prompt, or the status (and edgeq_last_error()) when the call fails.
  edgeq_status Render(const std::string& tmpl, const json& messages, const json& tools, int agp,
                      std::string* out) {
    const std::string m = messages.dump(), t = tools.is_null() ? "" : tools.dump();
    size_t length = 0;
    edgeq_status s =
        edgeq_llm_chat_render(llm_, tmpl.c_str(), m.c_str(), t.c_str(), agp, nullptr, 0, &length);
    if (s != EDGEQ_ERROR_BUFFER_TOO_SMALL) return s;
    std::vector<char> buf(length + 1);
    s = edgeq_llm_chat_render(llm_, tmpl.c_str(), m.c_str(), t.c_str(), agp, buf.data(), buf.size(),
                              &length);
    if (s == EDGEQ_OK) *out = std::string(buf.data(), length);
    return s;
  }

  std::string path_;
  edgeq_llm* llm_ = nullptr;
};

// Every conversation of jinja/testdata (tools with object and string arguments and tool results
// included) x add_generation_prompt through edgeq's own test template equals @huggingface/jinja's
// rendering byte for byte; where the reference threw, the C API fails too.
TEST_F(ChatCApi, RenderWithToolsEqualsHuggingFaceJinja) {
  const std::string tmpl = ReadText("jinja/testdata/own_template.jinja");
  const json goldens = ReadJson("jinja/testdata/goldens.json");
  const json convs = ReadJson("jinja/testdata/conversations.json");
  ASSERT_TRUE(goldens.is_object() && convs.is_object());
  int rendered = 0, refused = 0;
  for (const json& r : goldens["renderings"]) {
    if (r["template"] != "own") continue;
    const json& conv = convs[r["conversation"].get<std::string>()];
    const bool agp = r["add_generation_prompt"].get<bool>();
    const std::string what = r["conversation"].get<std::string>() + (agp ? " +gen" : " -gen");
    std::string got;
    const edgeq_status s =
        Render(tmpl, conv["messages"], conv.contains("tools") ? conv["tools"] : json(), agp, &got);
    if (r.contains("text")) {
      ASSERT_EQ(s, EDGEQ_OK) << what << ": " << LastError();
      EXPECT_EQ(got, r["text"].get<std::string>()) << what;
      ++rendered;
    } else {
      EXPECT_NE(s, EDGEQ_OK) << what << " rendered, the reference threw " << r["error"];
      ++refused;
    }
  }
  EXPECT_EQ(rendered, 22);
  EXPECT_EQ(refused, 2);
}

// The ids are the rendered text tokenized with control tokens matched and no second BOS.
TEST_F(ChatCApi, TokenizeJsonEqualsTokenizingTheRendering) {
  const std::string tmpl = ReadText("jinja/testdata/own_template.jinja");
  const json conv = ReadJson("jinja/testdata/conversations.json")["tools_object_args"];
  std::string text;
  ASSERT_EQ(Render(tmpl, conv["messages"], conv["tools"], 1, &text), EDGEQ_OK) << LastError();
  ASSERT_EQ(text.rfind("<s><|system|>You can call tools.Tools (2):\n1. GET_WEATHER(city, unit)", 0),
            0u)
      << text;
  auto tok = edgeq::tokenizer::Tokenizer::FromGgufFile(path_);
  ASSERT_TRUE(tok.ok()) << tok.status();
  auto want = tok->Encode(text, {.add_special = false, .parse_special = true});
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_EQ((*want)[0], tok->bos_id());
  const std::string m = conv["messages"].dump(), t = conv["tools"].dump();
  size_t n = 0;
  EXPECT_EQ(
      edgeq_llm_chat_tokenize_json(llm_, tmpl.c_str(), m.c_str(), t.c_str(), 1, nullptr, 0, &n),
      EDGEQ_ERROR_BUFFER_TOO_SMALL);
  ASSERT_EQ(n, want->size());
  std::vector<int32_t> ids(n);
  ASSERT_EQ(edgeq_llm_chat_tokenize_json(llm_, tmpl.c_str(), m.c_str(), t.c_str(), 1, ids.data(),
                                         ids.size(), &n),
            EDGEQ_OK)
      << LastError();
  EXPECT_EQ(ids, std::vector<int32_t>(want->begin(), want->end()));
}

// bos_token / eos_token are the vocabulary's texts (<s>, </s>) in both chat functions.
TEST_F(ChatCApi, BosAndEosTokensAreTheVocabularysTexts) {
  std::string out;
  ASSERT_EQ(Render("{{ bos_token }}|{{ eos_token }}", json::array(), json(), 0, &out), EDGEQ_OK)
      << LastError();
  EXPECT_EQ(out, "<s>|</s>");
  const char* roles[] = {"user"};
  const char* contents[] = {"a"};
  int32_t ids[16];
  size_t n = 0;
  ASSERT_EQ(edgeq_llm_chat_tokenize(llm_, "{{ bos_token }}{{ eos_token }}", roles, contents, 1, 0,
                                    ids, 16, &n),
            EDGEQ_OK)
      << LastError();
  EXPECT_EQ(std::vector<int32_t>(ids, ids + n), (std::vector<int32_t>{1, 2}));
}

TEST_F(ChatCApi, RenderErrors) {
  std::string out;
  // stories260K has no template of its own.
  EXPECT_EQ(Render("", json::array({{{"role", "user"}, {"content", "hi"}}}), json(), 1, &out),
            EDGEQ_ERROR_NOT_FOUND);
  EXPECT_NE(LastError().find("tokenizer.chat_template"), std::string::npos) << LastError();
  size_t n = 0;
  EXPECT_EQ(
      edgeq_llm_chat_render(llm_, "{{ 1 }}", "{\"role\": \"user\"}", nullptr, 1, nullptr, 0, &n),
      EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("edgeq_llm_chat_render: messages_json is not a JSON array"),
            std::string::npos)
      << LastError();
  EXPECT_EQ(edgeq_llm_chat_render(llm_, "{{ 1 }}", "[]", "[1,", 1, nullptr, 0, &n),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("tools_json is not a JSON array: '[1,'"), std::string::npos)
      << LastError();
  EXPECT_EQ(edgeq_llm_chat_render(llm_, "{{ 1 }}", nullptr, nullptr, 1, nullptr, 0, &n),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  // A template's raise_exception is FAILED_PRECONDITION with its message.
  EXPECT_EQ(Render("{{ raise_exception('no tools here') if tools }}", json::array(),
                   json::array({{{"type", "function"}}}), 1, &out),
            EDGEQ_ERROR_FAILED_PRECONDITION);
  EXPECT_EQ(LastError(), "chat template: no tools here");
  // Presets render no tools.
  EXPECT_EQ(Render("chatml", json::array(), json::array({{{"type", "function"}}}), 1, &out),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  // Too deep JSON is refused before it is parsed.
  const std::string deep = std::string(200, '[') + std::string(200, ']');
  EXPECT_EQ(edgeq_llm_chat_render(llm_, "{{ 1 }}", deep.c_str(), nullptr, 1, nullptr, 0, &n),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("messages_json"), std::string::npos) << LastError();
}

// The Qwen3 golden (@huggingface/jinja's rendering of the real template) writes the
// conversation's call as the model writes it: parsed back, it is the conversation's message.
TEST(ToolCallsCApi, ParsesTheQwen3GoldenCall) {
  SKIP_IF_CHAT_OFF();
  const json goldens = ReadJson("jinja/testdata/goldens.json");
  const json convs = ReadJson("jinja/testdata/conversations.json");
  std::string text;
  for (const json& r : goldens["renderings"]) {
    if (r["template"] == "qwen3" && r["conversation"] == "tools_object_args" &&
        r["add_generation_prompt"] == false) {
      text = r["text"].get<std::string>();
    }
  }
  const std::string head = "<|im_start|>assistant\n";
  const size_t at = text.find(head + "<tool_call>");
  ASSERT_NE(at, std::string::npos);
  const std::string reply =
      text.substr(at + head.size(), text.find("<|im_end|>", at) - at - head.size());
  edgeq_tool_calls* calls = nullptr;
  ASSERT_EQ(edgeq_parse_tool_calls("hermes", reply.c_str(), &calls), EDGEQ_OK) << LastError();
  EXPECT_STREQ(edgeq_tool_calls_format(calls), "hermes");
  ASSERT_EQ(edgeq_tool_calls_count(calls), 1u);
  const char* name = nullptr;
  const char* args = nullptr;
  ASSERT_EQ(edgeq_tool_calls_get(calls, 0, &name, &args), EDGEQ_OK);
  EXPECT_STREQ(name, "get_weather");
  EXPECT_STREQ(args, R"({"city":"Paris","unit":"celsius"})");
  EXPECT_STREQ(edgeq_tool_calls_content(calls), "");
  EXPECT_EQ(json::parse(edgeq_tool_calls_message(calls)),
            convs["tools_object_args"]["messages"][2]);
  EXPECT_EQ(edgeq_tool_calls_get(calls, 1, &name, &args), EDGEQ_ERROR_OUT_OF_RANGE);
  EXPECT_NE(LastError().find("index 1; expected below 1"), std::string::npos) << LastError();
  edgeq_tool_calls_free(calls);
}

TEST(ToolCallsCApi, FormatsByTemplateAndByName) {
  SKIP_IF_CHAT_OFF();
  EXPECT_STREQ(edgeq_tool_call_format("{{ '<tool_call>\\n' }}"), "hermes");
  EXPECT_STREQ(edgeq_tool_call_format("<|start_header_id|>{{ x }}"), "llama3.1");
  EXPECT_STREQ(edgeq_tool_call_format("{{ messages }}"), "generic");
  EXPECT_STREQ(edgeq_tool_call_format(nullptr), "generic");
  edgeq_tool_calls* calls = nullptr;
  // Llama 3.1: two calls separated by ';', after <|python_tag|>.
  ASSERT_EQ(edgeq_parse_tool_calls("llama3.1",
                                   "<|python_tag|>{\"name\": \"get_time\", \"parameters\": "
                                   "{\"timezone\": \"UTC\"}}; {\"name\": \"noop\", "
                                   "\"parameters\": {}}",
                                   &calls),
            EDGEQ_OK)
      << LastError();
  ASSERT_EQ(edgeq_tool_calls_count(calls), 2u);
  const char* name = nullptr;
  const char* args = nullptr;
  ASSERT_EQ(edgeq_tool_calls_get(calls, 0, &name, &args), EDGEQ_OK);
  EXPECT_STREQ(name, "get_time");
  EXPECT_STREQ(args, R"({"timezone":"UTC"})");
  ASSERT_EQ(edgeq_tool_calls_get(calls, 1, &name, &args), EDGEQ_OK);
  EXPECT_STREQ(name, "noop");
  EXPECT_STREQ(args, "{}");
  edgeq_tool_calls_free(calls);
  // A plain answer: no calls, the text as content.
  ASSERT_EQ(edgeq_parse_tool_calls("hermes", "  It is sunny. ", &calls), EDGEQ_OK);
  EXPECT_EQ(edgeq_tool_calls_count(calls), 0u);
  EXPECT_STREQ(edgeq_tool_calls_content(calls), "It is sunny.");
  EXPECT_STREQ(edgeq_tool_calls_message(calls), R"({"role":"assistant","content":"It is sunny."})");
  edgeq_tool_calls_free(calls);
  edgeq_tool_calls_free(nullptr);
  EXPECT_EQ(edgeq_parse_tool_calls("xml", "x", &calls), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "edgeq_parse_tool_calls: unknown tool-call format 'xml'; expected hermes, llama3.1, "
            "deepseek-v3, mistral, gpt-oss or generic");
  EXPECT_EQ(calls, nullptr);
  EXPECT_EQ(edgeq_parse_tool_calls("hermes", "<tool_call>\n{\"name\": \"f\"", &calls),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("edgeq_parse_tool_calls: tool call (hermes)"), std::string::npos)
      << LastError();
  EXPECT_EQ(edgeq_parse_tool_calls("hermes", nullptr, &calls), EDGEQ_ERROR_INVALID_ARGUMENT);
}

// With the model: its own template (none here: NOT_FOUND) or the template text given.
TEST_F(ChatCApi, ParsesInTheTemplatesFormat) {
  edgeq_tool_calls* calls = nullptr;
  const char* reply =
      "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
      "{\"city\": \"Paris\"}}\n</tool_call>";
  EXPECT_EQ(edgeq_llm_parse_tool_calls(llm_, nullptr, reply, &calls), EDGEQ_ERROR_NOT_FOUND);
  ASSERT_EQ(edgeq_llm_parse_tool_calls(llm_, "{{ '<tool_call>' }}", reply, &calls), EDGEQ_OK)
      << LastError();
  EXPECT_STREQ(edgeq_tool_calls_format(calls), "hermes");
  EXPECT_STREQ(edgeq_tool_calls_content(calls), "Checking.");
  EXPECT_STREQ(edgeq_tool_calls_message(calls),
               R"({"role":"assistant","content":"Checking.","tool_calls":[{"type":"function",)"
               R"("function":{"name":"get_weather","arguments":{"city":"Paris"}}}]})");
  edgeq_tool_calls_free(calls);
}

}  // namespace
