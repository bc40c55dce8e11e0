// libFuzzer target: chat templates. The input is a template part and a messages part joined by
// kPartSeparator. The first byte picks where the template comes from: even, the template part
// is the text itself (ChatTemplate::Detect); odd, it is a tokenizer_config.json
// (TextFromTokenizerConfig, then Detect). Each line of the messages part is one message: its
// first byte picks the role (system, user, assistant, or the rest of the line as a role), the
// rest is the content. A recognized template renders them with and without the generation
// prompt; Render may refuse (roles that do not alternate), never crash.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "llm/chat_template.h"
#include "tests/fuzz/fuzz_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using edgeq::llm::ChatMessage;
  using edgeq::llm::ChatTemplate;
  namespace fuzz = edgeq::fuzz;
  if (size == 0) return 0;
  const bool from_config = data[0] & 1;
  const std::vector<std::string> parts =
      fuzz::SplitParts(absl::string_view(reinterpret_cast<const char*>(data + 1), size - 1), 2);
  std::string text = parts[0];
  if (from_config) {
    absl::StatusOr<std::string> t =
        ChatTemplate::TextFromTokenizerConfig(fuzz::PutFile("tokenizer_config.json", parts[0]));
    if (!t.ok()) {
      fuzz::Report(t.status());
      if (t.status().message().size() > 8192) std::abort();
      return 0;
    }
    text = *std::move(t);
  }
  absl::StatusOr<ChatTemplate> tmpl = ChatTemplate::Detect(text, "<s>", "</s>");
  fuzz::Report(tmpl.status());
  if (!tmpl.ok()) {
    if (tmpl.status().message().size() > 8192) std::abort();
    return 0;
  }
  std::vector<ChatMessage> messages;
  for (absl::string_view line : absl::StrSplit(parts[1], '\n')) {
    if (line.empty() || messages.size() >= 64) continue;
    static const char* const kRoles[] = {"system", "user", "assistant"};
    const unsigned r = static_cast<unsigned char>(line[0]) % 4;
    ChatMessage m;
    m.role = r < 3 ? kRoles[r] : std::string(line.substr(1));
    m.content = std::string(line.substr(1));
    messages.push_back(std::move(m));
  }
  for (bool add_generation_prompt : {false, true}) {
    absl::StatusOr<std::string> prompt = tmpl->Render(messages, add_generation_prompt);
    if (prompt.ok() && prompt->size() > 4 * size + 16384) std::abort();  // no blow-up
  }
  return 0;
}
