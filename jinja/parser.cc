// Recursive-descent parser, with the precedence @huggingface/jinja uses (lowest first):
// ternary `x if c else y`, or, and, not, comparisons and `in`, + - ~, * / // %, **, `is` tests,
// filters, unary sign, calls/members/subscripts, primaries.
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "jinja/ast.h"

namespace edgeq {
namespace jinja {
namespace {

using K = Node::Kind;

const char* TypeText(TokenType t) {
  switch (t) {
    case TokenType::kText:
      return "text";
    case TokenType::kNumber:
      return "a number";
    case TokenType::kString:
      return "a string";
    case TokenType::kIdentifier:
      return "a name";
    case TokenType::kEquals:
      return "'='";
    case TokenType::kOpenParen:
      return "'('";
    case TokenType::kCloseParen:
      return "')'";
    case TokenType::kOpenStatement:
      return "'{%'";
    case TokenType::kCloseStatement:
      return "'%}'";
    case TokenType::kOpenExpression:
      return "'{{'";
    case TokenType::kCloseExpression:
      return "'}}'";
    case TokenType::kOpenBracket:
      return "'['";
    case TokenType::kCloseBracket:
      return "']'";
    case TokenType::kOpenBrace:
      return "'{'";
    case TokenType::kCloseBrace:
      return "'}'";
    case TokenType::kComma:
      return "','";
    case TokenType::kDot:
      return "'.'";
    case TokenType::kColon:
      return "':'";
    case TokenType::kPipe:
      return "'|'";
    case TokenType::kAdditive:
      return "an operator";
    case TokenType::kMultiplicative:
      return "an operator";
    case TokenType::kPower:
      return "'**'";
    case TokenType::kComparison:
      return "a comparison";
    case TokenType::kUnary:
      return "a sign";
    case TokenType::kComment:
      return "a comment";
  }
  return "?";
}

class Parser {
 public:
  Parser(const std::vector<Token>& tokens, int max_depth) : t_(tokens), max_depth_(max_depth) {}

  absl::StatusOr<std::vector<NodePtr>> Program() {
    std::vector<NodePtr> out;
    while (p_ < t_.size()) {
      EDGEQ_ASSIGN_OR_RETURN(NodePtr n, Any());
      if (n) out.push_back(std::move(n));
    }
    return out;
  }

 private:
  struct DepthGuard {
    explicit DepthGuard(Parser* p) : p(p) { ++p->depth_; }
    ~DepthGuard() { --p->depth_; }
    Parser* p;
  };

  int Line() const { return p_ < t_.size() ? t_[p_].line : (t_.empty() ? 1 : t_.back().line); }
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("template line ", Line(), ": ", what));
  }
  absl::Status Expected(absl::string_view what) const {
    if (p_ >= t_.size()) return Error(absl::StrCat("expected ", what, ", the template ended"));
    const Token& tok = t_[p_];
    std::string got = TypeText(tok.type);
    if (tok.type == TokenType::kIdentifier || tok.type == TokenType::kAdditive ||
        tok.type == TokenType::kMultiplicative || tok.type == TokenType::kComparison) {
      got = absl::StrCat("'", tok.value, "'");
    }
    return Error(absl::StrCat("expected ", what, ", got ", got));
  }
  absl::Status CheckDepth() const {
    if (depth_ > max_depth_) {
      return Error(absl::StrCat("the template nests deeper than ", max_depth_, " levels"));
    }
    return absl::OkStatus();
  }
  bool Is(TokenType type, size_t ahead = 0) const {
    return p_ + ahead < t_.size() && t_[p_ + ahead].type == type;
  }
  bool IsName(absl::string_view name, size_t ahead = 0) const {
    return Is(TokenType::kIdentifier, ahead) && t_[p_ + ahead].value == name;
  }
  bool IsStatement(std::initializer_list<absl::string_view> names) const {
    if (!Is(TokenType::kOpenStatement) || !Is(TokenType::kIdentifier, 1)) return false;
    for (absl::string_view n : names) {
      if (t_[p_ + 1].value == n) return true;
    }
    return false;
  }
  absl::Status Expect(TokenType type, absl::string_view what) {
    if (!Is(type)) return Expected(what);
    ++p_;
    return absl::OkStatus();
  }
  absl::Status ExpectEnd(absl::string_view name) {
    if (!IsStatement({name})) return Expected(absl::StrCat("{% ", name, " %}"));
    p_ += 2;
    return Expect(TokenType::kCloseStatement, "'%}'");
  }
  NodePtr Make(K kind) const { return std::make_unique<Node>(kind, Line()); }

  absl::StatusOr<NodePtr> Any();
  absl::StatusOr<NodePtr> Statement();
  absl::Status Block(std::vector<NodePtr>* out, std::initializer_list<absl::string_view> ends);
  absl::StatusOr<NodePtr> Set();
  absl::StatusOr<NodePtr> If();
  absl::StatusOr<NodePtr> For();
  absl::StatusOr<NodePtr> Macro();
  absl::StatusOr<NodePtr> CallBlock();
  absl::StatusOr<NodePtr> FilterBlock();
  absl::StatusOr<NodePtr> Sequence(bool primary);
  absl::StatusOr<NodePtr> Expression();
  absl::StatusOr<NodePtr> Or();
  absl::StatusOr<NodePtr> And();
  absl::StatusOr<NodePtr> Not();
  absl::StatusOr<NodePtr> Comparison();
  absl::StatusOr<NodePtr> Additive();
  absl::StatusOr<NodePtr> Multiplicative();
  absl::StatusOr<NodePtr> Power();
  absl::StatusOr<NodePtr> Test();
  absl::StatusOr<NodePtr> Filter();
  absl::StatusOr<NodePtr> Sign();
  absl::StatusOr<NodePtr> Postfix(NodePtr n);
  absl::StatusOr<NodePtr> Primary();
  absl::Status Arguments(std::vector<NodePtr>* out, bool parameters);
  absl::StatusOr<NodePtr> Subscript();
  absl::StatusOr<NodePtr> BinaryLoop(absl::StatusOr<NodePtr> (Parser::*next)(), TokenType type);

  const std::vector<Token>& t_;
  size_t p_ = 0;
  int depth_ = 0;
  int max_depth_;
};

absl::StatusOr<NodePtr> Parser::Any() {
  DepthGuard guard(this);
  EDGEQ_RETURN_IF_ERROR(CheckDepth());
  const Token& tok = t_[p_];
  switch (tok.type) {
    case TokenType::kComment:
      ++p_;
      return NodePtr();
    case TokenType::kText: {
      NodePtr n = Make(K::kText);
      n->text = tok.value;
      ++p_;
      return n;
    }
    case TokenType::kOpenStatement:
      return Statement();
    case TokenType::kOpenExpression: {
      NodePtr n = Make(K::kOutput);
      ++p_;
      EDGEQ_ASSIGN_OR_RETURN(n->a, Expression());
      EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseExpression, "'}}'"));
      return n;
    }
    default:
      return Expected("text, '{{' or '{%'");
  }
}

absl::Status Parser::Block(std::vector<NodePtr>* out,
                           std::initializer_list<absl::string_view> ends) {
  while (!IsStatement(ends)) {
    if (p_ >= t_.size()) {
      std::string names;
      for (absl::string_view e : ends) absl::StrAppend(&names, names.empty() ? "" : " or ", e);
      return Error(absl::StrCat("the template ended before {% ", names, " %}"));
    }
    EDGEQ_ASSIGN_OR_RETURN(NodePtr n, Any());
    if (n) out->push_back(std::move(n));
  }
  return absl::OkStatus();
}

absl::StatusOr<NodePtr> Parser::Statement() {
  ++p_;  // {%
  if (!Is(TokenType::kIdentifier)) return Expected("a statement name");
  const std::string name = t_[p_].value;
  ++p_;
  if (name == "set") return Set();
  if (name == "if") {
    EDGEQ_ASSIGN_OR_RETURN(NodePtr n, If());
    EDGEQ_RETURN_IF_ERROR(ExpectEnd("endif"));
    return n;
  }
  if (name == "for") return For();
  if (name == "macro") return Macro();
  if (name == "call") return CallBlock();
  if (name == "filter") return FilterBlock();
  if (name == "break" || name == "continue") {
    NodePtr n = Make(name == "break" ? K::kBreak : K::kContinue);
    EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'%}'"));
    return n;
  }
  --p_;
  return Error(absl::StrCat("unknown statement '", name, "'"));
}

absl::StatusOr<NodePtr> Parser::Set() {
  NodePtr n = Make(K::kSet);
  EDGEQ_ASSIGN_OR_RETURN(n->a, Sequence(false));
  if (Is(TokenType::kEquals)) {
    ++p_;
    EDGEQ_ASSIGN_OR_RETURN(n->b, Sequence(false));
    EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'%}'"));
    return n;
  }
  EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'=' or '%}'"));
  EDGEQ_RETURN_IF_ERROR(Block(&n->body, {"endset"}));
  EDGEQ_RETURN_IF_ERROR(ExpectEnd("endset"));
  return n;
}

absl::StatusOr<NodePtr> Parser::If() {
  DepthGuard guard(this);
  EDGEQ_RETURN_IF_ERROR(CheckDepth());
  NodePtr n = Make(K::kIf);
  EDGEQ_ASSIGN_OR_RETURN(n->a, Expression());
  EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'%}'"));
  EDGEQ_RETURN_IF_ERROR(Block(&n->body, {"elif", "else", "endif"}));
  if (IsStatement({"elif"})) {
    p_ += 2;
    EDGEQ_ASSIGN_OR_RETURN(NodePtr alt, If());
    n->orelse.push_back(std::move(alt));
  } else if (IsStatement({"else"})) {
    p_ += 2;
    EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'%}'"));
    EDGEQ_RETURN_IF_ERROR(Block(&n->orelse, {"endif"}));
  }
  return n;
}

absl::StatusOr<NodePtr> Parser::For() {
  NodePtr n = Make(K::kFor);
  EDGEQ_ASSIGN_OR_RETURN(n->a, Sequence(true));
  if (n->a->kind != K::kName && n->a->kind != K::kTuple) {
    return Error("the loop variable must be a name or names separated by commas");
  }
  if (!IsName("in")) return Expected("'in'");
  ++p_;
  EDGEQ_ASSIGN_OR_RETURN(NodePtr iterable, Expression());
  if (iterable->kind == K::kSelect) {
    n->b = std::move(iterable->a);
    n->c = std::move(iterable->b);
  } else {
    n->b = std::move(iterable);
  }
  EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'%}'"));
  EDGEQ_RETURN_IF_ERROR(Block(&n->body, {"endfor", "else"}));
  if (IsStatement({"else"})) {
    p_ += 2;
    EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'%}'"));
    EDGEQ_RETURN_IF_ERROR(Block(&n->orelse, {"endfor"}));
  }
  EDGEQ_RETURN_IF_ERROR(ExpectEnd("endfor"));
  return n;
}

absl::StatusOr<NodePtr> Parser::Macro() {
  NodePtr n = Make(K::kMacro);
  if (!Is(TokenType::kIdentifier)) return Expected("the macro's name");
  n->text = t_[p_++].value;
  EDGEQ_RETURN_IF_ERROR(Arguments(&n->items, true));
  EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'%}'"));
  EDGEQ_RETURN_IF_ERROR(Block(&n->body, {"endmacro"}));
  EDGEQ_RETURN_IF_ERROR(ExpectEnd("endmacro"));
  return n;
}

absl::StatusOr<NodePtr> Parser::CallBlock() {
  NodePtr n = Make(K::kCallBlock);
  if (Is(TokenType::kOpenParen)) EDGEQ_RETURN_IF_ERROR(Arguments(&n->items, true));
  if (!Is(TokenType::kIdentifier)) return Expected("the name of the macro to call");
  NodePtr call = Make(K::kCall);
  call->a = Make(K::kName);
  call->a->text = t_[p_++].value;
  EDGEQ_RETURN_IF_ERROR(Arguments(&call->items, false));
  n->a = std::move(call);
  EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'%}'"));
  EDGEQ_RETURN_IF_ERROR(Block(&n->body, {"endcall"}));
  EDGEQ_RETURN_IF_ERROR(ExpectEnd("endcall"));
  return n;
}

absl::StatusOr<NodePtr> Parser::FilterBlock() {
  NodePtr n = Make(K::kFilterBlock);
  if (!Is(TokenType::kIdentifier)) return Expected("a filter name");
  NodePtr f = Make(K::kFilter);
  f->text = t_[p_++].value;
  if (Is(TokenType::kOpenParen)) {
    f->has_args = true;
    EDGEQ_RETURN_IF_ERROR(Arguments(&f->items, false));
  }
  n->a = std::move(f);
  EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "'%}'"));
  EDGEQ_RETURN_IF_ERROR(Block(&n->body, {"endfilter"}));
  EDGEQ_RETURN_IF_ERROR(ExpectEnd("endfilter"));
  return n;
}

absl::StatusOr<NodePtr> Parser::Sequence(bool primary) {
  DepthGuard guard(this);
  EDGEQ_RETURN_IF_ERROR(CheckDepth());
  EDGEQ_ASSIGN_OR_RETURN(NodePtr first, primary ? Primary() : Expression());
  if (!Is(TokenType::kComma)) return first;
  NodePtr tuple = Make(K::kTuple);
  tuple->items.push_back(std::move(first));
  while (Is(TokenType::kComma)) {
    ++p_;
    if (Is(TokenType::kCloseParen)) break;  // (x,) is a one-item tuple
    EDGEQ_ASSIGN_OR_RETURN(NodePtr next, primary ? Primary() : Expression());
    tuple->items.push_back(std::move(next));
  }
  return tuple;
}

absl::StatusOr<NodePtr> Parser::Expression() {
  DepthGuard guard(this);
  EDGEQ_RETURN_IF_ERROR(CheckDepth());
  EDGEQ_ASSIGN_OR_RETURN(NodePtr a, Or());
  if (!IsName("if")) return a;
  ++p_;
  EDGEQ_ASSIGN_OR_RETURN(NodePtr test, Or());
  if (IsName("else")) {
    ++p_;
    NodePtr n = Make(K::kTernary);
    n->a = std::move(test);
    n->b = std::move(a);
    EDGEQ_ASSIGN_OR_RETURN(n->c, Expression());
    return n;
  }
  NodePtr n = Make(K::kSelect);
  n->a = std::move(a);
  n->b = std::move(test);
  return n;
}

absl::StatusOr<NodePtr> Parser::Or() {
  EDGEQ_ASSIGN_OR_RETURN(NodePtr left, And());
  while (IsName("or")) {
    NodePtr n = Make(K::kBinary);
    n->text = t_[p_++].value;
    n->a = std::move(left);
    EDGEQ_ASSIGN_OR_RETURN(n->b, And());
    left = std::move(n);
  }
  return left;
}

absl::StatusOr<NodePtr> Parser::And() {
  EDGEQ_ASSIGN_OR_RETURN(NodePtr left, Not());
  while (IsName("and")) {
    NodePtr n = Make(K::kBinary);
    n->text = t_[p_++].value;
    n->a = std::move(left);
    EDGEQ_ASSIGN_OR_RETURN(n->b, Not());
    left = std::move(n);
  }
  return left;
}

absl::StatusOr<NodePtr> Parser::Not() {
  DepthGuard guard(this);
  EDGEQ_RETURN_IF_ERROR(CheckDepth());
  if (!IsName("not")) return Comparison();
  NodePtr n = Make(K::kUnary);
  n->text = "not";
  ++p_;
  EDGEQ_ASSIGN_OR_RETURN(n->a, Not());
  return n;
}

absl::StatusOr<NodePtr> Parser::Comparison() {
  EDGEQ_ASSIGN_OR_RETURN(NodePtr left, Additive());
  while (true) {
    std::string op;
    if (IsName("not") && IsName("in", 1)) {
      op = "not in";
      p_ += 2;
    } else if (IsName("in") || Is(TokenType::kComparison)) {
      op = t_[p_++].value;
    } else {
      break;
    }
    NodePtr n = Make(K::kBinary);
    n->text = op;
    n->a = std::move(left);
    EDGEQ_ASSIGN_OR_RETURN(n->b, Additive());
    left = std::move(n);
  }
  return left;
}

absl::StatusOr<NodePtr> Parser::BinaryLoop(absl::StatusOr<NodePtr> (Parser::*next)(),
                                           TokenType type) {
  EDGEQ_ASSIGN_OR_RETURN(NodePtr left, (this->*next)());
  while (Is(type)) {
    NodePtr n = Make(K::kBinary);
    n->text = t_[p_++].value;
    n->a = std::move(left);
    EDGEQ_ASSIGN_OR_RETURN(n->b, (this->*next)());
    left = std::move(n);
  }
  return left;
}

absl::StatusOr<NodePtr> Parser::Additive() {
  return BinaryLoop(&Parser::Multiplicative, TokenType::kAdditive);
}
absl::StatusOr<NodePtr> Parser::Multiplicative() {
  return BinaryLoop(&Parser::Power, TokenType::kMultiplicative);
}
absl::StatusOr<NodePtr> Parser::Power() { return BinaryLoop(&Parser::Test, TokenType::kPower); }

absl::StatusOr<NodePtr> Parser::Test() {
  EDGEQ_ASSIGN_OR_RETURN(NodePtr operand, Filter());
  while (IsName("is")) {
    ++p_;
    NodePtr n = Make(K::kTest);
    if (IsName("not")) {
      n->negate = true;
      ++p_;
    }
    if (!Is(TokenType::kIdentifier)) return Expected("a test name after 'is'");
    n->text = t_[p_++].value;
    if (Is(TokenType::kOpenParen)) {
      EDGEQ_RETURN_IF_ERROR(Arguments(&n->items, false));
    } else if (Is(TokenType::kNumber) || Is(TokenType::kString) ||
               (Is(TokenType::kIdentifier) && !IsName("and") && !IsName("or") && !IsName("if") &&
                !IsName("else") && !IsName("is") && !IsName("in") && !IsName("not"))) {
      // Jinja's one-argument form: `x is divisibleby 3`, `x is sameas y`.
      EDGEQ_ASSIGN_OR_RETURN(NodePtr arg, Postfix(nullptr));
      n->items.push_back(std::move(arg));
    }
    n->a = std::move(operand);
    operand = std::move(n);
  }
  return operand;
}

absl::StatusOr<NodePtr> Parser::Filter() {
  EDGEQ_ASSIGN_OR_RETURN(NodePtr operand, Sign());
  while (Is(TokenType::kPipe)) {
    ++p_;
    if (!Is(TokenType::kIdentifier)) return Expected("a filter name after '|'");
    NodePtr n = Make(K::kFilter);
    n->text = t_[p_++].value;
    if (Is(TokenType::kOpenParen)) {
      n->has_args = true;
      EDGEQ_RETURN_IF_ERROR(Arguments(&n->items, false));
    }
    n->a = std::move(operand);
    operand = std::move(n);
  }
  return operand;
}

absl::StatusOr<NodePtr> Parser::Sign() {
  DepthGuard guard(this);
  EDGEQ_RETURN_IF_ERROR(CheckDepth());
  if ((Is(TokenType::kUnary) || Is(TokenType::kAdditive)) &&
      (t_[p_].value == "-" || t_[p_].value == "+")) {
    NodePtr n = Make(K::kUnary);
    n->text = t_[p_++].value;
    EDGEQ_ASSIGN_OR_RETURN(n->a, Sign());
    return n;
  }
  return Postfix(nullptr);
}

// Primary, then any number of .name, [subscript] and (arguments).
absl::StatusOr<NodePtr> Parser::Postfix(NodePtr n) {
  if (!n) {
    EDGEQ_ASSIGN_OR_RETURN(n, Primary());
  }
  while (true) {
    if (Is(TokenType::kDot)) {
      ++p_;
      NodePtr m = Make(K::kMember);
      if (Is(TokenType::kIdentifier)) {
        m->b = Make(K::kString);
        m->b->text = t_[p_++].value;
      } else if (Is(TokenType::kNumber) &&
                 t_[p_].value.find_first_not_of("0123456789") == std::string::npos) {
        m->b = Make(K::kInt);
        m->b->i = std::strtoll(t_[p_++].value.c_str(), nullptr, 10);
      } else {
        return Expected("a name after '.'");
      }
      m->a = std::move(n);
      n = std::move(m);
    } else if (Is(TokenType::kOpenBracket)) {
      ++p_;
      NodePtr m = Make(K::kMember);
      m->computed = true;
      EDGEQ_ASSIGN_OR_RETURN(m->b, Subscript());
      EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseBracket, "']'"));
      m->a = std::move(n);
      n = std::move(m);
    } else if (Is(TokenType::kOpenParen)) {
      NodePtr c = Make(K::kCall);
      EDGEQ_RETURN_IF_ERROR(Arguments(&c->items, false));
      c->a = std::move(n);
      n = std::move(c);
    } else {
      return n;
    }
  }
}

absl::StatusOr<NodePtr> Parser::Subscript() {
  std::vector<NodePtr> parts;
  bool slice = false;
  while (!Is(TokenType::kCloseBracket)) {
    if (p_ >= t_.size()) return Expected("']'");
    if (Is(TokenType::kColon)) {
      parts.push_back(nullptr);
      ++p_;
      slice = true;
    } else {
      EDGEQ_ASSIGN_OR_RETURN(NodePtr e, Expression());
      parts.push_back(std::move(e));
      if (Is(TokenType::kColon)) {
        ++p_;
        slice = true;
      }
    }
  }
  if (parts.empty()) return Error("expected a subscript or slice inside '[]'");
  if (!slice) {
    if (parts.size() != 1) return Error("expected one subscript inside '[]'");
    return std::move(parts[0]);
  }
  if (parts.size() > 3) return Error("a slice has at most three parts, start:stop:step");
  NodePtr s = Make(K::kSlice);
  s->a = std::move(parts[0]);
  if (parts.size() > 1) s->b = std::move(parts[1]);
  if (parts.size() > 2) s->c = std::move(parts[2]);
  return s;
}

absl::Status Parser::Arguments(std::vector<NodePtr>* out, bool parameters) {
  EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kOpenParen, "'('"));
  bool keyword_seen = false;
  while (!Is(TokenType::kCloseParen)) {
    if (p_ >= t_.size()) return Expected("')'");
    NodePtr arg;
    if (!parameters &&
        (Is(TokenType::kPower) || (Is(TokenType::kMultiplicative) && t_[p_].value == "*"))) {
      arg = Make(Is(TokenType::kPower) ? K::kKeywordSpread : K::kSpread);
      ++p_;
      EDGEQ_ASSIGN_OR_RETURN(arg->a, Expression());
    } else {
      EDGEQ_ASSIGN_OR_RETURN(arg, Expression());
      if (Is(TokenType::kEquals)) {
        ++p_;
        if (arg->kind != K::kName) return Error("expected a name before '=' in the arguments");
        NodePtr kw = Make(K::kKeyword);
        kw->text = arg->text;
        EDGEQ_ASSIGN_OR_RETURN(kw->a, Expression());
        arg = std::move(kw);
        keyword_seen = true;
      } else if (keyword_seen) {
        return Error(parameters ? "a parameter without a default follows one with a default"
                                : "a positional argument follows a keyword argument");
      }
      if (parameters && arg->kind != K::kName && arg->kind != K::kKeyword) {
        return Error("a macro parameter must be a name or name=default");
      }
    }
    out->push_back(std::move(arg));
    if (Is(TokenType::kComma)) {
      ++p_;
    } else if (!Is(TokenType::kCloseParen)) {
      return Expected("',' or ')'");
    }
  }
  ++p_;
  return absl::OkStatus();
}

absl::StatusOr<NodePtr> Parser::Primary() {
  DepthGuard guard(this);
  EDGEQ_RETURN_IF_ERROR(CheckDepth());
  if (p_ >= t_.size()) return Expected("an expression");
  const Token& tok = t_[p_];
  switch (tok.type) {
    case TokenType::kNumber: {
      ++p_;
      if (tok.value.find('.') != std::string::npos) {
        NodePtr n = Make(K::kFloat);
        n->d = std::strtod(tok.value.c_str(), nullptr);
        return n;
      }
      NodePtr n = Make(K::kInt);
      errno = 0;
      n->i = std::strtoll(tok.value.c_str(), nullptr, 10);
      if (errno == ERANGE) return Error(absl::StrCat("integer ", tok.value, " is out of range"));
      return n;
    }
    case TokenType::kString: {
      NodePtr n = Make(K::kString);
      while (Is(TokenType::kString)) n->text += t_[p_++].value;  // 'a' 'b' == 'ab'
      return n;
    }
    case TokenType::kIdentifier: {
      NodePtr n = Make(K::kName);
      n->text = tok.value;
      ++p_;
      return n;
    }
    case TokenType::kOpenParen: {
      ++p_;
      EDGEQ_ASSIGN_OR_RETURN(NodePtr n, Sequence(false));
      EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kCloseParen, "')'"));
      return n;
    }
    case TokenType::kOpenBracket:
    case TokenType::kOpenBrace: {
      const bool list = tok.type == TokenType::kOpenBracket;
      const TokenType close = list ? TokenType::kCloseBracket : TokenType::kCloseBrace;
      NodePtr n = Make(list ? K::kList : K::kDict);
      ++p_;
      while (!Is(close)) {
        if (p_ >= t_.size()) return Expected(list ? "']'" : "'}'");
        EDGEQ_ASSIGN_OR_RETURN(NodePtr e, Expression());
        n->items.push_back(std::move(e));
        if (!list) {
          EDGEQ_RETURN_IF_ERROR(Expect(TokenType::kColon, "':' between a key and its value"));
          EDGEQ_ASSIGN_OR_RETURN(NodePtr v, Expression());
          n->items.push_back(std::move(v));
        }
        if (Is(TokenType::kComma)) {
          ++p_;
        } else if (!Is(close)) {
          return Expected(list ? "',' or ']'" : "',' or '}'");
        }
      }
      ++p_;
      return n;
    }
    default:
      return Expected("an expression");
  }
}

}  // namespace

absl::StatusOr<std::vector<NodePtr>> ParseTokens(const std::vector<Token>& tokens, int max_depth) {
  Parser parser(tokens, max_depth);
  return parser.Program();
}

}  // namespace jinja
}  // namespace edgeq
