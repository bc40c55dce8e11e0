// `edgeq template MODEL|TEMPLATE_FILE --messages FILE.json [--no-generation-prompt]
// [--tools FILE.json] [--vars FILE.json]`: prints the prompt a chat template renders for a
// conversation, as the Jinja engine (jinja/chat.h) runs it; for users debugging a template, and
// for tests.
//
// MODEL (a GGUF) gives its tokenizer.chat_template and its vocabulary's BOS/EOS texts as
// bos_token/eos_token. TEMPLATE_FILE is a Hugging Face tokenizer_config.json (a JSON object:
// its chat_template, "tool_use" one with --tools when it has several, and its
// bos_token/eos_token), or Jinja text (bos_token/eos_token undefined).
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/formats.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "jinja/chat.h"
#include "llm/chat_template.h"
#include "nlohmann/json.hpp"
#include "tools/command.h"
#include "tools/llm_cli.h"

namespace edgeq {
namespace tools {
namespace {

using json = nlohmann::ordered_json;

constexpr char kTemplateUsage[] =
    "MODEL|TEMPLATE_FILE --messages FILE.json [--no-generation-prompt] [--tools FILE.json] "
    "[--vars FILE.json]\n"
    "Prints the prompt the chat template renders (stdout, no newline added).\n"
    "  MODEL                   a GGUF: its tokenizer.chat_template, bos_token/eos_token from its\n"
    "                          vocabulary\n"
    "  TEMPLATE_FILE           Jinja text, or a tokenizer_config.json (its chat_template and\n"
    "                          bos_token/eos_token)\n"
    "  --messages FILE.json    a JSON array of messages ({role, content, tool_calls, ...})\n"
    "  --no-generation-prompt  add_generation_prompt false (default true)\n"
    "  --tools FILE.json       a JSON array of tool definitions (the `tools` variable)\n"
    "  --vars FILE.json        a JSON object of extra variables (enable_thinking, ...)";

absl::StatusOr<json> ReadJsonFile(const std::string& path, const std::string& what) {
  EDGEQ_ASSIGN_OR_RETURN(std::string text, ReadFileBounded(path, kMaxJsonFileBytes, what));
  EDGEQ_RETURN_IF_ERROR(CheckJsonDepth(text, kMaxJsonDepth, what));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", QuoteForError(path, 256), " is not valid JSON"));
  }
  return j;
}

bool IsGguf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::string(magic, 4) == "GGUF";
}

struct Source {
  std::string text;
  std::optional<std::string> bos, eos;
};

absl::StatusOr<Source> OpenSource(const std::string& path, bool with_tools) {
  Source s;
  if (IsGguf(path)) {
    EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint file, checkpoint::OpenCheckpoint(path));
    absl::StatusOr<std::string> text = llm::ChatTemplate::TextFromGguf(file.dict);
    if (!text.ok()) {
      return absl::Status(text.status().code(),
                          absl::StrCat(QuoteForError(path, 256), ": ", text.status().message()));
    }
    s.text = *std::move(text);
    if (file.dict.HasMetadata("tokenizer.ggml.model")) {
      EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<TextTokenizer> tok,
                             OpenTokenizer(file.dict, path, "", 0));
      if (tok->bos() >= 0) s.bos = tok->PieceText(tok->bos());
      if (tok->eos() >= 0) s.eos = tok->PieceText(tok->eos());
    }
    return s;
  }
  EDGEQ_ASSIGN_OR_RETURN(std::string text,
                         ReadFileBounded(path, kMaxJsonFileBytes, "template file"));
  // A tokenizer_config.json is a JSON object; anything else is Jinja text.
  if (CheckJsonDepth(text, kMaxJsonDepth, "template file").ok()) {
    const json config = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (config.is_object()) {
      absl::StatusOr<jinja::ChatTemplateSource> src =
          jinja::ChatTemplateFromTokenizerConfig(config, with_tools);
      if (!src.ok()) {
        return absl::Status(src.status().code(),
                            absl::StrCat(QuoteForError(path, 256), ": ", src.status().message()));
      }
      s.text = std::move(src->text);
      s.bos = std::move(src->bos);
      s.eos = std::move(src->eos);
      return s;
    }
  }
  if (text.size() > kMaxTemplateBytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("template file %s has %d bytes (at most %d for a template)",
                        QuoteForError(path, 256), text.size(), kMaxTemplateBytes));
  }
  s.text = std::move(text);
  return s;
}

absl::StatusOr<std::string> RenderTemplate(const Args& args) {
  std::string source_path, messages_path, tools_path, vars_path;
  bool generation_prompt = true;
  const std::vector<std::string>& raw = args.raw;
  for (size_t i = 0; i < raw.size(); ++i) {
    const std::string& arg = raw[i];
    auto value = [&](const std::string& flag, std::string* out) -> absl::StatusOr<bool> {
      if (arg == flag) {
        if (i + 1 >= raw.size()) {
          return absl::InvalidArgumentError(absl::StrCat(flag, " needs a FILE.json"));
        }
        *out = raw[++i];
        return true;
      }
      if (absl::StartsWith(arg, flag + "=")) {
        *out = arg.substr(flag.size() + 1);
        return true;
      }
      return false;
    };
    bool matched = false;
    for (auto [flag, out] : {std::pair<const char*, std::string*>{"--messages", &messages_path},
                             {"--tools", &tools_path},
                             {"--vars", &vars_path}}) {
      EDGEQ_ASSIGN_OR_RETURN(const bool m, value(flag, out));
      if (m) {
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (arg == "--no-generation-prompt") {
      generation_prompt = false;
    } else if (!arg.empty() && arg[0] != '-' && source_path.empty()) {
      source_path = arg;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected argument ", QuoteForError(arg, 64),
          " (expected MODEL|TEMPLATE_FILE, --messages, --tools, --vars, --no-generation-prompt)"));
    }
  }
  if (source_path.empty() || messages_path.empty()) {
    return absl::InvalidArgumentError(
        "expected MODEL|TEMPLATE_FILE and --messages FILE.json (usage: edgeq template "
        "MODEL|TEMPLATE_FILE --messages FILE.json [--no-generation-prompt] [--tools FILE.json])");
  }
  EDGEQ_ASSIGN_OR_RETURN(json messages, ReadJsonFile(messages_path, "--messages"));
  json tools = nullptr, vars = nullptr;
  if (!tools_path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(tools, ReadJsonFile(tools_path, "--tools"));
    if (!tools.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat("--tools ", QuoteForError(tools_path, 256),
                                                     ": expected a JSON array of tools"));
    }
  }
  if (!vars_path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(vars, ReadJsonFile(vars_path, "--vars"));
  }
  EDGEQ_ASSIGN_OR_RETURN(Source src, OpenSource(source_path, !tools.is_null()));
  absl::StatusOr<std::string> out =
      jinja::RenderChat(src.text, messages, tools, generation_prompt, src.bos, src.eos, vars);
  if (!out.ok()) {
    return absl::Status(out.status().code(), absl::StrCat(QuoteForError(source_path, 256), ": ",
                                                          out.status().message()));
  }
  return out;
}

int TemplateCommand(const Args& args) {
  absl::StatusOr<std::string> out = RenderTemplate(args);
  if (!out.ok()) return Fail(args.command, out.status());
  std::fwrite(out->data(), 1, out->size(), stdout);
  return 0;
}

}  // namespace

EDGEQ_REGISTER_COMMAND(chat_template, "template", kTemplateUsage,
                       "Print the prompt a chat template (a model's, a tokenizer_config.json's or "
                       "a Jinja file) renders for a conversation",
                       TemplateCommand);

}  // namespace tools
}  // namespace edgeq
