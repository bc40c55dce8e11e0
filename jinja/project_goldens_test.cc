// The project's chat goldens (llm/testdata/chat_template_goldens.json: 10 real templates x 6
// conversations x add_generation_prompt, made with @huggingface/jinja for llm/chat_template.h)
// rendered by the Jinja engine. Every one of those template texts is also in
// @huggingface/ollama-utils's table (same sha256, checked by ollama_templates_node_test), so
// the test reads them from the installed package, never from the repository.
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "jinja/chat.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace jinja {
namespace {

using json = nlohmann::ordered_json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A JavaScript string literal ('...' or "...") starting at text[pos]; nullopt if malformed. The
// escapes JSON lacks (\' \v \0 \xHH, a bare " inside '...') are rewritten into JSON's, and the
// JSON parser decodes the rest (\uXXXX, surrogate pairs included).
std::optional<std::string> JsStringLiteral(const std::string& text, size_t pos) {
  if (pos >= text.size() || (text[pos] != '"' && text[pos] != '\'')) return std::nullopt;
  const char quote = text[pos];
  std::string as_json = "\"";
  for (size_t i = pos + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == quote) {
      as_json.push_back('"');
      const json parsed = json::parse(as_json, nullptr, false);
      if (!parsed.is_string()) return std::nullopt;
      return parsed.get<std::string>();
    }
    if (c == '"') {
      as_json += "\\\"";
      continue;
    }
    if (c != '\\') {
      as_json.push_back(c);
      continue;
    }
    if (++i >= text.size()) return std::nullopt;
    const char e = text[i];
    if (e == '\'') {
      as_json.push_back('\'');
    } else if (e == 'v') {
      as_json += "\\u000b";
    } else if (e == '0') {
      as_json += "\\u0000";
    } else if (e == 'x') {
      as_json += "\\u00";
    } else {
      as_json.push_back('\\');
      as_json.push_back(e);
    }
  }
  return std::nullopt;
}

// The `gguf:` template of `model` in @huggingface/ollama-utils's chat-template-automap.ts.
std::optional<std::string> OllamaTemplate(const std::string& table, const std::string& model) {
  const size_t at = table.find(absl::StrCat("model: \"", model, "\""));
  if (at == std::string::npos) return std::nullopt;
  const size_t gguf = table.find("gguf: ", at);
  if (gguf == std::string::npos) return std::nullopt;
  return JsStringLiteral(table, gguf + 6);
}

TEST(ProjectGoldens, EveryRenderingOfLlmChatGoldens) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(automap,
                               "npm/@huggingface/ollama-utils/src/chat-template-automap.ts");
  const std::string table = ReadFile(automap);
  const json g = json::parse(ReadFile("llm/testdata/chat_template_goldens.json"), nullptr, false);
  ASSERT_TRUE(g.is_object()) << "llm/testdata/chat_template_goldens.json is not valid JSON";
  // Golden template -> the ollama-utils model whose template has the same text.
  const std::map<std::string, std::string> models = {
      {"llama3", "library/dolphin-llama3:8b"}, {"qwen3", "library/qwen3:0.6b"},
      {"gemma3", "library/gemma3:270m"},       {"qwen25", "library/qwen2.5-coder:1.5b"},
      {"phi35", "library/phi3.5:3.8b"},        {"smollm2", "library/smollm2:135m"},
      {"phi3mini", "library/nuextract:3.8b"},  {"llama31", "library/llama3.1:8b"},
      {"llama32", "library/llama3.2:3b"},      {"llama2", "library/llama2:7b"}};
  std::map<std::string, int> equal;
  int checked = 0;
  for (const json& r : g["renderings"]) {
    const std::string key = r["template"].get<std::string>();
    ASSERT_TRUE(models.count(key)) << key;
    std::optional<std::string> text = OllamaTemplate(table, models.at(key));
    ASSERT_TRUE(text.has_value()) << "no template for " << models.at(key);
    const json& info = g["templates"][key];
    std::optional<std::string> bos, eos;
    if (info["bos_token"].is_string()) bos = info["bos_token"].get<std::string>();
    if (info["eos_token"].is_string()) eos = info["eos_token"].get<std::string>();
    json extra = nullptr;
    if (info["date_string"].is_string()) extra = {{"date_string", info["date_string"]}};
    const json& messages = g["conversations"][r["conversation"].get<std::string>()];
    const bool agp = r["add_generation_prompt"].get<bool>();
    absl::StatusOr<std::string> got = RenderChat(*text, messages, nullptr, agp, bos, eos, extra);
    const std::string what = absl::StrCat(key, " / ", r["conversation"].get<std::string>(),
                                          " / add_generation_prompt ", agp);
    ++checked;
    if (r.contains("text")) {
      ASSERT_TRUE(got.ok()) << what << ": " << got.status();
      EXPECT_EQ(*got, r["text"].get<std::string>()) << what;
      if (*got == r["text"].get<std::string>()) ++equal[key];
    } else {
      ASSERT_FALSE(got.ok()) << what;
      EXPECT_EQ(got.status().code(), absl::StatusCode::kFailedPrecondition) << got.status();
      EXPECT_EQ(got.status().message(), r["error"].get<std::string>()) << what;
      if (got.status().message() == r["error"].get<std::string>()) ++equal[key];
    }
  }
  EXPECT_EQ(checked, 120);
  for (const auto& kv : models) EXPECT_EQ(equal[kv.first], 12) << kv.first;
}

}  // namespace
}  // namespace jinja
}  // namespace edgeq
