#include "grammar/matcher.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grammar/gbnf.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace grammar {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const Grammar> Parse(const std::string& text) {
  auto g = ParseGbnf(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : nullptr;
}

TEST(Matcher, AcceptCodePointsAndAccepting) {
  Matcher m(Parse("root ::= \"a\" [0-9]+"));
  EXPECT_FALSE(m.IsAccepting());
  EXPECT_TRUE(m.Accept('a').ok());
  EXPECT_FALSE(m.IsAccepting());
  const absl::Status bad = m.Accept('x');
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("grammar does not allow U+0078 here"));
  EXPECT_TRUE(m.Accept('7').ok());  // the failed Accept left the state as it was
  Matcher any(Parse("root ::= .*"));
  EXPECT_THAT(any.Accept(0xD800).message(), HasSubstr("0xD800 is not a Unicode scalar value"));
  EXPECT_FALSE(any.Accept(0x110000).ok());
  EXPECT_TRUE(any.Accept(0x10FFFF).ok());
  EXPECT_TRUE(m.IsAccepting());
  m.Reset();
  EXPECT_FALSE(m.IsAccepting());
  EXPECT_FALSE(m.Accept('7').ok());
}

TEST(Matcher, AcceptBytesIsAtomic) {
  Matcher m(Parse("root ::= \"ab\" \"c\"*"));
  const absl::Status s = m.AcceptBytes("abx");
  EXPECT_THAT(s.message(), HasSubstr("U+0078 at byte 2"));
  EXPECT_TRUE(m.AcceptBytes("abcc").ok());
  EXPECT_TRUE(m.IsAccepting());
  EXPECT_THAT(m.AcceptBytes("c\xFF").message(), HasSubstr("byte 1 (0xFF) is not valid UTF-8"));
  EXPECT_TRUE(m.IsAccepting());
}

TEST(Matcher, PartialUtf8AcrossCalls) {
  // € is E2 82 AC; the matcher must take it in pieces.
  Matcher m(Parse("root ::= \"x\" [€] \"y\""));
  EXPECT_TRUE(m.AcceptBytes("x\xE2").ok());
  EXPECT_FALSE(m.IsAccepting());
  EXPECT_TRUE(m.CanAccept("\x82"));
  EXPECT_FALSE(m.CanAccept("\x83"));  // E2 83 .. cannot complete to €
  EXPECT_FALSE(m.CanAccept("a"));     // not a continuation byte
  EXPECT_TRUE(m.AcceptBytes("\x82").ok());
  EXPECT_TRUE(
      m.CanAccept("\xAC"
                  "y"));
  EXPECT_FALSE(
      m.CanAccept("\xAD"
                  "y"));
  EXPECT_TRUE(m.AcceptBytes("\xAC"
                            "y")
                  .ok());
  EXPECT_TRUE(m.IsAccepting());
  // A code point while bytes are pending is refused.
  Matcher p(Parse("root ::= [€]"));
  ASSERT_TRUE(p.AcceptBytes("\xE2").ok());
  EXPECT_THAT(p.Accept('a').message(), HasSubstr("UTF-8 sequence is incomplete"));
}

TEST(Matcher, PartialUtf8CheckedAgainstClasses) {
  Matcher m(Parse("root ::= [a-z] | [\\u4e00-\\u9fff]"));
  EXPECT_TRUE(m.CanAccept("\xE4"));       // U+4000..U+4FFF overlaps U+4E00..
  EXPECT_FALSE(m.CanAccept("\xE3"));      // U+3000..U+3FFF does not
  EXPECT_FALSE(m.CanAccept("\xC3"));      // U+00C0..U+00FF does not
  EXPECT_FALSE(m.CanAccept("\xC0"));      // never valid UTF-8
  EXPECT_FALSE(m.CanAccept("\xED\xA0"));  // a surrogate
  EXPECT_FALSE(m.CanAccept(""));
  Matcher any(Parse("root ::= .+"));
  EXPECT_TRUE(any.CanAccept("\xED\x9F"));      // U+D7C0..U+D7FF
  EXPECT_FALSE(any.CanAccept("\xED\xA0"));     // only surrogates follow
  EXPECT_FALSE(any.CanAccept("\xF4\x90"));     // above U+10FFFF
  EXPECT_FALSE(any.CanAccept("\xE0\x80"));     // overlong
  EXPECT_TRUE(any.CanAccept("\xF0\x9F\x98"));  // U+1F600's first three bytes          // empty
                                               // pieces are refused, as in llama.cpp
}

TEST(Matcher, CanAcceptDoesNotChangeState) {
  Matcher m(Parse("root ::= \"hello\" | \"help\""));
  EXPECT_TRUE(m.CanAccept("hel"));
  EXPECT_TRUE(m.CanAccept("help"));
  EXPECT_FALSE(m.CanAccept("helpx"));
  EXPECT_FALSE(m.CanAccept("hex"));
  EXPECT_EQ(m.stack_count(), 2u);  // 'h' of both alternatives
  ASSERT_TRUE(m.AcceptBytes("hell").ok());
  EXPECT_TRUE(m.CanAccept("o"));
  EXPECT_FALSE(m.CanAccept("p"));
}

TEST(Matcher, FilterTokensEqualsCanAccept) {
  Matcher m(
      Parse("root ::= \"{\" ws \"\\\"\" [a-z]+ \"\\\"\" ws \":\" ws [0-9]+ ws \"}\"\n"
            "ws ::= [ \\t\\n]*\n"));
  const std::vector<std::string> pieces = {
      "{", "{\"", "{ \"",  "\"",           "a",    "ab", "abc\"", "\":", "\": 1", "1", "12}", "}",
      " ", "",    "x\xE2", "\xE2\x82\xAC", "{\"k", "{{", ":",     "\n",  "\xC3",  "9"};
  ASSERT_TRUE(m.AcceptBytes("").ok());
  for (const std::string prefix : {"", "{", "{ \"ke", "{\"k\" : 4"}) {
    Matcher at = m;
    ASSERT_TRUE(at.AcceptBytes(prefix).ok()) << prefix;
    std::vector<bool> allowed;
    ASSERT_TRUE(at.FilterTokens(pieces, &allowed).ok());
    ASSERT_EQ(allowed.size(), pieces.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
      EXPECT_EQ(allowed[i], at.CanAccept(pieces[i])) << "prefix '" << prefix << "' piece " << i;
    }
  }
  // Exact values after "{": a quote or spaces may follow.
  Matcher at = m;
  ASSERT_TRUE(at.AcceptBytes("{").ok());
  std::vector<bool> allowed;
  ASSERT_TRUE(at.FilterTokens(pieces, &allowed).ok());
  const std::vector<bool> expected = {false, false, false, true,  false, false, false, false,
                                      false, false, false, false, true,  false, false, false,
                                      false, false, false, true,  false, false};
  EXPECT_EQ(allowed, expected);
}

TEST(Matcher, TokenTrieSharesPrefixes) {
  const TokenTrie trie({"ab", "abc", "abd", "b", "ab"});
  EXPECT_EQ(trie.token_count(), 5u);
  EXPECT_EQ(trie.node_count(), 6u);  // root, a, ab, abc, abd, b
  Matcher m(Parse("root ::= \"abc\""));
  std::vector<bool> allowed;
  ASSERT_TRUE(m.FilterTokens(trie, &allowed).ok());
  EXPECT_EQ(allowed, (std::vector<bool>{true, true, false, false, true}));
}

TEST(Matcher, AmbiguityIsBounded) {
  // Every "a" can be matched by 50 different positions: the live stacks exceed the limit.
  std::string g = "root ::=";
  for (int i = 0; i < 50; ++i) g += " \"a\"?";
  MatcherLimits limits;
  limits.max_stacks = 40;
  Matcher m(Parse(g), limits);
  const absl::Status s = m.AcceptBytes("aaaa");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("grammar start expands to 51 stacks, above the limit of 40"));
  EXPECT_FALSE(m.CanAccept("a"));
  EXPECT_FALSE(m.IsAccepting());
  std::vector<bool> allowed;
  EXPECT_EQ(m.FilterTokens(std::vector<std::string>{"a"}, &allowed).code(),
            absl::StatusCode::kResourceExhausted);
  // Within the limit the same grammar works.
  Matcher ok(Parse(g));
  EXPECT_TRUE(ok.AcceptBytes(std::string(50, 'a')).ok());
  EXPECT_TRUE(ok.IsAccepting());
  EXPECT_FALSE(ok.CanAccept("a"));
}

TEST(Matcher, WithoutGrammarEverythingIsRefused) {
  Matcher m(nullptr);
  EXPECT_THAT(m.Accept('a').message(), HasSubstr("grammar::Matcher has no grammar"));
  EXPECT_FALSE(m.AcceptBytes("a").ok());
  EXPECT_FALSE(m.CanAccept("a"));
  EXPECT_FALSE(m.IsAccepting());
  std::vector<bool> allowed;
  EXPECT_FALSE(m.FilterTokens(std::vector<std::string>{"a"}, &allowed).ok());
  EXPECT_EQ(allowed, std::vector<bool>{false});
}

TEST(Matcher, AutomatonStatesAreBounded) {
  MatcherLimits limits;
  limits.max_dfa_states = 2;
  Matcher m(Parse("root ::= \"abc\" | \"abd\""), limits);
  std::vector<bool> allowed;
  const absl::Status s = m.FilterTokens(std::vector<std::string>{"abc", "x"}, &allowed);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("more than 2 automaton states"));
  EXPECT_EQ(allowed, (std::vector<bool>{false, false}));
  // With room, the same call works, and repeated calls reuse the states.
  Matcher big(Parse("root ::= \"abc\" | \"abd\""));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        big.FilterTokens(std::vector<std::string>{"abc", "x", "ab", "abdd"}, &allowed).ok());
    EXPECT_EQ(allowed, (std::vector<bool>{true, false, true, false}));
  }
}

TEST(Matcher, LongInputsCompactTheStackTable) {
  MatcherLimits limits;
  limits.max_nodes = 64;
  // Nested brackets: each level is a new stack cell.
  Matcher m(Parse("root ::= item*\nitem ::= \"[\" item* \"]\" | \"x\"\n"), limits);
  std::string text;
  for (int round = 0; round < 200; ++round) text += "[[x]x]";
  for (char c : text) ASSERT_TRUE(m.Accept(static_cast<unsigned char>(c)).ok());
  EXPECT_TRUE(m.IsAccepting());
  // Too deep to hold within 64 cells: refused, not a crash.
  Matcher deep(Parse("root ::= item*\nitem ::= \"[\" item* \"]\" | \"x\"\n"), limits);
  absl::Status s;
  for (int i = 0; i < 200 && s.ok(); ++i) s = deep.Accept('[');
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace grammar
}  // namespace edgeq
