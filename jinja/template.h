// A Jinja engine for chat templates: parse once, render with a context of Values.
//
//   EDGEQ_ASSIGN_OR_RETURN(jinja::Template t, jinja::Template::Parse(text));
//   EDGEQ_ASSIGN_OR_RETURN(std::string out, t.Render(jinja::Value::FromJson(context_json)));
//
// The language is the subset real chat templates use, with @huggingface/jinja's whitespace
// handling and printing (see value.h and lexer.h): {{ }}, {% %}, {# #}, `-` markers;
// for (tuple targets, `if` filter, else, loop.index/index0/revindex/revindex0/first/last/length/
// previtem/nextitem, break/continue), if/elif/else, set (names, tuples, `ns.attr`, block set),
// macro and {% call %} (caller, varargs, kwargs), {% filter %}; literals, lists, dicts, tuples,
// attributes, subscripts, slices with negative indexes and steps, + - * / // % **, comparisons,
// and/or/not, in / not in, `is` tests, `~`, `x if c else y`, filters, methods of strings, dicts
// and lists, and the globals namespace(), range(), dict(), raise_exception(), strftime_now().
//
// Where @huggingface/jinja ignores an argument that Python's Jinja2 honours (strip("\n")
// strips only newlines), this engine does as Jinja2 does.
//
// Rendering is bounded by Limits: every error is a Status, never a crash or a hang. A parsed
// Template is immutable: copies share it, and Render may run on several threads at once.
#ifndef EDGEQ_JINJA_TEMPLATE_H_
#define EDGEQ_JINJA_TEMPLATE_H_

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "jinja/value.h"

namespace edgeq {
namespace jinja {

struct Node;

struct Limits {
  size_t max_template_bytes = 1 << 20;
  // Nesting of the template's syntax, and of evaluation (macro recursion included).
  int max_depth = 200;
  // Loop iterations of the whole render (for-loop bodies, range() items, filter passes).
  int64_t max_loop_iterations = 1000000;
  // The rendered text, and every string or list built on the way.
  size_t max_output_bytes = 16 << 20;
};

struct RenderOptions {
  // The clock strftime_now() reads (seconds since the epoch, local time as UTC); by default
  // the system's. Tests set a fixed one.
  std::function<std::time_t()> clock;
  // Print values as Python's Jinja2 does (None, True, 1e-05, [1, 'a']) instead of as
  // @huggingface/jinja does (nothing, true, 0.00001, [1, "a"]): for `{{ }}`, `~`, the string
  // and join filters and str.format.
  bool python_printing = false;
};

class Template {
 public:
  // InvalidArgument "template line N: ..." on a syntax error; ResourceExhausted when the
  // source is larger than limits.max_template_bytes or nests deeper than limits.max_depth.
  static absl::StatusOr<Template> Parse(absl::string_view source, const Limits& limits = {});

  // `context` must be a dict (or undefined: no variables); its entries become the template's
  // variables. InvalidArgument naming the line and what went wrong for a template error;
  // FailedPrecondition carrying the message for raise_exception(msg); ResourceExhausted when a
  // limit is reached.
  absl::StatusOr<std::string> Render(const Value& context, const RenderOptions& options = {}) const;

  const Limits& limits() const { return limits_; }

 private:
  struct Program;
  Template(std::shared_ptr<const Program> program, const Limits& limits)
      : program_(std::move(program)), limits_(limits) {}
  std::shared_ptr<const Program> program_;
  Limits limits_;
};

}  // namespace jinja
}  // namespace edgeq

#endif  // EDGEQ_JINJA_TEMPLATE_H_
