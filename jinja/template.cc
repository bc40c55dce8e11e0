#include "jinja/template.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "jinja/ast.h"
#include "jinja/interpreter.h"
#include "jinja/lexer.h"

namespace edgeq {
namespace jinja {

struct Template::Program {
  std::vector<NodePtr> body;
};

absl::StatusOr<Template> Template::Parse(absl::string_view source, const Limits& limits) {
  if (source.size() > limits.max_template_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("template of ", source.size(), " bytes is larger than ",
                     limits.max_template_bytes, " (Limits::max_template_bytes)"));
  }
  EDGEQ_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(source));
  absl::StatusOr<std::vector<NodePtr>> body = ParseTokens(tokens, limits.max_depth);
  if (!body.ok()) {
    if (absl::StrContains(body.status().message(), "nests deeper")) {
      return absl::ResourceExhaustedError(body.status().message());
    }
    return body.status();
  }
  auto program = std::make_shared<Program>();
  program->body = *std::move(body);
  return Template(std::move(program), limits);
}

absl::StatusOr<std::string> Template::Render(const Value& context,
                                             const RenderOptions& options) const {
  if (!context.IsUndefined() && !context.IsDict()) {
    return absl::InvalidArgumentError(
        absl::StrCat("template context must be a dict of variables, got a ", context.TypeName()));
  }
  auto globals = std::make_shared<Env>(nullptr);
  AddGlobals(globals.get());
  auto env = std::make_shared<Env>(globals);
  if (context.IsDict()) {
    for (const auto& kv : context.object().entries()) env->Set(kv.first, kv.second);
  }
  Interpreter interpreter(limits_, options);
  std::string out;
  absl::Status s = interpreter.Exec(program_->body, env, &out);
  if (!s.ok()) {
    // Errors raised by builtins carry no position: add the line being evaluated.
    if (s.code() == absl::StatusCode::kInvalidArgument &&
        !absl::StartsWith(s.message(), "template line") && interpreter.current_node() != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("template line ", interpreter.current_node()->line, ": ", s.message()));
    }
    return s;
  }
  return out;
}

}  // namespace jinja
}  // namespace edgeq
