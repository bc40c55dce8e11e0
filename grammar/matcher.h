// Incremental matching of text against a grammar, for constrained sampling.
//
//   EDGEQ_ASSIGN_OR_RETURN(auto g, grammar::ParseGbnf(text));
//   grammar::Matcher m(g);
//   grammar::TokenTrie trie(vocab_pieces);          // once per vocabulary
//   std::vector<bool> allowed;
//   EDGEQ_RETURN_IF_ERROR(m.FilterTokens(trie, &allowed));   // mask the logits
//   ... pick token t among the allowed (an end-of-generation token only if m.IsAccepting()) ...
//   EDGEQ_RETURN_IF_ERROR(m.AcceptBytes(vocab_pieces[t]));
//
// The state is a set of pushdown stacks as in llama.cpp's llama_grammar: each stack holds the
// positions still to match, its top a character class; a code point keeps the stacks whose top
// matches it, pops that position and expands rule references until every top is a class again.
// Stacks are shared, hash-consed linked lists, so equal stacks are one id, and the expansion
// that follows each stack top is computed once and cached; this is what makes masking a vocabulary
// cheap: FilterTokens walks a prefix trie of the pieces, so a prefix shared by many pieces is
// matched once, and a subtree is dropped as soon as no stack survives. The walk runs on a byte
// automaton built lazily from the stacks: a state is a set of stacks plus a pending partial
// UTF-8 sequence, with 256 cached transitions, so a step inside a JSON string (where most
// pieces are allowed) is one table look-up, and the states carry over from one call to the next.
//
// Bytes are decoded as UTF-8 across calls: a piece may end inside a code point, and the next one
// completes it. A piece that ends inside a code point is allowed when some completion of it could
// match. Invalid UTF-8 (stray continuation bytes, overlong forms, surrogates) never matches.
//
// A Matcher is a value (copy it to branch). It is not safe for concurrent use, not even its const
// methods, which grow its stack cache.
#ifndef EDGEQ_GRAMMAR_MATCHER_H_
#define EDGEQ_GRAMMAR_MATCHER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "grammar/gbnf.h"

namespace edgeq {
namespace grammar {

struct MatcherLimits {
  size_t max_stacks = 4096;            // live stacks after one code point (ambiguity)
  size_t max_nodes = size_t{1} << 22;  // stack cells held at once (memory)
  size_t max_dfa_states = 8192;        // cached byte-automaton states (1 KiB each)
};

// The pieces of a vocabulary (token id -> bytes) as a prefix trie in depth-first order, built
// once and reused for every FilterTokens call: node i's subtree is [i, end(i)), so a walk skips
// a dead subtree in one step.
class TokenTrie {
 public:
  // Longer pieces are left out of the trie: FilterTokens never allows them.
  static constexpr size_t kMaxPieceBytes = size_t{1} << 16;

  explicit TokenTrie(const std::vector<std::string>& pieces);
  size_t token_count() const { return token_count_; }
  size_t node_count() const { return end_.size(); }

 private:
  friend class Matcher;
  // Per node, in depth-first order (node 0 is the empty prefix); node_count() + 1 entries in
  // first_token_, so that node i's pieces are tokens_[first_token_[i], first_token_[i + 1]).
  std::vector<uint32_t> depth_byte_;  // length in bytes << 8 | the byte leading to the node
  std::vector<uint32_t> end_;         // one past the last node of its subtree
  std::vector<uint32_t> first_token_;
  std::vector<uint32_t> tokens_;
  size_t token_count_ = 0;
  uint32_t max_depth_ = 0;
};

class Matcher {
 public:
  explicit Matcher(std::shared_ptr<const Grammar> grammar,
                   const MatcherLimits& limits = MatcherLimits());

  // Consumes one code point. InvalidArgument when the grammar does not allow it here,
  // ResourceExhausted when a limit is hit; the state is unchanged on error.
  absl::Status Accept(char32_t code_point);
  // Consumes bytes, which may start or end inside a UTF-8 sequence. On error (a byte sequence
  // that is not UTF-8, or a code point not allowed) the state is unchanged.
  absl::Status AcceptBytes(absl::string_view bytes);
  // True when the text so far is a complete match of root (no partial code point pending).
  bool IsAccepting() const;
  // True when AcceptBytes(token_bytes) would succeed (false for empty bytes, as llama.cpp
  // refuses empty pieces). Does not change the state.
  bool CanAccept(absl::string_view token_bytes) const;
  // allowed->at(i) = CanAccept(pieces[i]) for every piece, sharing work between pieces with a
  // common prefix. The overload with a prebuilt trie is the one to use per sampling step.
  absl::Status FilterTokens(const std::vector<std::string>& pieces,
                            std::vector<bool>* allowed) const;
  absl::Status FilterTokens(const TokenTrie& trie, std::vector<bool>* allowed) const;
  // Back to the start of root.
  void Reset();

  // Number of live stacks (for tests and diagnostics).
  size_t stack_count() const { return stacks_.size(); }
  const Grammar& grammar() const { return *grammar_; }  // requires a grammar

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;  // the empty stack: root fully matched
  struct Node {
    uint32_t pos;     // index in grammar().elements(), never a kEnd
    uint32_t parent;  // the rest of the stack, kEmpty at the bottom
  };
  struct Utf8 {
    uint32_t value = 0;
    int remaining = 0;  // continuation bytes still expected
    int length = 0;     // of the whole sequence
  };
  enum class ByteResult { kPending, kCodePoint, kInvalid };

  absl::StatusOr<uint32_t> Intern(uint32_t pos, uint32_t parent) const;
  absl::Status Expand(uint32_t stack, std::vector<uint32_t>* out) const;
  // The stacks after the top of `leaf` matched a code point (cached per leaf).
  absl::Status Step(uint32_t leaf, uint32_t* first, uint32_t* count) const;
  absl::Status Advance(const std::vector<uint32_t>& in, char32_t c,
                       std::vector<uint32_t>* out) const;
  static ByteResult FeedByte(Utf8* state, uint8_t byte, char32_t* code_point);
  bool PartialCanMatch(const std::vector<uint32_t>& stacks, const Utf8& state) const;
  // Byte automaton (see the file comment); kDead for no state.
  static constexpr uint32_t kDead = 0xFFFFFFFFu;
  static constexpr uint32_t kUnknown = 0xFFFFFFFEu;
  struct DfaState {
    uint32_t set;  // index in sets_
    Utf8 partial;
    uint32_t next[256];
  };
  absl::StatusOr<uint32_t> DfaStateOf(const std::vector<uint32_t>& stacks,
                                      const Utf8& partial) const;
  absl::StatusOr<uint32_t> DfaNext(uint32_t state, uint8_t byte) const;
  absl::Status WalkTrie(const TokenTrie& trie, std::vector<bool>* allowed) const;
  void ClearCaches() const;
  absl::Status Initialize();
  void CompactIfLarge();

  std::shared_ptr<const Grammar> grammar_;
  MatcherLimits limits_;
  std::vector<uint32_t> stacks_;  // sorted leaf stack ids
  Utf8 partial_;
  absl::Status init_status_;

  // Hash-consed stack cells and the per-leaf step cache (grown by const methods).
  mutable std::vector<Node> nodes_;
  mutable absl::flat_hash_map<uint64_t, uint32_t> intern_;
  mutable absl::flat_hash_map<uint32_t, std::pair<uint32_t, uint32_t>> step_cache_;
  mutable std::vector<uint32_t> step_store_;
  mutable std::vector<std::vector<uint32_t>> sets_;
  mutable absl::flat_hash_map<std::vector<uint32_t>, uint32_t> set_ids_;
  mutable std::vector<DfaState> dfa_;
  mutable absl::flat_hash_map<uint64_t, uint32_t> dfa_ids_;
};

}  // namespace grammar
}  // namespace edgeq

#endif  // EDGEQ_GRAMMAR_MATCHER_H_
