// libFuzzer entry point for the Jinja engine: the input is a template, optionally followed by a
// NUL byte and a JSON context. Parse and Render must return a Status for anything, within the
// limits (no crash, no hang, bounded memory). Built with clang -fsanitize=fuzzer by hand, and
// replayed over fuzz_corpus/ by //jinja:jinja_fuzzer_replay_test.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "core/bounded_input.h"
#include "jinja/chat.h"
#include "jinja/template.h"
#include "nlohmann/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const absl::string_view text = input.substr(0, nul);
  edgeq::jinja::Limits limits;
  limits.max_template_bytes = 64 << 10;
  limits.max_depth = 64;
  limits.max_loop_iterations = 20000;
  limits.max_output_bytes = 1 << 20;
  absl::StatusOr<edgeq::jinja::Template> t = edgeq::jinja::Template::Parse(text, limits);
  if (!t.ok()) return 0;
  nlohmann::ordered_json context = {
      {"messages",
       {{{"role", "system"}, {"content", "sys"}},
        {{"role", "user"}, {"content", " hi \n"}},
        {{"role", "assistant"},
         {"content", ""},
         {"tool_calls", {{{"function", {{"name", "f"}, {"arguments", {{"x", 1}}}}}}}}}}},
      {"tools", {{{"type", "function"}, {"function", {{"name", "f"}}}}}},
      {"add_generation_prompt", true},
      {"bos_token", "<s>"}};
  if (nul != absl::string_view::npos &&
      edgeq::CheckJsonDepth(input.substr(nul + 1), 32, "fuzz context").ok()) {
    const nlohmann::ordered_json extra =
        nlohmann::ordered_json::parse(input.substr(nul + 1), nullptr, false);
    if (extra.is_object()) {
      for (auto it = extra.begin(); it != extra.end(); ++it) context[it.key()] = it.value();
    }
  }
  edgeq::jinja::RenderOptions options;
  options.clock = [] { return static_cast<std::time_t>(0); };
  (void)t->Render(edgeq::jinja::Value::FromJson(context), options);
  options.python_printing = true;
  (void)t->Render(edgeq::jinja::Value::FromJson(context), options);
  // The same through RenderChat (tools defined, generation prompt off).
  (void)edgeq::jinja::RenderChat(text, context["messages"], context["tools"], false,
                                 std::string("<s>"), std::nullopt, nullptr, limits, options);
  return 0;
}
