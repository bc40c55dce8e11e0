// `edgeq chat MODEL [--system TEXT] [--template NAME|FILE] [--tools FILE.json] [...]`: a
// conversation on stdin and stdout, in the model's chat template (llm/chat_template.h): the
// model's own Jinja text (or a --template file) run by the Jinja engine, or a named preset.
//
// With --tools, the tool definitions are rendered through the template and each reply is parsed
// for tool calls in the template's format (llm/tool_calls.h); every call is printed on stdout as
// one compact JSON line {"tool_call":{"name":N,"arguments":{...}}} after the reply, and kept in the
// conversation as the assistant message's tool_calls. "/tool TEXT" adds a tool result.
//
// Each user line is added to the conversation, the whole conversation is rendered with
// add_generation_prompt, and only the text beyond what the KV cache already holds (the earlier
// rendering plus the reply as generated) is tokenized and prefilled. If the template rewrites
// an earlier turn (e.g. trims a reply, or Qwen3 drops a <think> block), the rendering no
// longer starts with the cached text: the whole conversation is tokenized, the cache keeps the
// tokens it shares with it from the start (Session::Rewind), and the rest is prefilled.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checkpoint/formats.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "jinja/chat.h"
#include "llm/chat_template.h"
#include "llm/model.h"
#include "llm/open.h"
#include "llm/sampler.h"
#include "llm/session.h"
#include "llm/tool_calls.h"
#include "nlohmann/json.hpp"
#include "runtime/kernels/cpu_features.h"
#include "tools/command.h"
#include "tools/llm_cli.h"
#include "tools/llm_flags.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kChatUsage[] =
    "MODEL [--system TEXT] [--template NAME|FILE] [--tools FILE.json] [-n N] [--temp T] "
    "[--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R] [--repeat-last-n N] "
    "[--presence-penalty P] [--frequency-penalty F] [-s SEED] [-t THREADS] [-c CTX] [-ub N] [-ctk "
    "TYPE] [--isa NAME] "
    "[--ignore-eos] [--verbose-prompt]\n"
    "    [--grammar GBNF | --grammar-file FILE | -j JSON_SCHEMA]\n"
    "Reads one user message per line from stdin and streams each reply to stdout; the prompt\n"
    "marker '> ' and notes go to stderr.\n"
    "  --system TEXT            a system message first in the conversation\n"
    "  --template NAME|FILE     the chat template: a preset name (chatml, qwen2.5, qwen3,\n"
    "                           smollm2, llama3, llama3.1, gemma, phi3, phi3-mini, llama2), or a\n"
    "                           file holding a Jinja template or a tokenizer_config.json\n"
    "                           (default: the model's tokenizer.chat_template, run as Jinja)\n"
    "  --tools FILE.json        tool definitions (a JSON array) rendered through the template;\n"
    "                           each tool call in a reply is printed on stdout as a line\n"
    "                           {\"tool_call\":{\"name\":N,\"arguments\":{...}}}\n"
    "  -n, --n-predict N        tokens per reply at most (default -1: until an end-of-turn token)\n"
    "  -c, --ctx-size N         KV cache positions (default: the model's context, at most 4096)\n"
    "  --ignore-eos             do not stop at end-of-turn tokens\n"
    "  --verbose-prompt         print each turn's prompt tokens (id -> piece) to stderr\n"
    "  --grammar, --grammar-file, -j/--json-schema   each reply is a sentence of the grammar\n"
    "                           (as in `edgeq run`; it ends at end-of-turn once complete)\n"
    "  sampling options, -s, -t, -ub, -ctk, --isa as in `edgeq run` (default temperature 0.8)\n"
    "Lines (at most 1 MiB each): /reset forgets the conversation (keeps --system); /exit or the\n"
    "end of input ends; /tool TEXT adds a tool result (role tool) and lets the model answer;\n"
    "/assistant TEXT adds TEXT as the model's reply (parsed for tool calls) without generating.\n"
    "Ctrl-C stops the current reply (the conversation keeps what was said); at the prompt it\n"
    "exits. Only the new turn is prefilled: the KV cache holds the conversation so far.";

volatile std::sig_atomic_t g_generating = 0;
volatile std::sig_atomic_t g_interrupted = 0;

void OnSigint(int) {
  if (g_generating) {
    g_interrupted = 1;
    return;
  }
  const char nl = '\n';
  (void)!write(STDERR_FILENO, &nl, 1);
  _exit(130);
}

// A piece for --verbose-prompt: control characters escaped so that each token is one line.
std::string Printable(const std::string& piece) {
  std::string out;
  for (char c : piece) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\'') {
      out += "\\'";
    } else {
      out += c;
    }
  }
  return out;
}

// The longest user line chat reads from stdin (an endless stream such as /dev/zero is refused
// after it instead of growing until the allocation fails).
constexpr size_t kMaxChatLineBytes = size_t{1} << 20;

// The next line of `in` without its '\n' into `line`: false at the end of input (no bytes
// left), InvalidArgument once a line exceeds `max_bytes`.
absl::StatusOr<bool> ReadLineBounded(std::istream& in, size_t max_bytes, std::string& line) {
  line.clear();
  bool any = false;
  for (int c = in.get(); c != EOF; c = in.get()) {
    any = true;
    if (c == '\n') return true;
    if (line.size() >= max_bytes) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "a line on stdin is longer than the limit of %d bytes", static_cast<int64_t>(max_bytes)));
    }
    line.push_back(static_cast<char>(c));
  }
  return any;
}

// The --template FLAG's template: a preset name, a tokenizer_config.json or a Jinja file.
absl::StatusOr<llm::ChatTemplate> OpenTemplate(const std::string& flag, const std::string& bos,
                                               const std::string& eos, bool with_tools) {
  for (const std::string& name : llm::ChatTemplate::Names()) {
    if (flag == name) return llm::ChatTemplate::FromName(flag, bos, eos);
  }
  std::string text;
  if (absl::EndsWith(flag, ".json")) {
    EDGEQ_ASSIGN_OR_RETURN(const std::string config_text,
                           ReadFileBounded(flag, kMaxJsonFileBytes, "--template"));
    EDGEQ_RETURN_IF_ERROR(CheckJsonDepth(config_text, kMaxJsonDepth, "--template"));
    const nlohmann::ordered_json config =
        nlohmann::ordered_json::parse(config_text, nullptr, /*allow_exceptions=*/false);
    if (!config.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--template %s: expected a tokenizer_config.json (a JSON object)",
                          QuoteForError(flag, 256)));
    }
    absl::StatusOr<jinja::ChatTemplateSource> src =
        jinja::ChatTemplateFromTokenizerConfig(config, with_tools);
    if (!src.ok()) {
      return absl::Status(src.status().code(), absl::StrCat("--template ", QuoteForError(flag, 256),
                                                            ": ", src.status().message()));
    }
    text = std::move(src->text);
  } else {
    absl::StatusOr<std::string> read = ReadFileBounded(flag, kMaxTemplateBytes, "--template");
    if (absl::IsNotFound(read.status())) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--template %s: neither a template name (%s) nor a readable file",
          QuoteForError(flag, 256), absl::StrJoin(llm::ChatTemplate::Names(), ", ")));
    }
    EDGEQ_RETURN_IF_ERROR(read.status());
    text = *std::move(read);
  }
  absl::StatusOr<llm::ChatTemplate> t = llm::ChatTemplate::FromJinja(text, bos, eos);
  if (!t.ok()) {
    return absl::Status(t.status().code(),
                        absl::StrCat("--template ", flag, ": ", t.status().message()));
  }
  return t;
}

// --tools FILE.json / --tools=FILE.json, taken out of `raw` (the shared chat flags do not know
// it). Empty when absent.
absl::StatusOr<std::string> TakeToolsFlag(std::vector<std::string>& raw) {
  std::string path;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == "--") break;
    size_t n = 0;
    if (raw[i] == "--tools") {
      if (i + 1 >= raw.size()) return absl::InvalidArgumentError("--tools needs a FILE.json");
      path = raw[i + 1];
      n = 2;
    } else if (absl::StartsWith(raw[i], "--tools=")) {
      path = raw[i].substr(8);
      n = 1;
    } else {
      continue;
    }
    raw.erase(raw.begin() + i, raw.begin() + i + n);
    --i;
  }
  return path;
}

absl::StatusOr<nlohmann::ordered_json> ReadTools(const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(const std::string text,
                         ReadFileBounded(path, kMaxJsonFileBytes, "--tools"));
  EDGEQ_RETURN_IF_ERROR(CheckJsonDepth(text, kMaxJsonDepth, "--tools"));
  nlohmann::ordered_json tools =
      nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (tools.is_discarded() || !tools.is_array()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--tools %s: expected a JSON array of tool definitions", QuoteForError(path, 256)));
  }
  return tools;
}

// One chat: the opened model, its template, the sampler and session, and the conversation.
class ChatLoop {
 public:
  // The grammar, the model's file and the template are refused before the model is loaded.
  static absl::StatusOr<std::unique_ptr<ChatLoop>> Open(ChatFlags flags,
                                                        nlohmann::ordered_json tools);
  // Lines from stdin until its end or /exit.
  absl::Status Run();

 private:
  ChatLoop(ChatFlags flags, nlohmann::ordered_json tools)
      : flags_(std::move(flags)), args_(flags_.args), tools_(std::move(tools)) {}
  // The template: the model's own, or --template's.
  absl::Status OpenChatTemplate();
  absl::Status LoadModel(std::shared_ptr<const grammar::Grammar> grammar);
  void PrintHeader() const;
  // The assistant message for a reply: with --tools, its tool calls parsed (and printed, one
  // JSON line each); a reply whose calls do not parse stays text, with a note.
  nlohmann::ordered_json AssistantMessage(const std::string& reply) const;
  // The tokens to prefill for the rendering `full` of the conversation.
  absl::StatusOr<std::vector<int>> TurnTokens(const std::string& full);
  // A user or tool line: rendered, prefilled, answered.
  absl::Status Turn(const std::string& line);
  // Generates the reply to `ids` (the end of `full`) and adds it to the conversation.
  absl::Status Reply(const std::vector<int>& ids, const std::string& full);

  const ChatFlags flags_;
  const LlmArgs& args_;
  const nlohmann::ordered_json tools_;
  llm::OpenedModel opened_;
  std::optional<llm::ChatTemplate> tmpl_;
  llm::ToolCallFormat call_format_ = {};
  std::string bos_text_;
  std::optional<llm::Sampler> sampler_;
  std::unique_ptr<llm::Session> session_;
  llm::GenerateOptions go_;
  int num_threads_ = 1;
  nlohmann::ordered_json base_ = nlohmann::ordered_json::array();  // --system
  nlohmann::ordered_json messages_;
  std::string cached_text_;  // the rendered text the session's tokens stand for
  bool in_sync_ = true;      // ... when this is true
  int turn_ = 0;
};

absl::StatusOr<std::unique_ptr<ChatLoop>> ChatLoop::Open(ChatFlags flags,
                                                         nlohmann::ordered_json tools) {
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<const grammar::Grammar> grammar,
                         LoadGrammar(flags.grammar));
  std::unique_ptr<ChatLoop> c(new ChatLoop(std::move(flags), std::move(tools)));
  llm::OpenOptions oo;
  oo.tokenizer = llm::TokenizerUse::kModelsOwn;
  EDGEQ_ASSIGN_OR_RETURN(c->opened_, llm::OpenFile(c->flags_.model, oo));
  EDGEQ_RETURN_IF_ERROR(c->OpenChatTemplate());
  EDGEQ_RETURN_IF_ERROR(c->LoadModel(std::move(grammar)));
  c->PrintHeader();
  if (c->args_.Has("system")) {
    c->base_.push_back({{"role", "system"}, {"content", c->args_.Get("system")}});
  }
  c->messages_ = c->base_;
  return c;
}

absl::Status ChatLoop::OpenChatTemplate() {
  if (!args_.Has("template")) {  // the model's own
    absl::StatusOr<std::shared_ptr<const llm::ChatTemplate>> own = llm::OpenChatTemplate(opened_);
    if (absl::IsNotFound(own.status())) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s; pass --template NAME (one of %s) or FILE", own.status().message(),
                          absl::StrJoin(llm::ChatTemplate::Names(), ", ")));
    }
    EDGEQ_ASSIGN_OR_RETURN(opened_.chat_template, std::move(own));
  }
  const TextTokenizer& tok = *opened_.tokenizer;
  bos_text_ = tok.bos() >= 0 ? tok.PieceText(tok.bos()) : "";
  const std::string eos_text = tok.eos() >= 0 ? tok.PieceText(tok.eos()) : "";
  if (opened_.chat_template != nullptr) {
    tmpl_.emplace(*opened_.chat_template);
  } else {
    EDGEQ_ASSIGN_OR_RETURN(
        tmpl_, OpenTemplate(args_.Get("template"), bos_text_, eos_text, !tools_.is_null()));
  }
  if (!tools_.is_null() && tmpl_->family() != llm::ChatTemplate::Family::kJinja) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--tools needs a Jinja template (the model's own or --template FILE); the %s preset "
        "renders no tools",
        tmpl_->name()));
  }
  call_format_ = llm::ToolCallFormatForTemplate(tmpl_->jinja_text());
  return absl::OkStatus();
}

absl::Status ChatLoop::LoadModel(std::shared_ptr<const grammar::Grammar> grammar) {
  llm::ModelOptions mo;
  mo.num_threads = flags_.threads > 0 ? flags_.threads : kernels::DefaultThreadCount();
  mo.context_length = static_cast<int>(flags_.ctx);
  mo.kv_cache_type = flags_.cache_type;
  mo.isa_cap = flags_.isa_cap;
  mo.prefill_block = flags_.ubatch;
  num_threads_ = mo.num_threads;
  EDGEQ_RETURN_IF_ERROR(opened_.LoadModel(mo));
  const int vocab = opened_.model->config().vocab_size;
  EDGEQ_ASSIGN_OR_RETURN(sampler_, llm::Sampler::Create(vocab, flags_.sampler));
  EDGEQ_RETURN_IF_ERROR(ConstrainSampler(grammar, *opened_.tokenizer, vocab, &*sampler_));
  go_.max_tokens = static_cast<int>(flags_.n_predict);
  if (!args_.Has("ignore-eos")) go_.stop_tokens = opened_.tokenizer->stop_tokens();
  session_ = std::make_unique<llm::Session>(*opened_.model, *sampler_);
  return absl::OkStatus();
}

void ChatLoop::PrintHeader() const {
  const llm::Model& model = *opened_.model;
  const std::string template_note =
      tmpl_->family() != llm::ChatTemplate::Family::kJinja ? tmpl_->name()
      : args_.Has("template") ? absl::StrCat("jinja (", args_.Get("template"), ")")
                              : "jinja (the model's tokenizer.chat_template)";
  absl::FPrintF(
      stderr,
      "model: %s (%s)\nchat template: %s%s\nsampler: %s\ncontext %d (%s KV cache), %d threads, "
      "ubatch %d\n"
      "/reset forgets the conversation, /exit ends; Ctrl-C stops a reply.\n",
      flags_.model, model.config().ToString(), template_note,
      tools_.is_null() ? ""
                       : absl::StrFormat(", tools: %d, calls parsed as %s", tools_.size(),
                                         llm::ToolCallFormatName(call_format_)),
      sampler_->options().ToString(), model.context_length(),
      llm::KvCacheTypeName(model.kv_cache_type()), num_threads_, model.ubatch_size());
  if (args_.Has("system") && !tmpl_->supports_system()) {
    absl::FPrintF(stderr, "(the %s template has no system role: --system is dropped)\n",
                  tmpl_->name());
  }
}

nlohmann::ordered_json ChatLoop::AssistantMessage(const std::string& reply) const {
  if (tools_.is_null()) return {{"role", "assistant"}, {"content", reply}};
  absl::StatusOr<llm::ParsedReply> parsed = llm::ParseToolCalls(reply, call_format_);
  if (!parsed.ok()) {
    absl::FPrintF(stderr, "(the reply is kept as text: %s)\n", parsed.status().message());
    return {{"role", "assistant"}, {"content", reply}};
  }
  if (parsed->calls.empty()) return {{"role", "assistant"}, {"content", reply}};
  for (const llm::ToolCall& c : parsed->calls) {
    nlohmann::ordered_json line = {
        {"tool_call",
         {{"name", c.name},
          {"arguments", nlohmann::ordered_json::parse(c.arguments, nullptr, false)}}}};
    absl::FPrintF(stdout, "%s\n",
                  line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  }
  std::fflush(stdout);
  return llm::AssistantMessage(*parsed, call_format_);
}

absl::StatusOr<std::vector<int>> ChatLoop::TurnTokens(const std::string& full) {
  const TextTokenizer& tok = *opened_.tokenizer;
  llm::Session& session = *session_;
  if (in_sync_ && session.n_past() > 0 && absl::StartsWith(full, cached_text_)) {
    // The usual case: the new turn's text follows what the cache holds.
    return tok.Encode(full.substr(cached_text_.size()), /*add_bos=*/false,
                      /*parse_special=*/true);
  }
  // A new conversation, or a template that rewrites earlier turns: the whole conversation's
  // tokens, of which the cache keeps the common prefix.
  const bool add_bos = tok.add_bos() && !(!bos_text_.empty() && absl::StartsWith(full, bos_text_));
  EDGEQ_ASSIGN_OR_RETURN(std::vector<int> ids, tok.Encode(full, add_bos, /*parse_special=*/true));
  const std::vector<int>& held = session.tokens();
  size_t keep = 0;
  while (keep < held.size() && keep < ids.size() && held[keep] == ids[keep]) ++keep;
  if (keep == ids.size() && keep > 0) --keep;  // prefill at least one token
  if (session.n_past() > 0) {
    absl::FPrintF(stderr, "(the template rewrites an earlier turn: %d of %d cached tokens kept)\n",
                  keep, session.n_past());
  }
  EDGEQ_RETURN_IF_ERROR(session.Rewind(static_cast<int>(keep)));
  ids.erase(ids.begin(), ids.begin() + keep);
  in_sync_ = false;  // until a reply completes the turn
  return ids;
}

absl::Status ChatLoop::Turn(const std::string& line) {
  if (absl::StartsWith(line, "/tool ")) {
    messages_.push_back({{"role", "tool"}, {"content", line.substr(6)}});
  } else {
    messages_.push_back({{"role", "user"}, {"content", line}});
  }
  absl::StatusOr<std::string> full =
      tmpl_->RenderJson(messages_, tools_, /*add_generation_prompt=*/true);
  if (!full.ok()) {
    messages_.erase(messages_.size() - 1);
    absl::FPrintF(stderr, "error: %s\n", full.status().message());
    return absl::OkStatus();
  }
  EDGEQ_ASSIGN_OR_RETURN(const std::vector<int> ids, TurnTokens(*full));
  ++turn_;
  if (args_.Has("verbose-prompt")) {
    absl::FPrintF(stderr, "prompt (turn %d): %d new tokens after %d cached\n", turn_, ids.size(),
                  session_->n_past());
    for (int id : ids) {
      absl::FPrintF(stderr, "%6d -> '%s'\n", id, Printable(opened_.tokenizer->PieceText(id)));
    }
  }
  const int n_ctx = opened_.model->context_length();
  const int left = n_ctx - session_->n_past();
  if (ids.empty() || static_cast<int>(ids.size()) >= left) {
    absl::FPrintF(stderr,
                  "context full: this turn needs %d tokens and a reply, %d of %d positions are "
                  "left; /reset starts a new conversation\n",
                  ids.size(), left, n_ctx);
    messages_.erase(messages_.size() - 1);
    return absl::OkStatus();
  }
  return Reply(ids, *full);
}

absl::Status ChatLoop::Reply(const std::vector<int>& ids, const std::string& full) {
  const TextTokenizer& tok = *opened_.tokenizer;
  std::string reply;
  int prev = ids.back();
  g_interrupted = 0;
  g_generating = 1;
  sampler_->RestartGrammar();  // each reply from the grammar's start
  absl::StatusOr<llm::GenerateResult> r = session_->Generate(ids, go_, [&](int token) {
    const std::string piece = tok.Decode(prev, token);
    prev = token;
    // The conversation keeps control tokens as their text, so that the next rendering
    // tokenizes back to what the cache holds; stdout does not show them.
    reply += tok.PieceText(token);
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
    return g_interrupted == 0;
  });
  g_generating = 0;
  if (!r.ok()) return r.status();
  absl::FPrintF(stdout, "\n");
  std::fflush(stdout);
  cached_text_ = absl::StrCat(full, reply);
  // At the end of the context the last token was not fed: the cache is short of the text.
  in_sync_ = r->reason != llm::StopReason::kContextFull;
  messages_.push_back(AssistantMessage(reply));
  // Tokens of the reply that went into the cache (a stop token does not).
  const int fed =
      static_cast<int>(r->tokens.size()) -
      (r->reason == llm::StopReason::kStopToken || r->reason == llm::StopReason::kContextFull ? 1
                                                                                              : 0);
  const int n_ctx = opened_.model->context_length();
  if (r->reason == llm::StopReason::kCallback) {
    absl::FPrintF(stderr, "[interrupted]\n");
  } else if (r->reason == llm::StopReason::kContextFull) {
    absl::FPrintF(stderr, "[context full: %d positions used; /reset starts a new conversation]\n",
                  n_ctx);
  } else if (r->reason == llm::StopReason::kMaxTokens) {
    absl::FPrintF(stderr, "[reply cut at -n %d tokens]\n", flags_.n_predict);
  }
  if (args_.Has("verbose-prompt")) {
    absl::FPrintF(stderr,
                  "reply (turn %d): %d tokens (%d cached), stop: %s; prefill %.1f ms (%.2f "
                  "tokens/s), decode %.2f tokens/s; context %d of %d\n",
                  turn_, r->tokens.size(), fed, llm::StopReasonName(r->reason),
                  r->prefill_seconds * 1e3, ids.size() / std::max(r->prefill_seconds, 1e-9),
                  r->tokens.size() / std::max(r->decode_seconds, 1e-9), session_->n_past(), n_ctx);
  }
  return absl::OkStatus();
}

absl::Status ChatLoop::Run() {
  struct sigaction sa = {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);

  std::string line;
  while (true) {
    absl::FPrintF(stderr, "> ");
    EDGEQ_ASSIGN_OR_RETURN(const bool got_line, ReadLineBounded(std::cin, kMaxChatLineBytes, line));
    if (!got_line) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "/exit") break;
    if (line == "/reset") {
      session_->Reset();
      messages_ = base_;
      cached_text_.clear();
      in_sync_ = true;
      absl::FPrintF(stderr, "(conversation reset)\n");
      continue;
    }
    if (line.empty()) continue;
    if (absl::StartsWith(line, "/assistant ")) {
      // A reply given instead of generated: the next turn re-renders the conversation.
      messages_.push_back(AssistantMessage(line.substr(11)));
      in_sync_ = false;
      continue;
    }
    EDGEQ_RETURN_IF_ERROR(Turn(line));
  }
  absl::FPrintF(stderr, "\n");
  return absl::OkStatus();
}

absl::Status Chat(const Args& raw_args) {
  std::vector<std::string> raw = raw_args.raw;
  EDGEQ_ASSIGN_OR_RETURN(const std::string tools_path, TakeToolsFlag(raw));
  EDGEQ_ASSIGN_OR_RETURN(ChatFlags flags, ParseChatFlags(raw));
  nlohmann::ordered_json tools = nullptr;
  if (!tools_path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(tools, ReadTools(tools_path));
  }
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<ChatLoop> chat,
                         ChatLoop::Open(std::move(flags), std::move(tools)));
  return chat->Run();
}

int ChatCommand(const Args& args) {
  absl::Status s = Chat(args);
  return s.ok() ? 0 : LlmFail(args.command, s);
}

}  // namespace

EDGEQ_REGISTER_COMMAND(chat, "chat", kChatUsage,
                       "Chat with an instruction-tuned model in its chat template (REPL on "
                       "stdin/stdout, KV cache kept across turns)",
                       ChatCommand);

}  // namespace tools
}  // namespace edgeq
