// llama.cpp's example grammars (../shared/grammars, read at test time): each parses, and
// accepts or rejects strings written here, with exact expected answers.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/bounded_input.h"
#include "gmock/gmock.h"
#include "grammar/gbnf.h"
#include "grammar/matcher.h"
#include "gtest/gtest.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace grammar {
namespace {

struct Case {
  std::string text;
  bool accepted;
};

void CheckGrammar(const std::string& path, const std::vector<Case>& cases) {
  auto text = ReadFileBounded(path, size_t{1} << 20, "grammar");
  ASSERT_TRUE(text.ok()) << text.status();
  auto g = ParseGbnf(*text);
  ASSERT_TRUE(g.ok()) << path << ": " << g.status();
  for (const Case& c : cases) {
    Matcher m(*g);
    const bool accepted = m.AcceptBytes(c.text).ok() && m.IsAccepting();
    EXPECT_EQ(accepted, c.accepted) << path << " on '" << c.text << "'";
  }
}

TEST(ExampleGrammars, Json) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "grammars/json.gbnf");
  CheckGrammar(path, {
                         {"{}", true},
                         {"{\"a\": 1}", true},
                         {"{\"a\":[1, -2.5e3, \"x\\n\", true, null, {\"b\": false}]}", true},
                         {"{\n  \"k\": \"\\u00e9\\\"\"\n}", true},
                         {"{\"emoji\": \"\xF0\x9F\x98\x80\"}", true},
                         {"[1, 2]", false},             // root is an object
                         {"{\"a\": 1,}", false},        // trailing comma
                         {"{'a': 1}", false},           // single quotes
                         {"{\"a\": 01}", false},        // leading zero
                         {"{\"a\": \"x\ty\"}", false},  // raw control character in a string
                         {"{\"a\": \"\\q\"}", false},   // unknown escape
                         {"{\"a\" 1}", false},          // missing colon
                         {"{\"a\": tru}", false},
                         {"{\"a\": 1", false},  // incomplete
                     });
}

TEST(ExampleGrammars, JsonArr) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "grammars/json_arr.gbnf");
  CheckGrammar(path, {
                         {"[\n]", true},
                         {"[\n1,\n{\"a\": [true]},\n\"s\"]", true},
                         {"[1]", false},      // the root array opens with "[\n"
                         {"[\n1,2]", false},  // and separates with ",\n"
                         {"[\n1]\n", false},  // no whitespace after the root array
                     });
}

TEST(ExampleGrammars, Arithmetic) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "grammars/arithmetic.gbnf");
  CheckGrammar(path, {
                         {"1+2= 3\n", true},
                         {"x = (a*b)\n(1)/y= z\n", true},
                         {"x = (a*b) - 4\n", false},  // one term after "="
                         {"foo_1 *bar=baz\n", true},
                         {"1+2=3", false},  // every line ends with a newline
                         {"1++2= 3\n", false},
                         {"Ab= 1\n", false},  // identifiers are lower case
                         {"= 1\n", false},
                     });
}

TEST(ExampleGrammars, List) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "grammars/list.gbnf");
  CheckGrammar(path, {
                         {"- milk\n", true},
                         {"- milk\n- eggs and ham\n", true},
                         {"- caf\xC3\xA9\n", true},
                         {"", false},
                         {"- \n", false},  // items are not empty
                         {"* milk\n", false},
                         {"- milk", false},    // missing newline
                         {"- a\rb\n", false},  // \r excluded
                         {"- a\xE2\x80\xA8"
                          "b\n",
                          false},  // U+2028 excluded
                     });
}

TEST(ExampleGrammars, C) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "grammars/c.gbnf");
  CheckGrammar(path, {
                         {"", true},
                         {"int main(){return 0;}", true},
                         {"int f(int x){int y = x*2;while(y<10){y = y+1;}return y;}", true},
                         {"float g(){if(a==b){x = 1;}else{x = 2;}// done\n}", true},
                         {"char h(){/* c */for(int i = 0; i<3; i = i+1){}}", true},
                         {"int main(){return 0}", false},     // missing ';'
                         {"void f(){}", false},               // no void type
                         {"int main(){ return 0; }", false},  // no whitespace allowed after '{'
                     });
}

TEST(ExampleGrammars, Chess) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "grammars/chess.gbnf");
  CheckGrammar(path, {
                         {"1. e4 e5\n2. Nf3 Nc6\n", true},
                         {"1. e4 e5\n2. Bxc6 dxc6\n3. O-O O-O-O\n12. e8=Q+ Kxe8#\n", true},
                         {"1. e4 e5\n", false},            // at least one more numbered move
                         {"1. e9 e5\n2. a3 a6\n", false},  // rank 9
                         {"1. Pe4 e5\n2. a3 a6\n", false},
                         {"1. e4 e5\n02. a3 a6\n", false},
                     });
}

TEST(ExampleGrammars, English) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "grammars/english.gbnf");
  CheckGrammar(path, {
                         {"Hello, world!", true},
                         {"It's 5 o'clock.\nTea\ttime?", true},
                         {"[a-b] \\ {c}", true},
                         {"Hello  world", false},  // one separator between words
                         {" Hello", false},
                         {"caf\xC3\xA9", false},  // ASCII only
                         {"", false},
                     });
}

TEST(ExampleGrammars, Japanese) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "grammars/japanese.gbnf");
  CheckGrammar(
      path,
      {
          {"\xE3\x81\x93\xE3\x82\x93\xE3\x81\xAB\xE3\x81\xA1\xE3\x81\xAF", true},  // こんにちは
          {"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x80\x82 \xE3\x82\xAB\xE3\x82\xBF", true},
          {"hello", false},
          {"\xE3\x81\x93 ", false},
      });
}

TEST(ExampleGrammars, EveryFileParses) {
  for (const char* name : {"arithmetic.gbnf", "c.gbnf", "chess.gbnf", "english.gbnf",
                           "japanese.gbnf", "json.gbnf", "json_arr.gbnf", "list.gbnf"}) {
    EDGEQ_REFERENCE_DATA_OR_SKIP(path, absl::StrCat("grammars/", name));
    auto text = ReadFileBounded(path, size_t{1} << 20, "grammar");
    ASSERT_TRUE(text.ok()) << text.status();
    auto g = ParseGbnf(*text);
    ASSERT_TRUE(g.ok()) << name << ": " << g.status();
    EXPECT_EQ((*g)->rule_name((*g)->root()), "root");
  }
}

}  // namespace
}  // namespace grammar
}  // namespace edgeq
