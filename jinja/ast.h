// The syntax tree of a template: statements (text, output, set, if, for, macro, call, filter
// blocks, break/continue) and expressions. One Node type; which fields a kind uses is listed
// beside it.
#ifndef EDGEQ_JINJA_AST_H_
#define EDGEQ_JINJA_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "jinja/lexer.h"

namespace edgeq {
namespace jinja {

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct Node {
  enum class Kind {
    // Expressions.
    kString,         // text
    kInt,            // i
    kFloat,          // d
    kList,           // items
    kTuple,          // items
    kDict,           // items: key, value, key, value, ...
    kName,           // text
    kMember,         // a.b / a[b]: a = object, b = property; computed: [b]
    kSlice,          // a, b, c: start, stop, step (each may be null)
    kCall,           // a = callee, items = arguments (kKeyword / kSpread / kKeywordSpread or any)
    kKeyword,        // text = name, a = value (in calls: name=value; in parameters: a default)
    kSpread,         // *a
    kKeywordSpread,  // **a
    kUnary,          // text = "not" / "-" / "+", a
    kBinary,         // text = operator, a, b
    kFilter,         // a = operand, text = filter name, items = arguments, has_args
    kTest,           // a = operand, text = test name, negate, items = arguments
    kTernary,        // a = condition, b = if true, c = if false
    kSelect,         // `a if b` without else: a, b
    // Statements.
    kText,         // text (template text written as is)
    kOutput,       // {{ a }}
    kSet,          // a = target, b = value, or body when b is null
    kIf,           // a = test, body, orelse
    kFor,          // a = target, b = iterable, c = filter (for x in y if c), body, orelse
    kMacro,        // text = name, items = parameters (kName or kKeyword), body
    kCallBlock,    // a = the kCall, items = caller parameters, body
    kFilterBlock,  // a = kFilter node whose operand is null, body
    kBreak,
    kContinue,
  };

  explicit Node(Kind k, int l) : kind(k), line(l) {}

  Kind kind;
  int line;
  std::string text;
  int64_t i = 0;
  double d = 0;
  bool computed = false;
  bool negate = false;
  bool has_args = false;
  NodePtr a, b, c;
  std::vector<NodePtr> items;
  std::vector<NodePtr> body;
  std::vector<NodePtr> orelse;
};

// Tokens -> statements. InvalidArgument "template line N: ..." on a syntax error, or when
// expressions or blocks nest deeper than `max_depth`.
absl::StatusOr<std::vector<NodePtr>> ParseTokens(const std::vector<Token>& tokens, int max_depth);

}  // namespace jinja
}  // namespace edgeq

#endif  // EDGEQ_JINJA_AST_H_
