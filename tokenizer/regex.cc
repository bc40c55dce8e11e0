#include "tokenizer/regex.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "tokenizer/unicode.h"

namespace edgeq {
namespace tokenizer {
namespace {

using Item = PreTokenizerRegex::CharClass::Item;
using Inst = PreTokenizerRegex::Inst;

struct Node {
  enum Type { kClass, kSeq, kAlt, kRepeat, kLook, kBegin, kEnd } type;
  int cls = -1;
  std::vector<std::unique_ptr<Node>> kids;
  int min = 0, max = 0;  // kRepeat; max -1 = unbounded
  bool greedy = true;
  bool negate = false;  // kLook
};

bool IsWordChar(uint32_t cp) {
  return cp == '_' || (CategoryBit(cp) & (kCatL | kCatN | kCatM)) != 0;
}

uint32_t CategoryMaskByName(absl::string_view name) {
  static const struct {
    const char* name;
    uint32_t mask;
  } kNames[] = {
      {"L", kCatL},     {"Lu", kCatLu},   {"Ll", kCatLl},   {"Lt", kCatLt},   {"Lm", kCatLm},
      {"Lo", kCatLo},   {"M", kCatM},     {"Mn", 1u << 6},  {"Mc", 1u << 7},  {"Me", 1u << 8},
      {"N", kCatN},     {"Nd", kCatNd},   {"Nl", 1u << 10}, {"No", 1u << 11}, {"P", kCatP},
      {"Pc", 1u << 12}, {"Pd", 1u << 13}, {"Ps", 1u << 14}, {"Pe", 1u << 15}, {"Pi", 1u << 16},
      {"Pf", 1u << 17}, {"Po", 1u << 18}, {"S", kCatS},     {"Sm", 1u << 19}, {"Sc", 1u << 20},
      {"Sk", 1u << 21}, {"So", 1u << 22}, {"Z", kCatZ},     {"Zs", 1u << 23}, {"Zl", 1u << 24},
      {"Zp", 1u << 25}, {"C", kCatC},     {"Cc", 1u << 26}, {"Cf", 1u << 27}, {"Cs", 1u << 28},
      {"Co", 1u << 29}, {"Cn", 1u << 0},
  };
  for (const auto& n : kNames) {
    if (name == n.name) return n.mask;
  }
  return 0;
}

bool ItemMatches(const Item& it, uint32_t cp) {
  bool m = false;
  switch (it.kind) {
    case Item::kRange:
      m = cp >= it.lo && cp <= it.hi;
      break;
    case Item::kCategory:
      m = (CategoryBit(cp) & it.mask) != 0;
      break;
    case Item::kSpace:
      m = IsWhiteSpace(cp);
      break;
    case Item::kDigit:
      m = (CategoryBit(cp) & kCatNd) != 0;
      break;
    case Item::kWord:
      m = IsWordChar(cp);
      break;
    case Item::kAny:
      m = cp != '\n';
      break;
  }
  return m != it.negated;
}

class Parser {
 public:
  Parser(absl::string_view pattern, std::vector<PreTokenizerRegex::CharClass>* classes)
      : pattern_(pattern), classes_(classes) {
    CodePoints cps = DecodeUtf8(pattern);
    p_ = std::move(cps.cps);
  }

  absl::StatusOr<std::unique_ptr<Node>> Parse() {
    auto node = ParseAlt(/*icase=*/false, 0);
    if (!status_.ok()) return status_;
    if (i_ != p_.size()) {
      SetError("unbalanced ')'");
      return status_;
    }
    return node;
  }

 private:
  void SetError(absl::string_view what) {
    if (status_.ok()) {
      status_ = absl::InvalidArgumentError(
          absl::StrCat("pre-tokenizer pattern \"", pattern_, "\": ", what, " at code point ", i_));
    }
  }
  bool AtEnd() const { return i_ >= p_.size(); }
  uint32_t Peek() const { return AtEnd() ? 0 : p_[i_]; }

  int AddClass(PreTokenizerRegex::CharClass cls) {
    for (uint32_t cp = 0; cp < 128; ++cp) {
      if (cls.MatchesSlow(cp)) cls.ascii[cp >> 6] |= uint64_t{1} << (cp & 63);
    }
    classes_->push_back(std::move(cls));
    return static_cast<int>(classes_->size()) - 1;
  }
  std::unique_ptr<Node> ClassNode(PreTokenizerRegex::CharClass cls) {
    auto n = std::make_unique<Node>();
    n->type = Node::kClass;
    n->cls = AddClass(std::move(cls));
    return n;
  }
  static Item Range(uint32_t lo, uint32_t hi) { return Item{Item::kRange, false, lo, hi, 0}; }

  std::unique_ptr<Node> ParseAlt(bool icase, int depth) {
    if (depth > 100) {
      SetError("nesting too deep");
      return nullptr;
    }
    auto alt = std::make_unique<Node>();
    alt->type = Node::kAlt;
    alt->kids.push_back(ParseSeq(icase, depth));
    while (status_.ok() && !AtEnd() && Peek() == '|') {
      ++i_;
      alt->kids.push_back(ParseSeq(icase, depth));
    }
    if (alt->kids.size() == 1) return std::move(alt->kids[0]);
    return alt;
  }

  std::unique_ptr<Node> ParseSeq(bool icase, int depth) {
    auto seq = std::make_unique<Node>();
    seq->type = Node::kSeq;
    while (status_.ok() && !AtEnd() && Peek() != '|' && Peek() != ')') {
      std::unique_ptr<Node> atom = ParseAtom(icase, depth);
      if (!status_.ok()) return seq;
      atom = ParseQuantifier(std::move(atom));
      seq->kids.push_back(std::move(atom));
    }
    return seq;
  }

  bool ParseInt(int* v) {
    if (AtEnd() || Peek() < '0' || Peek() > '9') return false;
    int64_t x = 0;
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9') {
      x = x * 10 + (Peek() - '0');
      if (x > 100000) return false;
      ++i_;
    }
    *v = static_cast<int>(x);
    return true;
  }

  std::unique_ptr<Node> ParseQuantifier(std::unique_ptr<Node> atom) {
    for (int stacked = 0; status_.ok() && !AtEnd(); ++stacked) {
      if (stacked == 4) {
        SetError("too many quantifiers on one atom");
        return atom;
      }
      int min = 0, max = 0;
      const uint32_t c = Peek();
      if (c == '*') {
        min = 0, max = -1, ++i_;
      } else if (c == '+') {
        min = 1, max = -1, ++i_;
      } else if (c == '?') {
        min = 0, max = 1, ++i_;
      } else if (c == '{') {
        const size_t save = i_;
        ++i_;
        if (!ParseInt(&min)) {  // a literal '{'
          i_ = save;
          return atom;
        }
        max = min;
        if (Peek() == ',') {
          ++i_;
          if (Peek() == '}') {
            max = -1;
          } else if (!ParseInt(&max) || max < min) {
            SetError("bad {n,m} quantifier");
            return atom;
          }
        }
        if (Peek() != '}') {
          SetError("bad {n,m} quantifier");
          return atom;
        }
        ++i_;
        if (max > 1000 || min > 1000) {
          SetError("quantifier bound above 1000");
          return atom;
        }
      } else {
        return atom;
      }
      auto rep = std::make_unique<Node>();
      rep->type = Node::kRepeat;
      rep->min = min;
      rep->max = max;
      if (!AtEnd() && Peek() == '?') {
        rep->greedy = false;
        ++i_;
      } else if (!AtEnd() && Peek() == '+') {
        SetError("possessive quantifiers are not supported");
        return atom;
      }
      rep->kids.push_back(std::move(atom));
      atom = std::move(rep);
    }
    return atom;
  }

  // Parses \p{..} / \P{..} after the 'p'/'P'; appends the item.
  bool ParseProperty(bool negated, Item* item) {
    if (Peek() != '{') {
      SetError("expected '{' after \\p");
      return false;
    }
    ++i_;
    std::string name;
    while (!AtEnd() && Peek() != '}') {
      if (Peek() >= 128 || name.size() > 20) {
        SetError("bad property name");
        return false;
      }
      name.push_back(static_cast<char>(Peek()));
      ++i_;
    }
    if (AtEnd()) {
      SetError("unterminated \\p{");
      return false;
    }
    ++i_;
    const uint32_t mask = CategoryMaskByName(name);
    if (mask == 0) {
      SetError(absl::StrCat("unsupported property \\p{", name,
                            "} (supported: general categories such as L, Lu, N, P, S, M, Z, C)"));
      return false;
    }
    *item = Item{Item::kCategory, negated, 0, 0, mask};
    return true;
  }

  bool ParseHex(int digits, uint32_t* v) {
    uint32_t x = 0;
    const bool braced = digits < 0 && Peek() == '{';
    if (braced) ++i_;
    int n = 0;
    while (!AtEnd() && (braced || n < digits)) {
      const uint32_t c = Peek();
      int d = -1;
      if (c >= '0' && c <= '9') d = static_cast<int>(c - '0');
      if (c >= 'a' && c <= 'f') d = static_cast<int>(c - 'a' + 10);
      if (c >= 'A' && c <= 'F') d = static_cast<int>(c - 'A' + 10);
      if (d < 0) break;
      x = x * 16 + static_cast<uint32_t>(d);
      if (x > 0x10FFFF) return false;
      ++i_, ++n;
    }
    if (braced) {
      if (Peek() != '}') return false;
      ++i_;
    } else if (n != digits) {
      return false;
    }
    *v = x;
    return n > 0;
  }

  // Parses an escape after '\'. Either sets *literal (returns 1) or *item (returns 2); 0 on
  // error. `in_class` allows \b as backspace.
  int ParseEscape(uint32_t* literal, Item* item) {
    if (AtEnd()) {
      SetError("trailing backslash");
      return 0;
    }
    const uint32_t c = p_[i_++];
    switch (c) {
      case 'p':
      case 'P':
        return ParseProperty(c == 'P', item) ? 2 : 0;
      case 's':
      case 'S':
        *item = Item{Item::kSpace, c == 'S', 0, 0, 0};
        return 2;
      case 'd':
      case 'D':
        *item = Item{Item::kDigit, c == 'D', 0, 0, 0};
        return 2;
      case 'w':
      case 'W':
        *item = Item{Item::kWord, c == 'W', 0, 0, 0};
        return 2;
      case 'r':
        *literal = '\r';
        return 1;
      case 'n':
        *literal = '\n';
        return 1;
      case 't':
        *literal = '\t';
        return 1;
      case 'f':
        *literal = '\f';
        return 1;
      case 'v':
        *literal = '\v';
        return 1;
      case '0':
        *literal = 0;
        return 1;
      case 'x':
        if (!ParseHex(Peek() == '{' ? -1 : 2, literal)) {
          SetError("bad \\x escape");
          return 0;
        }
        return 1;
      case 'u':
        if (!ParseHex(4, literal)) {
          SetError("bad \\u escape");
          return 0;
        }
        return 1;
      default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
          --i_;
          SetError(absl::StrCat("unsupported escape \\", std::string(1, static_cast<char>(c))));
          return 0;
        }
        *literal = c;
        return 1;
    }
  }

  std::unique_ptr<Node> ParseClass(bool icase) {
    PreTokenizerRegex::CharClass cls;
    cls.icase = icase;
    if (Peek() == '^') {
      cls.negated = true;
      ++i_;
    }
    bool first = true;
    while (true) {
      if (AtEnd()) {
        SetError("unterminated character class");
        return nullptr;
      }
      uint32_t c = Peek();
      if (c == ']' && !first) {
        ++i_;
        break;
      }
      first = false;
      ++i_;
      uint32_t lo = c;
      if (c == '\\') {
        Item item{};
        const int kind = ParseEscape(&lo, &item);
        if (kind == 0) return nullptr;
        if (kind == 2) {
          cls.items.push_back(item);
          continue;
        }
      }
      // A range lo-hi?
      if (Peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        ++i_;
        uint32_t hi = p_[i_++];
        if (hi == '\\') {
          Item item{};
          if (ParseEscape(&hi, &item) != 1) {
            SetError("bad range end in character class");
            return nullptr;
          }
        }
        if (hi < lo) {
          SetError("reversed range in character class");
          return nullptr;
        }
        cls.items.push_back(Range(lo, hi));
      } else {
        cls.items.push_back(Range(lo, lo));
      }
    }
    return ClassNode(std::move(cls));
  }

  std::unique_ptr<Node> ParseAtom(bool icase, int depth) {
    const uint32_t c = p_[i_++];
    switch (c) {
      case '(': {
        auto look = std::make_unique<Node>();
        bool is_look = false;
        bool inner_icase = icase;
        if (Peek() == '?') {
          ++i_;
          const uint32_t k = Peek();
          ++i_;
          if (k == ':') {
          } else if (k == '=' || k == '!') {
            is_look = true;
            look->negate = k == '!';
          } else if (k == 'i' && Peek() == ':') {
            ++i_;
            inner_icase = true;
          } else {
            SetError(
                "unsupported group type (lookbehind, named groups and inline flags other "
                "than (?i:...) are not supported)");
            return nullptr;
          }
        }
        auto inner = ParseAlt(inner_icase, depth + 1);
        if (!status_.ok()) return nullptr;
        if (AtEnd() || Peek() != ')') {
          SetError("missing ')'");
          return nullptr;
        }
        ++i_;
        if (!is_look) return inner;
        look->type = Node::kLook;
        look->kids.push_back(std::move(inner));
        return look;
      }
      case '[':
        return ParseClass(icase);
      case '.': {
        PreTokenizerRegex::CharClass cls;
        cls.items.push_back(Item{Item::kAny, false, 0, 0, 0});
        return ClassNode(std::move(cls));
      }
      case '^':
      case '$': {
        auto n = std::make_unique<Node>();
        n->type = c == '^' ? Node::kBegin : Node::kEnd;
        return n;
      }
      case '*':
      case '+':
      case '?':
      case '{':
        if (c != '{') {
          --i_;
          SetError("quantifier without an operand");
          return nullptr;
        }
        break;
      case ')':
        --i_;
        SetError("unbalanced ')'");
        return nullptr;
      default:
        break;
    }
    uint32_t lit = c;
    PreTokenizerRegex::CharClass cls;
    cls.icase = icase;
    if (c == '\\') {
      Item item{};
      const int kind = ParseEscape(&lit, &item);
      if (kind == 0) return nullptr;
      if (kind == 2) {
        cls.items.push_back(item);
        return ClassNode(std::move(cls));
      }
    }
    cls.items.push_back(Range(lit, lit));
    return ClassNode(std::move(cls));
  }

  absl::string_view pattern_;
  std::vector<PreTokenizerRegex::CharClass>* classes_;
  std::vector<uint32_t> p_;
  size_t i_ = 0;
  absl::Status status_;
};

void Emit(const Node& n, std::vector<Inst>* prog) {
  auto add = [&](Inst::Op op, int x = 0, int y = 0, bool negate = false) {
    Inst inst;
    inst.op = op;
    inst.x = x;
    inst.y = y;
    inst.negate = negate;
    prog->push_back(inst);
    return static_cast<int>(prog->size()) - 1;
  };
  auto here = [&] { return static_cast<int>(prog->size()); };
  switch (n.type) {
    case Node::kClass:
      add(Inst::kClass, n.cls);
      break;
    case Node::kBegin:
      add(Inst::kBegin);
      break;
    case Node::kEnd:
      add(Inst::kEnd);
      break;
    case Node::kSeq:
      for (const auto& k : n.kids) Emit(*k, prog);
      break;
    case Node::kAlt: {
      std::vector<int> jumps;
      for (size_t i = 0; i < n.kids.size(); ++i) {
        if (i + 1 < n.kids.size()) {
          const int split = add(Inst::kSplit);
          (*prog)[split].x = here();
          Emit(*n.kids[i], prog);
          jumps.push_back(add(Inst::kJmp));
          (*prog)[split].y = here();
        } else {
          Emit(*n.kids[i], prog);
        }
      }
      for (int j : jumps) (*prog)[j].x = here();
      break;
    }
    case Node::kRepeat: {
      const Node& body = *n.kids[0];
      for (int i = 0; i < n.min; ++i) Emit(body, prog);
      if (n.max < 0) {
        const int split = add(Inst::kSplit);
        Emit(body, prog);
        add(Inst::kJmp, split);
        const int out = here();
        (*prog)[split].x = n.greedy ? split + 1 : out;
        (*prog)[split].y = n.greedy ? out : split + 1;
      } else {
        std::vector<int> splits;
        for (int i = n.min; i < n.max; ++i) {
          splits.push_back(add(Inst::kSplit));
          Emit(body, prog);
        }
        const int out = here();
        for (int s : splits) {
          (*prog)[s].x = n.greedy ? s + 1 : out;
          (*prog)[s].y = n.greedy ? out : s + 1;
        }
      }
      break;
    }
    case Node::kLook: {
      const int look = add(Inst::kLook, 0, 0, n.negate);
      (*prog)[look].x = here();
      Emit(*n.kids[0], prog);
      add(Inst::kMatch);
      (*prog)[look].y = here();
      break;
    }
  }
}

constexpr int64_t kStepBudget = int64_t{1} << 22;  // per Search (one match)
constexpr int64_t kMaxProgram = 1 << 17;

// Instructions Emit would produce (saturating above kMaxProgram).
int64_t ProgramSize(const Node& n) {
  int64_t size = 0;
  switch (n.type) {
    case Node::kClass:
    case Node::kBegin:
    case Node::kEnd:
      return 1;
    case Node::kSeq:
    case Node::kAlt:
      for (const auto& k : n.kids) size += ProgramSize(*k) + (n.type == Node::kAlt ? 2 : 0);
      break;
    case Node::kRepeat: {
      const int64_t body = ProgramSize(*n.kids[0]);
      const int64_t copies = n.max < 0 ? n.min + 1 : n.max;
      size = body * copies + (copies + 2);
      break;
    }
    case Node::kLook:
      size = ProgramSize(*n.kids[0]) + 2;
      break;
  }
  return size > kMaxProgram ? kMaxProgram + 1 : size;
}

}  // namespace

bool PreTokenizerRegex::CharClass::MatchesSlow(uint32_t cp) const {
  bool m = false;
  for (const Item& it : items) {
    if (ItemMatches(it, cp)) {
      m = true;
      break;
    }
  }
  if (!m && icase) {
    const uint32_t lower = ToLower(cp), upper = ToUpper(cp);
    for (const Item& it : items) {
      if ((lower != cp && ItemMatches(it, lower)) || (upper != cp && ItemMatches(it, upper))) {
        m = true;
        break;
      }
    }
  }
  return m != negated;
}

absl::StatusOr<PreTokenizerRegex> PreTokenizerRegex::Compile(absl::string_view pattern) {
  PreTokenizerRegex re;
  re.pattern_ = std::string(pattern);
  Parser parser(re.pattern_, &re.classes_);
  absl::StatusOr<std::unique_ptr<Node>> root = parser.Parse();
  if (!root.ok()) return root.status();
  if (ProgramSize(**root) > kMaxProgram) {
    return absl::InvalidArgumentError(absl::StrCat("pre-tokenizer pattern \"", pattern,
                                                   "\" is too large once repeats are expanded"));
  }
  Emit(**root, &re.prog_);
  Inst match;
  match.op = Inst::kMatch;
  re.prog_.push_back(match);
  return re;
}

bool PreTokenizerRegex::Run(const uint32_t* cps, size_t begin, size_t end, int pc, size_t pos,
                            size_t* out_end, int depth, int64_t* budget) const {
  std::vector<std::pair<int, size_t>> stack;
  while (true) {
    if (--*budget < 0) return false;
    const Inst& in = prog_[pc];
    bool fail = false;
    switch (in.op) {
      case Inst::kClass:
        if (pos < end && classes_[in.x].Matches(cps[pos])) {
          ++pos, ++pc;
        } else {
          fail = true;
        }
        break;
      case Inst::kSplit:
        stack.emplace_back(in.y, pos);
        pc = in.x;
        break;
      case Inst::kJmp:
        pc = in.x;
        break;
      case Inst::kMatch:
        *out_end = pos;
        return true;
      case Inst::kBegin:
        if (pos == begin) {
          ++pc;
        } else {
          fail = true;
        }
        break;
      case Inst::kEnd:
        if (pos == end) {
          ++pc;
        } else {
          fail = true;
        }
        break;
      case Inst::kLook: {
        size_t ignored = 0;
        const bool m = depth < 8 && Run(cps, begin, end, in.x, pos, &ignored, depth + 1, budget);
        if (*budget < 0) return false;
        if (m != in.negate) {
          pc = in.y;
        } else {
          fail = true;
        }
        break;
      }
    }
    if (fail) {
      if (stack.empty()) return false;
      pc = stack.back().first;
      pos = stack.back().second;
      stack.pop_back();
    }
  }
}

PreTokenizerRegex::Result PreTokenizerRegex::Search(const uint32_t* cps, size_t begin, size_t end,
                                                    size_t from, size_t* match_begin,
                                                    size_t* match_end) const {
  int64_t budget = kStepBudget;
  for (size_t start = from; start <= end; ++start) {
    size_t e = 0;
    if (Run(cps, begin, end, 0, start, &e, 0, &budget)) {
      *match_begin = start;
      *match_end = e;
      return Result::kMatch;
    }
    if (budget < 0) return Result::kTooComplex;
  }
  return Result::kNoMatch;
}

absl::StatusOr<std::vector<std::pair<size_t, size_t>>> RegexSplit(
    absl::string_view text, const std::vector<PreTokenizerRegex>& patterns) {
  const CodePoints cp = DecodeUtf8(text);
  const size_t n = cp.cps.size();
  std::vector<std::pair<size_t, size_t>> frags;
  if (n > 0) frags.emplace_back(0, n);
  for (const PreTokenizerRegex& re : patterns) {
    std::vector<std::pair<size_t, size_t>> next;
    next.reserve(frags.size() * 2);
    for (const auto& f : frags) {
      size_t gap = f.first;
      size_t from = f.first;
      while (from < f.second) {
        size_t mb = 0, me = 0;
        const PreTokenizerRegex::Result r =
            re.Search(cp.cps.data(), f.first, f.second, from, &mb, &me);
        if (r == PreTokenizerRegex::Result::kTooComplex) {
          return absl::ResourceExhaustedError(absl::StrCat("pre-tokenizer pattern \"", re.pattern(),
                                                           "\" needs too many steps on a text of ",
                                                           text.size(), " bytes"));
        }
        if (r == PreTokenizerRegex::Result::kNoMatch) break;
        if (me == mb) {  // empty match: no fragment, look further
          from = mb + 1;
          continue;
        }
        if (mb > gap) next.emplace_back(gap, mb);
        next.emplace_back(mb, me);
        gap = from = me;
      }
      if (gap < f.second) next.emplace_back(gap, f.second);
    }
    frags = std::move(next);
  }
  std::vector<std::pair<size_t, size_t>> bytes;
  bytes.reserve(frags.size());
  for (const auto& f : frags) bytes.emplace_back(cp.offsets[f.first], cp.offsets[f.second]);
  return bytes;
}

}  // namespace tokenizer
}  // namespace edgeq
