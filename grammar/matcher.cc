#include "grammar/matcher.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"

namespace edgeq {
namespace grammar {

namespace {

void SortUnique(std::vector<uint32_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// TokenTrie

TokenTrie::TokenTrie(const std::vector<std::string>& pieces) : token_count_(pieces.size()) {
  // Build with per-node child lists, then lay the nodes out depth first (children by byte).
  std::vector<std::vector<std::pair<uint8_t, uint32_t>>> kids(1);
  std::vector<std::vector<uint32_t>> ends(1);
  for (uint32_t t = 0; t < pieces.size(); ++t) {
    if (pieces[t].size() > kMaxPieceBytes) continue;  // never allowed
    uint32_t node = 0;
    for (char ch : pieces[t]) {
      const auto b = static_cast<uint8_t>(ch);
      auto& list = kids[node];
      auto it = std::find_if(list.begin(), list.end(),
                             [b](const std::pair<uint8_t, uint32_t>& k) { return k.first == b; });
      if (it != list.end()) {
        node = it->second;
      } else {
        const auto next = static_cast<uint32_t>(kids.size());
        list.emplace_back(b, next);
        kids.emplace_back();
        ends.emplace_back();
        node = next;
      }
    }
    ends[node].push_back(t);
  }
  const size_t n = kids.size();
  depth_byte_.reserve(n), end_.assign(n, 0), first_token_.reserve(n + 1);
  struct Item {
    uint32_t node;
    uint8_t byte;
    uint32_t depth;
  };
  std::vector<Item> todo = {{0, 0, 0}};
  std::vector<uint32_t> open;  // preorder indices of the nodes on the current path
  while (!todo.empty()) {
    const Item item = todo.back();
    todo.pop_back();
    const auto index = static_cast<uint32_t>(depth_byte_.size());
    while (!open.empty() && (depth_byte_[open.back()] >> 8) >= item.depth) {
      end_[open.back()] = index;
      open.pop_back();
    }
    open.push_back(index);
    depth_byte_.push_back(item.depth << 8 | item.byte);
    max_depth_ = std::max(max_depth_, item.depth);
    first_token_.push_back(static_cast<uint32_t>(tokens_.size()));
    tokens_.insert(tokens_.end(), ends[item.node].begin(), ends[item.node].end());
    std::vector<std::pair<uint8_t, uint32_t>>& list = kids[item.node];
    std::sort(list.rbegin(), list.rend());  // pushed in reverse: visited in byte order
    for (const auto& [b, child] : list) todo.push_back({child, b, item.depth + 1});
  }
  for (uint32_t i : open) end_[i] = static_cast<uint32_t>(depth_byte_.size());
  first_token_.push_back(static_cast<uint32_t>(tokens_.size()));
}

// ---------------------------------------------------------------------------------------------
// Stacks

Matcher::Matcher(std::shared_ptr<const Grammar> grammar, const MatcherLimits& limits)
    : grammar_(std::move(grammar)), limits_(limits) {
  Reset();
}

void Matcher::ClearCaches() const {
  step_cache_.clear();
  step_store_.clear();
  sets_.clear();
  set_ids_.clear();
  dfa_.clear();
  dfa_ids_.clear();
}

absl::Status Matcher::Initialize() {
  nodes_.clear();
  intern_.clear();
  ClearCaches();
  stacks_.clear();
  partial_ = Utf8();
  const std::vector<Element>& elems = grammar_->elements();
  for (uint32_t start : grammar_->alternatives(grammar_->root())) {
    if (elems[start].kind == ElementKind::kEnd) {
      stacks_.push_back(kEmpty);
      continue;
    }
    EDGEQ_ASSIGN_OR_RETURN(uint32_t id, Intern(start, kEmpty));
    EDGEQ_RETURN_IF_ERROR(Expand(id, &stacks_));
  }
  SortUnique(&stacks_);
  if (stacks_.size() > limits_.max_stacks) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("grammar start expands to %d stacks, above the limit of %d", stacks_.size(),
                        limits_.max_stacks));
  }
  return absl::OkStatus();
}

void Matcher::Reset() {
  init_status_ = grammar_ == nullptr ? absl::InvalidArgumentError(
                                           "grammar::Matcher has no grammar, expected "
                                           "one from ParseGbnf")
                                     : Initialize();
}

absl::StatusOr<uint32_t> Matcher::Intern(uint32_t pos, uint32_t parent) const {
  const uint64_t key = (static_cast<uint64_t>(pos) << 32) | parent;
  auto it = intern_.find(key);
  if (it != intern_.end()) return it->second;
  if (nodes_.size() >= limits_.max_nodes) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("grammar matcher holds %d stack cells, the limit", limits_.max_nodes));
  }
  const auto id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back({pos, parent});
  intern_.emplace(key, id);
  return id;
}

// Replaces rule references on top of `stack` by their alternatives until every top is a
// character class (or the stack is empty); appends those leaf stacks to `out`. Terminates since
// left recursion is refused when the grammar is parsed.
absl::Status Matcher::Expand(uint32_t stack, std::vector<uint32_t>* out) const {
  const std::vector<Element>& elems = grammar_->elements();
  std::vector<uint32_t> todo = {stack};
  absl::flat_hash_set<uint32_t> seen;
  while (!todo.empty()) {
    const uint32_t s = todo.back();
    todo.pop_back();
    if (!seen.insert(s).second) continue;
    if (seen.size() > 4 * limits_.max_stacks) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "grammar expansion visits more than %d stacks (limit)", 4 * limits_.max_stacks));
    }
    if (s == kEmpty) {
      out->push_back(s);
      continue;
    }
    const Node node = nodes_[s];
    const Element& e = elems[node.pos];
    if (e.kind == ElementKind::kChars) {
      out->push_back(s);
      continue;
    }
    uint32_t rest = node.parent;
    if (elems[node.pos + 1].kind != ElementKind::kEnd) {
      EDGEQ_ASSIGN_OR_RETURN(rest, Intern(node.pos + 1, node.parent));
    }
    for (uint32_t start : grammar_->alternatives(e.value)) {
      if (elems[start].kind == ElementKind::kEnd) {
        todo.push_back(rest);
      } else {
        EDGEQ_ASSIGN_OR_RETURN(uint32_t next, Intern(start, rest));
        todo.push_back(next);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Matcher::Step(uint32_t leaf, uint32_t* first, uint32_t* count) const {
  auto it = step_cache_.find(leaf);
  if (it != step_cache_.end()) {
    *first = it->second.first;
    *count = it->second.second;
    return absl::OkStatus();
  }
  const Node node = nodes_[leaf];
  const std::vector<Element>& elems = grammar_->elements();
  uint32_t after = node.parent;
  if (elems[node.pos + 1].kind != ElementKind::kEnd) {
    EDGEQ_ASSIGN_OR_RETURN(after, Intern(node.pos + 1, node.parent));
  }
  std::vector<uint32_t> next;
  EDGEQ_RETURN_IF_ERROR(Expand(after, &next));
  SortUnique(&next);
  *first = static_cast<uint32_t>(step_store_.size());
  *count = static_cast<uint32_t>(next.size());
  step_store_.insert(step_store_.end(), next.begin(), next.end());
  step_cache_.emplace(leaf, std::make_pair(*first, *count));
  return absl::OkStatus();
}

absl::Status Matcher::Advance(const std::vector<uint32_t>& in, char32_t c,
                              std::vector<uint32_t>* out) const {
  out->clear();
  const std::vector<Element>& elems = grammar_->elements();
  for (uint32_t leaf : in) {
    if (leaf == kEmpty) continue;
    if (!grammar_->char_set(elems[nodes_[leaf].pos].value).Contains(c)) continue;
    uint32_t first, count;
    EDGEQ_RETURN_IF_ERROR(Step(leaf, &first, &count));
    out->insert(out->end(), step_store_.begin() + first, step_store_.begin() + first + count);
  }
  SortUnique(out);
  if (out->size() > limits_.max_stacks) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("grammar is ambiguous here: %d live stacks, above the limit of %d",
                        out->size(), limits_.max_stacks));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// UTF-8

Matcher::ByteResult Matcher::FeedByte(Utf8* st, uint8_t b, char32_t* code_point) {
  if (st->remaining == 0) {
    if (b < 0x80) {
      *code_point = b;
      return ByteResult::kCodePoint;
    }
    if (b >= 0xC2 && b <= 0xDF) {
      *st = {static_cast<uint32_t>(b & 0x1F), 1, 2};
    } else if (b >= 0xE0 && b <= 0xEF) {
      *st = {static_cast<uint32_t>(b & 0x0F), 2, 3};
    } else if (b >= 0xF0 && b <= 0xF4) {
      *st = {static_cast<uint32_t>(b & 0x07), 3, 4};
    } else {
      return ByteResult::kInvalid;
    }
    return ByteResult::kPending;
  }
  if ((b & 0xC0) != 0x80) return ByteResult::kInvalid;
  st->value = (st->value << 6) | (b & 0x3F);
  if (--st->remaining > 0) {
    // Reject a prefix that can only complete to an overlong form, a surrogate or > U+10FFFF.
    const uint32_t lo = st->value << (6 * st->remaining);
    const uint32_t hi = lo | ((1u << (6 * st->remaining)) - 1);
    const uint32_t min = st->length == 3 ? 0x800 : 0x10000;
    if (hi < min || lo > kMaxCodePoint || (lo >= 0xD800 && hi <= 0xDFFF)) {
      return ByteResult::kInvalid;
    }
    return ByteResult::kPending;
  }
  const uint32_t v = st->value;
  const uint32_t min = st->length == 2 ? 0x80 : st->length == 3 ? 0x800 : 0x10000;
  *st = Utf8();
  if (v < min || v > kMaxCodePoint || (v >= 0xD800 && v <= 0xDFFF)) return ByteResult::kInvalid;
  *code_point = v;
  return ByteResult::kCodePoint;
}

bool Matcher::PartialCanMatch(const std::vector<uint32_t>& stacks, const Utf8& st) const {
  const uint32_t bits = 6 * static_cast<uint32_t>(st.remaining);
  uint32_t lo = st.value << bits;
  uint32_t hi = std::min<uint32_t>(lo | ((1u << bits) - 1), kMaxCodePoint);
  const uint32_t min = st.length == 2 ? 0x80 : st.length == 3 ? 0x800 : 0x10000;
  lo = std::max(lo, min);
  if (lo > hi) return false;
  const std::vector<Element>& elems = grammar_->elements();
  for (uint32_t leaf : stacks) {
    if (leaf == kEmpty) continue;
    if (grammar_->char_set(elems[nodes_[leaf].pos].value).Intersects(lo, hi)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Public API

absl::Status Matcher::Accept(char32_t code_point) {
  EDGEQ_RETURN_IF_ERROR(init_status_);
  if (partial_.remaining != 0) {
    return absl::InvalidArgumentError(
        "grammar: a code point arrived while a UTF-8 sequence is incomplete, expected its "
        "continuation bytes");
  }
  if (code_point > kMaxCodePoint || (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "grammar input: 0x%X is not a Unicode scalar value, expected U+0000..U+10FFFF outside "
        "the surrogates",
        static_cast<uint32_t>(code_point)));
  }
  std::vector<uint32_t> next;
  EDGEQ_RETURN_IF_ERROR(Advance(stacks_, code_point, &next));
  if (next.empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("grammar does not allow U+%04X here", static_cast<uint32_t>(code_point)));
  }
  stacks_ = std::move(next);
  CompactIfLarge();
  return absl::OkStatus();
}

absl::Status Matcher::AcceptBytes(absl::string_view bytes) {
  EDGEQ_RETURN_IF_ERROR(init_status_);
  std::vector<uint32_t> stacks = stacks_, next;
  Utf8 st = partial_;
  for (size_t i = 0; i < bytes.size(); ++i) {
    char32_t c;
    switch (FeedByte(&st, static_cast<uint8_t>(bytes[i]), &c)) {
      case ByteResult::kInvalid:
        return absl::InvalidArgumentError(
            absl::StrFormat("grammar input: byte %d (0x%02X) is not valid UTF-8 here", i,
                            static_cast<uint8_t>(bytes[i])));
      case ByteResult::kPending:
        continue;
      case ByteResult::kCodePoint:
        break;
    }
    EDGEQ_RETURN_IF_ERROR(Advance(stacks, c, &next));
    if (next.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "grammar does not allow U+%04X at byte %d of the input", static_cast<uint32_t>(c), i));
    }
    stacks.swap(next);
  }
  if (st.remaining != 0 && !PartialCanMatch(stacks, st)) {
    return absl::InvalidArgumentError(
        "grammar does not allow the incomplete UTF-8 sequence at the end of the input");
  }
  stacks_ = std::move(stacks);
  partial_ = st;
  CompactIfLarge();
  return absl::OkStatus();
}

bool Matcher::IsAccepting() const {
  if (!init_status_.ok() || partial_.remaining != 0) return false;
  return !stacks_.empty() && stacks_.back() == kEmpty;  // kEmpty sorts last
}

bool Matcher::CanAccept(absl::string_view token_bytes) const {
  if (!init_status_.ok() || token_bytes.empty()) return false;
  std::vector<uint32_t> stacks = stacks_, next;
  Utf8 st = partial_;
  for (char ch : token_bytes) {
    char32_t c;
    const ByteResult r = FeedByte(&st, static_cast<uint8_t>(ch), &c);
    if (r == ByteResult::kInvalid) return false;
    if (r == ByteResult::kPending) continue;
    if (!Advance(stacks, c, &next).ok() || next.empty()) return false;
    stacks.swap(next);
  }
  return st.remaining == 0 || PartialCanMatch(stacks, st);
}

absl::Status Matcher::FilterTokens(const std::vector<std::string>& pieces,
                                   std::vector<bool>* allowed) const {
  return FilterTokens(TokenTrie(pieces), allowed);
}

absl::StatusOr<uint32_t> Matcher::DfaStateOf(const std::vector<uint32_t>& stacks,
                                             const Utf8& partial) const {
  auto set_it = set_ids_.find(stacks);
  uint32_t set;
  if (set_it != set_ids_.end()) {
    set = set_it->second;
  } else {
    set = static_cast<uint32_t>(sets_.size());
    sets_.push_back(stacks);
    set_ids_.emplace(stacks, set);
  }
  const uint64_t key = (static_cast<uint64_t>(set) << 32) | (partial.value << 8) |
                       (static_cast<uint64_t>(partial.remaining) << 4) |
                       static_cast<uint64_t>(partial.length);
  auto it = dfa_ids_.find(key);
  if (it != dfa_ids_.end()) return it->second;
  if (dfa_.size() >= limits_.max_dfa_states) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "grammar needs more than %d automaton states to mask this vocabulary (limit)",
        limits_.max_dfa_states));
  }
  const auto id = static_cast<uint32_t>(dfa_.size());
  dfa_.emplace_back();
  dfa_.back().set = set;
  dfa_.back().partial = partial;
  std::fill(std::begin(dfa_.back().next), std::end(dfa_.back().next), kUnknown);
  dfa_ids_.emplace(key, id);
  return id;
}

absl::StatusOr<uint32_t> Matcher::DfaNext(uint32_t state, uint8_t byte) const {
  const uint32_t cached = dfa_[state].next[byte];
  if (cached != kUnknown) return cached;
  Utf8 st = dfa_[state].partial;
  const uint32_t set = dfa_[state].set;
  char32_t c;
  uint32_t next = kDead;
  switch (FeedByte(&st, byte, &c)) {
    case ByteResult::kInvalid:
      break;
    case ByteResult::kPending:
      if (PartialCanMatch(sets_[set], st)) {
        const std::vector<uint32_t> same = sets_[set];
        EDGEQ_ASSIGN_OR_RETURN(next, DfaStateOf(same, st));
      }
      break;
    case ByteResult::kCodePoint: {
      std::vector<uint32_t> after;
      EDGEQ_RETURN_IF_ERROR(Advance(sets_[set], c, &after));
      if (!after.empty()) {
        EDGEQ_ASSIGN_OR_RETURN(next, DfaStateOf(after, Utf8()));
      }
      break;
    }
  }
  dfa_[state].next[byte] = next;
  return next;
}

// One pass over the trie in depth-first order: at[d] is the automaton state after the first d
// bytes of the current node's piece; a dead node skips its whole subtree.
absl::Status Matcher::WalkTrie(const TokenTrie& trie, std::vector<bool>* allowed) const {
  std::vector<uint32_t> at(trie.max_depth_ + 1);
  EDGEQ_ASSIGN_OR_RETURN(at[0], DfaStateOf(stacks_, partial_));
  const uint32_t n = static_cast<uint32_t>(trie.node_count());
  const uint32_t* depth_byte = trie.depth_byte_.data();
  const uint32_t* end = trie.end_.data();
  const uint32_t* first = trie.first_token_.data();
  std::vector<bool>& out = *allowed;
  for (uint32_t i = 1; i < n;) {
    const uint32_t d = depth_byte[i] >> 8;
    const auto byte = static_cast<uint8_t>(depth_byte[i]);
    uint32_t next = dfa_[at[d - 1]].next[byte];  // the cached transition, if known
    if (next == kUnknown) {
      EDGEQ_ASSIGN_OR_RETURN(next, DfaNext(at[d - 1], byte));
    }
    if (next == kDead) {
      i = end[i];
      continue;
    }
    at[d] = next;
    for (uint32_t k = first[i]; k < first[i + 1]; ++k) out[trie.tokens_[k]] = true;
    ++i;
  }
  return absl::OkStatus();
}

absl::Status Matcher::FilterTokens(const TokenTrie& trie, std::vector<bool>* allowed) const {
  allowed->assign(trie.token_count(), false);
  EDGEQ_RETURN_IF_ERROR(init_status_);
  // The cached automaton persists across calls; when it has grown past half its limit it is
  // dropped first, so that one call has room to build the states it needs.
  if (dfa_.size() > limits_.max_dfa_states / 2) {
    sets_.clear(), set_ids_.clear(), dfa_.clear(), dfa_ids_.clear();
  }
  absl::Status s = WalkTrie(trie, allowed);
  if (!s.ok()) allowed->assign(trie.token_count(), false);
  return s;
}

// Long generations create stack cells that no live stack uses; past half the limit, the live
// stacks are copied into a fresh table and the caches dropped.
void Matcher::CompactIfLarge() {
  if (nodes_.size() < limits_.max_nodes / 2) return;
  std::vector<Node> old = std::move(nodes_);
  nodes_.clear();
  intern_.clear();
  ClearCaches();
  absl::flat_hash_map<uint32_t, uint32_t> moved;
  moved[kEmpty] = kEmpty;
  for (uint32_t& s : stacks_) {
    std::vector<uint32_t> chain;
    uint32_t cur = s;
    while (moved.find(cur) == moved.end()) chain.push_back(cur), cur = old[cur].parent;
    uint32_t parent = moved[cur];
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      // Cannot fail: the live cells are fewer than the cells that existed.
      parent = *Intern(old[*it].pos, parent);
      moved[*it] = parent;
    }
    s = parent;
  }
  SortUnique(&stacks_);
}

}  // namespace grammar
}  // namespace edgeq
