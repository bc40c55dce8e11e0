#include "grammar/json_schema.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grammar/gbnf.h"
#include "grammar/matcher.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace grammar {
namespace {

using ::testing::HasSubstr;

struct Instance {
  std::string json;
  bool valid;
};

// Converts `schema`, parses the grammar, and checks every instance is accepted or rejected.
void Check(const std::string& schema, const std::vector<Instance>& instances) {
  auto gbnf = JsonSchemaToGbnf(schema);
  ASSERT_TRUE(gbnf.ok()) << gbnf.status() << "\n" << schema;
  auto g = ParseGbnf(*gbnf);
  ASSERT_TRUE(g.ok()) << g.status() << "\n" << *gbnf;
  for (const Instance& in : instances) {
    Matcher m(*g);
    const bool accepted = m.AcceptBytes(in.json).ok() && m.IsAccepting();
    EXPECT_EQ(accepted, in.valid) << "schema " << schema << "\ninstance " << in.json
                                  << "\ngrammar:\n"
                                  << *gbnf;
  }
}

TEST(JsonSchema, Primitives) {
  Check(R"({"type": "string"})", {{R"("abc")", true},
                                  {R"("a\"b\u00e9")", true},
                                  {"\"a\nb\"", false},
                                  {"42", false},
                                  {R"("abc)", false}});
  Check(R"({"type": "integer"})",
        {{"0", true}, {"-17", true}, {"1.5", false}, {"01", false}, {"\"1\"", false}});
  Check(R"({"type": "number"})", {{"3.25", true},
                                  {"-1e10", true},
                                  {"2E-3", true},
                                  {".5", false},
                                  {"1.", false},
                                  {"+1", false}});
  Check(R"({"type": "boolean"})", {{"true", true}, {"false", true}, {"True", false}});
  Check(R"({"type": "null"})", {{"null", true}, {"nil", false}});
  Check(R"({})", {{R"({"a": [1, {"b": null}]})", true}, {"\"x\"", true}, {"[1,]", false}});
}

TEST(JsonSchema, ObjectRequiredAndOptional) {
  const std::string schema = R"({
    "type": "object",
    "properties": {
      "name": {"type": "string"},
      "age": {"type": "integer"},
      "email": {"type": "string"},
      "tags": {"type": "array", "items": {"type": "string"}}
    },
    "required": ["name", "age"]
  })";
  Check(schema,
        {
            {R"({"name": "Ada", "age": 36})", true},
            {R"({"name":"Ada","age":36,"email":"a@b.c"})", true},
            {R"({"name": "Ada", "age": 36, "tags": ["x", "y"]})", true},
            {R"({"name": "Ada", "age": 36, "email": "e", "tags": []})", true},
            {"{\n  \"name\": \"Ada\",\n  \"age\": 36\n}", true},
            {R"({"age": 36, "name": "Ada"})", false},  // properties in schema order
            {R"({"name": "Ada"})", false},             // age is required
            {R"({"name": "Ada", "age": "36"})", false},
            {R"({"name": "Ada", "age": 36, "other": 1})", false},  // additionalProperties: false
            {R"({"name": "Ada", "age": 36, "tags": [1]})", false},
        });
}

TEST(JsonSchema, ManyOptionalPropertiesStayLinear) {
  std::string schema = R"({"type": "object", "properties": {)";
  for (int i = 0; i < 300; ++i) absl::StrAppend(&schema, i ? ", " : "", "\"p", i, "\": {}");
  schema += "}}";
  auto gbnf = JsonSchemaToGbnf(schema);
  ASSERT_TRUE(gbnf.ok()) << gbnf.status();
  // One kv rule and one rest rule per property, plus the primitives.
  EXPECT_LT(gbnf->size(), 120000u);
  Check(schema, {{R"({})", true},
                 {R"({"p0": 1, "p150": [true], "p299": "x"})", true},
                 {R"({"p299": 1, "p0": 2})", false},
                 {R"({"p7": 1, "p7": 2})", false}});
}

TEST(JsonSchema, AdditionalProperties) {
  Check(R"({"type": "object", "properties": {"a": {"type": "integer"}},
            "additionalProperties": {"type": "boolean"}})",
        {
            {R"({})", true},
            {R"({"a": 1})", true},
            {R"({"a": 1, "b": true, "ab": false})", true},
            {R"({"x": true})", true},
            {R"({"a": 1, "b": 2})", false},     // extra values are booleans
            {R"({"a": 1, "a": true})", false},  // a declared key never repeats as an extra
            {R"({"a": true})", false},
        });
  Check(R"({"type": "object", "additionalProperties": true})",
        {{R"({"k": [1, "v"]})", true}, {R"({})", true}, {R"([])", false}});
}

TEST(JsonSchema, ArraysAndTuples) {
  Check(R"({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3})",
        {{"[1, 2]", true},
         {"[1,2,3]", true},
         {"[1]", false},
         {"[1,2,3,4]", false},
         {"[1, \"2\"]", false},
         {"[]", false}});
  Check(R"({"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}]})",
        {{R"(["a", true])", true}, {R"(["a"])", false}, {R"([true, "a"])", false}});
  Check(R"({"type": "array", "maxItems": 0})", {{"[]", true}, {"[1]", false}});
}

TEST(JsonSchema, EnumConstAndUnions) {
  Check(R"({"enum": ["red", "green", 3, null]})",
        {{R"("red")", true}, {"3", true}, {"null", true}, {R"("blue")", false}, {"4", false}});
  Check(R"({"const": {"v": 1}})", {{R"({"v":1})", true}, {R"({"v":2})", false}});
  Check(R"({"type": ["string", "null"]})", {{R"("s")", true}, {"null", true}, {"1", false}});
  Check(R"({"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]})",
        {{"7", true}, {"[1, 2]", true}, {R"(["a"])", false}});
  Check(R"({"oneOf": [{"const": "a"}, {"const": "b"}]})",
        {{R"("a")", true}, {R"("b")", true}, {R"("c")", false}});
}

TEST(JsonSchema, StringLengthsAndFormats) {
  Check(R"({"type": "string", "minLength": 2, "maxLength": 4})", {{R"("ab")", true},
                                                                  {R"("abcd")", true},
                                                                  {R"("a")", false},
                                                                  {R"("abcde")", false},
                                                                  {R"("\u00e9\n")", true}});
  Check(R"({"type": "string", "format": "date"})",
        {{R"("2026-11-26")", true}, {R"("2026-13-01")", false}, {R"("26-11-26")", false}});
  Check(R"({"type": "string", "format": "date-time"})",
        {{R"("2026-11-26T10:50:00Z")", true},
         {R"("2026-11-26T10:50:00.123+01:00")", true},
         {R"("2026-11-26 10:50:00Z")", false}});
  Check(R"({"type": "string", "format": "uuid"})",
        {{R"("123e4567-e89b-12d3-a456-426614174000")", true},
         {R"("123e4567-e89b-12d3-a456-42661417400")", false}});
}

TEST(JsonSchema, Patterns) {
  Check(R"({"type": "string", "pattern": "^[A-Z]{2}-\\d{3,4}$"})", {{R"("AB-123")", true},
                                                                    {R"("AB-1234")", true},
                                                                    {R"("Ab-123")", false},
                                                                    {R"("AB-12")", false}});
  Check(R"({"type": "string", "pattern": "^(yes|no)(, (yes|no))*$"})",
        {{R"("yes")", true}, {R"("no, yes, no")", true}, {R"("maybe")", false}});
  // A quote in the pattern is matched in its JSON-escaped form.
  Check(R"({"type": "string", "pattern": "^say \"[a-z]+\"$"})",
        {{R"("say \"hi\"")", true}, {R"("say hi")", false}});
  Check(R"({"type": "string", "pattern": "^.{0,3}$"})",
        {{R"("")", true}, {R"("a.c")", true}, {R"("abcd")", false}});
}

TEST(JsonSchema, IntegerRanges) {
  Check(R"({"type": "integer", "minimum": 0, "maximum": 150})", {{"0", true},
                                                                 {"9", true},
                                                                 {"10", true},
                                                                 {"99", true},
                                                                 {"100", true},
                                                                 {"150", true},
                                                                 {"151", false},
                                                                 {"-1", false},
                                                                 {"1000", false}});
  Check(R"({"type": "integer", "minimum": -25, "exclusiveMaximum": 7})",
        {{"-25", true}, {"-9", true}, {"6", true}, {"7", false}, {"-26", false}, {"0", true}});
  Check(R"({"type": "integer", "minimum": 57})", {{"57", true},
                                                  {"99", true},
                                                  {"100", true},
                                                  {"123456", true},
                                                  {"56", false},
                                                  {"-60", false},
                                                  {"5", false}});
  Check(R"({"type": "integer", "exclusiveMinimum": -3.5, "maximum": -1})",
        {{"-3", true}, {"-1", true}, {"-4", false}, {"0", false}});
}

TEST(JsonSchema, RefsDefsAndRecursion) {
  Check(R"({
    "$defs": {
      "point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x", "y"]}
    },
    "type": "object",
    "properties": {"from": {"$ref": "#/$defs/point"}, "to": {"$ref": "#/$defs/point"}},
    "required": ["from", "to"]
  })",
        {{R"({"from": {"x": 0, "y": 1}, "to": {"x": 2.5, "y": -3}})", true},
         {R"({"from": {"x": 0}, "to": {"x": 2.5, "y": -3}})", false}});
  Check(R"({
    "definitions": {
      "node": {"type": "object", "properties": {"v": {"type": "integer"},
               "kids": {"type": "array", "items": {"$ref": "#/definitions/node"}}},
               "required": ["v"]}
    },
    "$ref": "#/definitions/node"
  })",
        {{R"({"v": 1, "kids": [{"v": 2}, {"v": 3, "kids": [{"v": 4}]}]})", true},
         {R"({"v": 1, "kids": [{"w": 2}]})", false}});
}

TEST(JsonSchema, AllOf) {
  Check(R"({
    "$defs": {"named": {"properties": {"name": {"type": "string"}}, "required": ["name"]}},
    "allOf": [{"$ref": "#/$defs/named"},
              {"properties": {"n": {"type": "integer"}}, "required": ["n"]}]
  })",
        {{R"({"name": "a", "n": 1})", true}, {R"({"name": "a"})", false}});
}

TEST(JsonSchema, Errors) {
  auto err = [](const std::string& schema) {
    auto g = JsonSchemaToGbnf(schema);
    EXPECT_FALSE(g.ok()) << schema;
    return g.ok() ? std::string() : std::string(g.status().message());
  };
  EXPECT_THAT(err("{"), HasSubstr("JSON schema is not valid JSON"));
  EXPECT_THAT(err(R"({"type": "object", "properties": {"a": {"not": {}}}})"),
              HasSubstr("JSON schema at /properties/a: keyword 'not' is not supported"));
  EXPECT_THAT(err(R"({"type": "strin"})"), HasSubstr("type 'strin' is not one of"));
  EXPECT_THAT(err(R"({"$ref": "https://x/y.json"})"), HasSubstr("is not local"));
  EXPECT_THAT(err(R"({"$ref": "#/$defs/missing"})"), HasSubstr("does not resolve"));
  EXPECT_THAT(err(R"({"type": "string", "pattern": "abc"})"),
              HasSubstr("must start with '^' and end with '$'"));
  EXPECT_THAT(err(R"({"type": "string", "pattern": "^(a)\\1$"})"),
              HasSubstr("escape \\1 (backreferences"));
  EXPECT_THAT(err(R"({"type": "string", "pattern": "^(?=a)$"})"), HasSubstr("lookaround"));
  EXPECT_THAT(err(R"({"type": "string", "pattern": "^(abc|[d-f]*)+x$"})"),
              HasSubstr("an unbounded repetition of a part that can match nothing"));
  EXPECT_THAT(err(R"({"$ref": "#"})"), HasSubstr("is left-recursive"));
  EXPECT_THAT(err(R"({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}},
                      "$ref": "#/$defs/a"})"),
              HasSubstr("converts to a grammar that is refused"));
  EXPECT_THAT(err(R"({"type": "array", "maxItems": 5000})"),
              HasSubstr("'maxItems' of 5000 is above the limit of 2000"));
  EXPECT_THAT(err(R"({"type": "number", "minimum": 0})"),
              HasSubstr("'minimum' is supported on integers only"));
  EXPECT_THAT(err(R"({"type": "object", "properties": {"a": {}}, "required": ["b"]})"),
              HasSubstr("required property 'b' is not in 'properties'"));
  EXPECT_THAT(err(absl::StrCat(R"({"type": "object", "additionalProperties": true,
                                  "properties": {")",
                               std::string(600, 'k'), R"(": {}}})")),
              HasSubstr("longer than 512 bytes"));
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += R"({"items": )";
  deep += "{}";
  for (int i = 0; i < 100; ++i) deep += "}";
  EXPECT_THAT(err(deep), HasSubstr("JSON schema"));
}

TEST(JsonSchema, OutputIsSortedGbnf) {
  auto g = JsonSchemaToGbnf(R"({"type": "object", "properties": {"a": {"type": "boolean"}},
                                "required": ["a"]})");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(*g,
            "a-kv ::= \"\\\"a\\\"\" space \":\" space boolean\n"
            "boolean ::= (\"true\" | \"false\") space\n"
            "root ::= \"{\" space a-kv \"}\" space\n"
            "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n");
}

}  // namespace
}  // namespace grammar
}  // namespace edgeq
