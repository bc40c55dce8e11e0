// jinja_render: prints the prompt a chat template renders for a conversation (the engine
// behind `edgeq template`, for users debugging a template and for tests).
//
//   jinja_render TEMPLATE --messages FILE.json [--tools FILE.json] [--no-generation-prompt]
//                [--vars FILE.json]
//   jinja_render --batch ITEMS.json
//
// TEMPLATE is Jinja text, or a Hugging Face tokenizer_config.json (its chat_template, and its
// bos_token/eos_token as the template's variables). FILE.json for --messages is a JSON array of
// messages; --tools a JSON array of tool definitions; --vars an object of extra variables
// (enable_thinking, date_string, ...). Exit 0 with the text on stdout (no newline added), or
// exit 1 with one line on stderr.
#include <cstdio>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "jinja/chat.h"
#include "nlohmann/json.hpp"

namespace {

using json = nlohmann::ordered_json;
constexpr size_t kMaxFile = 64 << 20;

absl::StatusOr<json> ReadJsonFile(const std::string& path, const char* what) {
  EDGEQ_ASSIGN_OR_RETURN(std::string text, edgeq::ReadFileBounded(path, kMaxFile, what));
  EDGEQ_RETURN_IF_ERROR(edgeq::CheckJsonDepth(text, 128, what));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " ", path, " is not valid JSON"));
  }
  return j;
}

// --batch FILE.json: an array of {template, messages, tools?, vars?, add_generation_prompt};
// prints a JSON array of {"text": ...} or {"error": ...}, one per item (for tests that render
// many templates in one process).
absl::StatusOr<std::string> RunBatch(const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(json items, ReadJsonFile(path, "batch file"));
  if (!items.is_array()) return absl::InvalidArgumentError("the batch file must hold an array");
  json out = json::array();
  for (const json& item : items) {
    if (!item.is_object() || !item.contains("template") || !item["template"].is_string() ||
        !item.contains("messages")) {
      out.push_back({{"error", "batch item needs a template string and messages"}});
      continue;
    }
    const json none = nullptr;
    const json& tools = item.contains("tools") ? item["tools"] : none;
    const json& vars = item.contains("vars") ? item["vars"] : none;
    const bool agp = item.value("add_generation_prompt", true);
    absl::StatusOr<std::string> r =
        edgeq::jinja::RenderChat(item["template"].get<std::string>(), item["messages"], tools, agp,
                                 std::nullopt, std::nullopt, vars);
    if (r.ok()) {
      out.push_back({{"text", *r}});
    } else {
      out.push_back({{"error", std::string(r.status().message())}});
    }
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

absl::StatusOr<std::string> Run(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--batch") return RunBatch(argv[2]);
  std::string template_path, messages_path, tools_path, vars_path;
  bool generation_prompt = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string* out) -> absl::Status {
      if (i + 1 >= argc) return absl::InvalidArgumentError(absl::StrCat(arg, " needs a file"));
      *out = argv[++i];
      return absl::OkStatus();
    };
    if (arg == "--messages") {
      EDGEQ_RETURN_IF_ERROR(value(&messages_path));
    } else if (arg == "--tools") {
      EDGEQ_RETURN_IF_ERROR(value(&tools_path));
    } else if (arg == "--vars") {
      EDGEQ_RETURN_IF_ERROR(value(&vars_path));
    } else if (arg == "--no-generation-prompt") {
      generation_prompt = false;
    } else if (!arg.empty() && arg[0] != '-' && template_path.empty()) {
      template_path = arg;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown argument '", arg,
                       "'; usage: jinja_render TEMPLATE --messages FILE.json "
                       "[--tools FILE.json] [--no-generation-prompt] [--vars FILE.json]"));
    }
  }
  if (template_path.empty() || messages_path.empty()) {
    return absl::InvalidArgumentError(
        "usage: jinja_render TEMPLATE --messages FILE.json [--tools FILE.json] "
        "[--no-generation-prompt] [--vars FILE.json]");
  }
  EDGEQ_ASSIGN_OR_RETURN(std::string text,
                         edgeq::ReadFileBounded(template_path, kMaxFile, "template"));
  EDGEQ_ASSIGN_OR_RETURN(json messages, ReadJsonFile(messages_path, "messages file"));
  json tools = nullptr, vars = nullptr;
  if (!tools_path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(tools, ReadJsonFile(tools_path, "tools file"));
  }
  if (!vars_path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(vars, ReadJsonFile(vars_path, "vars file"));
  }
  std::optional<std::string> bos, eos;
  // A tokenizer_config.json (a JSON object with chat_template), or Jinja text.
  if (edgeq::CheckJsonDepth(text, 128, "template").ok()) {
    const json config = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (config.is_object()) {
      EDGEQ_ASSIGN_OR_RETURN(
          edgeq::jinja::ChatTemplateSource src,
          edgeq::jinja::ChatTemplateFromTokenizerConfig(config, !tools.is_null()));
      text = src.text;
      bos = src.bos;
      eos = src.eos;
    }
  }
  return edgeq::jinja::RenderChat(text, messages, tools, generation_prompt, bos, eos, vars);
}

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<std::string> out = Run(argc, argv);
  if (!out.ok()) {
    std::fprintf(stderr, "jinja_render: %s\n", std::string(out.status().message()).c_str());
    return 1;
  }
  std::fwrite(out->data(), 1, out->size(), stdout);
  return 0;
}
