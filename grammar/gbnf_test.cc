#include "grammar/gbnf.h"

#include <string>

#include "gmock/gmock.h"
#include "grammar/matcher.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace grammar {
namespace {

using ::testing::HasSubstr;

// True when the whole of `text` matches the grammar's root.
bool Matches(const std::string& gbnf, const std::string& text) {
  auto g = ParseGbnf(gbnf);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return false;
  Matcher m(*g);
  return m.AcceptBytes(text).ok() && m.IsAccepting();
}

std::string ErrorOf(const std::string& gbnf, const Limits& limits = Limits()) {
  auto g = ParseGbnf(gbnf, limits);
  EXPECT_FALSE(g.ok()) << gbnf;
  return g.ok() ? "" : std::string(g.status().message());
}

TEST(Gbnf, LiteralsSequencesAlternatives) {
  const std::string g = "root ::= \"ab\" | \"c\" \"d\"\n";
  EXPECT_TRUE(Matches(g, "ab"));
  EXPECT_TRUE(Matches(g, "cd"));
  EXPECT_FALSE(Matches(g, "a"));
  EXPECT_FALSE(Matches(g, "abcd"));
  EXPECT_FALSE(Matches(g, ""));
}

TEST(Gbnf, RepetitionOperators) {
  EXPECT_TRUE(Matches("root ::= \"a\"*", ""));
  EXPECT_TRUE(Matches("root ::= \"a\"*", "aaaa"));
  EXPECT_FALSE(Matches("root ::= \"a\"+", ""));
  EXPECT_TRUE(Matches("root ::= \"a\"+", "aaa"));
  EXPECT_TRUE(Matches("root ::= \"a\"? \"b\"", "b"));
  EXPECT_TRUE(Matches("root ::= \"a\"? \"b\"", "ab"));
  EXPECT_FALSE(Matches("root ::= \"a\"? \"b\"", "aab"));
  // A literal repeats as a whole (llama.cpp: the previous symbol is the whole string).
  EXPECT_TRUE(Matches("root ::= \"ab\"{2}", "abab"));
  EXPECT_FALSE(Matches("root ::= \"ab\"{2}", "abb"));
  const std::string braces = "root ::= [0-9]{2,4}";
  EXPECT_FALSE(Matches(braces, "1"));
  EXPECT_TRUE(Matches(braces, "12"));
  EXPECT_TRUE(Matches(braces, "1234"));
  EXPECT_FALSE(Matches(braces, "12345"));
  EXPECT_FALSE(Matches("root ::= [0-9]{3,}", "12"));
  EXPECT_TRUE(Matches("root ::= [0-9]{3,}", "1234567"));
  EXPECT_TRUE(Matches("root ::= [0-9]{0,2} \"x\"", "x"));
  EXPECT_FALSE(Matches("root ::= [0-9]{0,2} \"x\"", "123x"));
  EXPECT_TRUE(Matches("root ::= ( \"ab\" | \"c\" ){ 1 , 2 }", "cab"));
}

TEST(Gbnf, CharClassesAndEscapes) {
  const std::string g = "root ::= [a-cx\\-] [^0-9\\]] .\n";
  EXPECT_TRUE(Matches(g, "a]z") == false);
  EXPECT_TRUE(Matches(g, "-q\xE2\x82\xAC"));
  EXPECT_TRUE(Matches(g, "xQ\n"));
  EXPECT_FALSE(Matches(g, "d q"));
  EXPECT_FALSE(Matches(g, "a5 "));
  EXPECT_TRUE(Matches("root ::= \"\\x41\\u00e9\\U0001F600\\t\\n\\r\\\\\\\"\"",
                      "A\xC3\xA9\xF0\x9F\x98\x80\t\n\r\\\""));
  EXPECT_TRUE(Matches("root ::= [ぁ-ゟ]+", "\xE3\x81\x82\xE3\x82\x93"));  // あん
  EXPECT_FALSE(Matches("root ::= [ぁ-ゟ]+", "\xE3\x82\xA2"));             // ア
}

TEST(Gbnf, CommentsNewlinesAndGroups) {
  const std::string g =
      "# leading comment\n"
      "root ::= item (\n"
      "    \",\" item   # inside a group, newlines continue\n"
      "  )*\n"
      "item ::= \"x\" |\n"
      "  \"y\"\n";
  EXPECT_TRUE(Matches(g, "x,y,x"));
  EXPECT_FALSE(Matches(g, "x,"));
}

TEST(Gbnf, CrLfLineEndingsAndTabs) {
  const std::string g = "root ::=\t\"a\" rest\r\nrest ::= [0-9] |\r\n  \"z\"\r\n";
  EXPECT_TRUE(Matches(g, "a5"));
  EXPECT_TRUE(Matches(g, "az"));
  EXPECT_FALSE(Matches(g, "a"));
}

TEST(Gbnf, ReportsLineAndColumn) {
  EXPECT_THAT(ErrorOf("root ::= \"a\"\nfoo = \"b\"\n"),
              HasSubstr("grammar line 2, column 5: expected '::=' after rule name 'foo'"));
  EXPECT_THAT(ErrorOf("root ::= \"a\" bar\n"),
              HasSubstr("grammar line 1, column 14: undefined rule 'bar'"));
  EXPECT_THAT(ErrorOf("root ::= \"abc\n"), HasSubstr("string literal is never closed"));
  EXPECT_THAT(ErrorOf("root ::= [abc\n"), HasSubstr("column 10: character class '[' is never"));
  EXPECT_THAT(ErrorOf("root ::= \"\\q\""), HasSubstr("column 11: unknown escape '\\x5cq'"));
  EXPECT_THAT(ErrorOf("root ::= \"\\x4\""), HasSubstr("expected 2 hex digits after \\x"));
  EXPECT_THAT(ErrorOf("root ::= ( \"a\" \n"), HasSubstr("expected ')' to close the group"));
  EXPECT_THAT(ErrorOf("root ::= * \"a\""), HasSubstr("'*' needs a preceding symbol"));
  EXPECT_THAT(ErrorOf("root ::= \"a\"{3,2}"), HasSubstr("maximum below its minimum"));
  EXPECT_THAT(ErrorOf("root ::= \"a\"{2 x}"), HasSubstr("expected ',' or '}' in {m,n}"));
  EXPECT_THAT(ErrorOf("root ::= \"a\" )"), HasSubstr("expected a symbol, '|' or the end"));
  EXPECT_THAT(ErrorOf("item ::= \"a\""), HasSubstr("no 'root' rule"));
  EXPECT_THAT(ErrorOf("root ::= \"a\"\nroot ::= \"b\""),
              HasSubstr("line 2, column 1: rule 'root' is defined twice"));
  EXPECT_THAT(ErrorOf("root ::= <think>"), HasSubstr("token references"));
  EXPECT_THAT(ErrorOf("root ::= [z-a]"), HasSubstr("is reversed"));
  EXPECT_THAT(ErrorOf("root ::= \"\xFF\""), HasSubstr("invalid UTF-8"));
  EXPECT_THAT(ErrorOf("root ::= \"\\U00110000\""), HasSubstr("above U+10FFFF"));
}

TEST(Gbnf, RefusesLeftRecursion) {
  EXPECT_THAT(ErrorOf("root ::= expr\nexpr ::= expr \"+\" term | term\nterm ::= [0-9]\n"),
              HasSubstr("line 2, column 1: rule 'expr' is left-recursive (expr -> expr)"));
  // Through a rule that can match nothing.
  EXPECT_THAT(ErrorOf("root ::= a\na ::= b a \"x\" | \"y\"\nb ::= \"z\"?\n"),
              HasSubstr("rule 'a' is left-recursive"));
  // Indirect.
  EXPECT_THAT(ErrorOf("root ::= a\na ::= c | \"x\"\nc ::= a \"y\"\n"),
              HasSubstr("left-recursive (a -> c -> a)"));
  // Right recursion is fine.
  EXPECT_TRUE(Matches("root ::= \"(\" root \")\" | \"\"", "((()))"));
}

TEST(Gbnf, EnforcesLimits) {
  Limits small;
  small.max_input_bytes = 16;
  EXPECT_THAT(ErrorOf("root ::= \"aaaaaaaaaaaaaaaaaa\"", small), HasSubstr("above the limit"));
  EXPECT_THAT(ErrorOf("root ::= \"a\"{2001}"), HasSubstr("repetition count above 2000"));
  Limits nest;
  nest.max_nesting = 3;
  EXPECT_THAT(ErrorOf("root ::= ((((\"a\"))))", nest), HasSubstr("nested deeper than 3"));
  Limits elems;
  elems.max_elements = 1000;
  EXPECT_THAT(ErrorOf("root ::= \"ab\"{600}", elems),
              HasSubstr("expands to more than 1000 symbols"));
  Limits rules;
  rules.max_rules = 5;
  EXPECT_THAT(ErrorOf("root ::= \"a\"{0,10}", rules), HasSubstr("more than 5 rules"));
}

TEST(Gbnf, CharSetOperations) {
  CharSet s({{'d', 'f'}, {'a', 'b'}, {'c', 'c'}, {'x', 'x'}});
  ASSERT_EQ(s.ranges().size(), 2u);
  EXPECT_EQ(s.ranges()[0], std::make_pair(char32_t{'a'}, char32_t{'f'}));
  EXPECT_TRUE(s.Contains('c'));
  EXPECT_FALSE(s.Contains('g'));
  EXPECT_TRUE(s.Intersects('g', 'x'));
  EXPECT_FALSE(s.Intersects('g', 'w'));
  const CharSet c = s.Complement();
  ASSERT_EQ(c.ranges().size(), 3u);
  EXPECT_EQ(c.ranges()[2], std::make_pair(char32_t{'y'}, kMaxCodePoint));
}

TEST(Gbnf, Utf8Decoding) {
  EXPECT_EQ(DecodeUtf8("\xE2\x82\xAC").first, 0x20ACu);
  EXPECT_EQ(DecodeUtf8("\xE2\x82\xAC").second, 3u);
  EXPECT_EQ(DecodeUtf8("\xC0\x80").second, 0u);          // overlong
  EXPECT_EQ(DecodeUtf8("\xED\xA0\x80").second, 0u);      // surrogate
  EXPECT_EQ(DecodeUtf8("\xF4\x90\x80\x80").second, 0u);  // above U+10FFFF
  EXPECT_EQ(DecodeUtf8("\xE2\x82").second, 0u);          // truncated
  std::string out;
  AppendUtf8(0x1F600, &out);
  EXPECT_EQ(out, "\xF0\x9F\x98\x80");
}

TEST(Gbnf, PrintsRules) {
  auto g = ParseGbnf("root ::= \"a\" [^\"\\\\] x\nx ::= [0-9a-f] | .\n");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ((*g)->ToString(), "root ::= \"a\" [^\"\\\\] x\nx ::= [0-9a-f] | .\n");
}

}  // namespace
}  // namespace grammar
}  // namespace edgeq
