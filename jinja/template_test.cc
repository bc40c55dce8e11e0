// Unit tests of the Jinja engine: exact outputs of the language features chat templates use,
// the error statuses (with their messages) of bad templates, and the limits.
#include "jinja/template.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "jinja/chat.h"
#include "jinja/value.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace jinja {
namespace {

absl::StatusOr<std::string> Run(const std::string& text, const nlohmann::ordered_json& ctx = {},
                                const Limits& limits = {}) {
  absl::StatusOr<Template> t = Template::Parse(text, limits);
  if (!t.ok()) return t.status();
  RenderOptions options;
  options.clock = [] { return static_cast<std::time_t>(1721952000); };  // 2024-07-26 00:00 UTC
  return t->Render(ctx.is_null() ? Value() : Value::FromJson(ctx), options);
}

std::string Ok(const std::string& text, const nlohmann::ordered_json& ctx = {}) {
  absl::StatusOr<std::string> r = Run(text, ctx);
  EXPECT_TRUE(r.ok()) << text << " -> " << r.status();
  return r.ok() ? *r : "<error>";
}

void ExpectError(const std::string& text, absl::StatusCode code, const std::string& substring,
                 const nlohmann::ordered_json& ctx = {}, const Limits& limits = {}) {
  absl::StatusOr<std::string> r = Run(text, ctx, limits);
  ASSERT_FALSE(r.ok()) << text << " rendered " << *r;
  EXPECT_EQ(r.status().code(), code) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), substring))
      << r.status() << " lacks " << substring;
}

TEST(Jinja, TextAndOutput) {
  EXPECT_EQ(Ok("Hello {{ name }}!", {{"name", "world"}}), "Hello world!");
  EXPECT_EQ(Ok("{{ 1 + 2 * 3 }}|{{ 7 // 2 }}|{{ -7 // 2 }}|{{ 7 % 3 }}|{{ 2 ** 10 }}"),
            "7|3|-4|1|1024");
  EXPECT_EQ(Ok("{{ 7 / 2 }}|{{ 4 / 2 }}|{{ 1.5 + 1 }}|{{ 0.1 + 0.2 }}"),
            "3.5|2.0|2.5|0.30000000000000004");
  EXPECT_EQ(Ok("{{ none }}|{{ undefined_name }}|{{ true }}|{{ false }}"), "||true|false");
  EXPECT_EQ(Ok("{{ [1, 'a', none, true] }}|{{ {'k': [1, 2]} }}"),
            "[1, \"a\", null, true]|{\"k\": [1, 2]}");
  EXPECT_EQ(Ok("{{ 'a' ~ 1 ~ 2.0 }}|{{ 'x' + 1 }}"), "a12|x1");
  EXPECT_EQ(Ok("{{ 'ab' 'cd' }}"), "abcd");
  EXPECT_EQ(Ok("{{ \"\\u00e9\\n\\t\\x41\" }}"), "\xc3\xa9\n\tA");
}

TEST(Jinja, PythonPrinting) {
  absl::StatusOr<Template> t = Template::Parse(
      "{{ none }}|{{ true }}|{{ 1.0 }}|{{ 1 / 100000 }}|{{ 0.00001 }}|{{ [1, 'a', none, (2,)] }}|"
      "{{ {'k': \"it's\"} }}|{{ 'x' ~ false ~ 2.5 }}|{{ [1.5, true] | join(',') }}|"
      "{{ 100000000000000000000.0 }}|{{ '{}'.format(none) }}");
  ASSERT_TRUE(t.ok()) << t.status();
  RenderOptions python;
  python.python_printing = true;
  absl::StatusOr<std::string> r = t->Render(Value(), python);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r,
            "None|True|1.0|1e-05|1e-05|[1, 'a', None, (2,)]|{'k': \"it's\"}|xFalse2.5|1.5,True|"
            "1e+20|None");
  r = t->Render(Value());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r,
            "|true|1.0|0.00001|0.00001|[1, \"a\", null, [2]]|{\"k\": \"it's\"}|xfalse2.5|"
            "1.5,true|100000000000000000000.0|");
}

TEST(Jinja, WhitespaceControlMatchesHuggingFace) {
  // trim_blocks: the newline after a block tag goes; lstrip_blocks: the indentation before it.
  EXPECT_EQ(Ok("{% if true %}\n  yes\n{% endif %}\n"), "  yes\n");
  EXPECT_EQ(Ok("a\n    {% if true %}\nb\n    {% endif %}\nc"), "a\nb\nc");
  EXPECT_EQ(Ok("a  {{- 'b' -}}  \n c"), "abc");
  EXPECT_EQ(Ok("a {#- comment -#} b"), "ab");
  EXPECT_EQ(Ok("x {%- if true -%} y {%- endif -%} z"), "xyz");
  EXPECT_EQ(Ok("{{ 'a' }}\n{{ 'b' }}\n"), "a\nb");  // one trailing newline dropped
  EXPECT_EQ(Ok("a{% generation %}b{% endgeneration %}c"), "abc");
}

TEST(Jinja, Conditionals) {
  const char* t = "{% if x > 2 %}big{% elif x == 2 %}two{% else %}small{% endif %}";
  EXPECT_EQ(Ok(t, {{"x", 3}}), "big");
  EXPECT_EQ(Ok(t, {{"x", 2}}), "two");
  EXPECT_EQ(Ok(t, {{"x", 1}}), "small");
  EXPECT_EQ(Ok("{{ 'y' if a and not b else 'n' }}", {{"a", 1}, {"b", 0}}), "y");
  EXPECT_EQ(Ok("{{ a or 'dflt' }}|{{ [] or 'empty' }}|{{ {} and 1 }}", {{"a", ""}}),
            "dflt|empty|{}");
  EXPECT_EQ(Ok("{{ 'a' in 'cat' }}{{ 2 in [1, 2] }}{{ 'k' in {'k': 1} }}{{ 3 not in [3] }}"),
            "truetruetruefalse");
  EXPECT_EQ(Ok("{{ x in undefined_list }}", {{"x", 1}}), "false");
}

TEST(Jinja, ForLoops) {
  EXPECT_EQ(Ok("{% for x in xs %}{{ loop.index }}/{{ loop.length }}:{{ x }}"
               "{% if not loop.last %},{% endif %}{% endfor %}",
               {{"xs", {"a", "b", "c"}}}),
            "1/3:a,2/3:b,3/3:c");
  EXPECT_EQ(Ok("{% for x in [1,2,3] %}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}"
               "{{ loop.first }}|{% endfor %}"),
            "032true|121false|210false|");
  EXPECT_EQ(
      Ok("{% for x in [1,2,3] %}{{ loop.previtem }}<{{ x }}>{{ loop.nextitem }} {% endfor %}"),
      "<1>2 1<2>3 2<3> ");
  EXPECT_EQ(
      Ok("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", {{"d", {{"a", 1}, {"b", 2}}}}),
      "a=1;b=2;");
  EXPECT_EQ(Ok("{% for k in {'z': 1, 'a': 2} %}{{ k }}{% endfor %}"), "za");
  EXPECT_EQ(Ok("{% for x in [] %}x{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(Ok("{% for x in range(10) if x is odd %}{{ x }}{% endfor %}"), "13579");
  EXPECT_EQ(Ok("{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}"
               "{% if x == 5 %}{% break %}{% endif %}{{ x }}{% endfor %}"),
            "0134");
  EXPECT_EQ(Ok("{% for m in messages[::-1] %}{{ m }}{% endfor %}", {{"messages", {1, 2, 3}}}),
            "321");
}

TEST(Jinja, SetNamespaceMacroCall) {
  EXPECT_EQ(Ok("{% set a, b = 1, 2 %}{{ a }}{{ b }}"), "12");
  EXPECT_EQ(Ok("{% set ns = namespace(n=0, s='') %}{% for x in [1,2,3] %}{% set ns.n = ns.n + x %}"
               "{% endfor %}{{ ns.n }}"),
            "6");
  // A plain set inside a loop does not leak out of it.
  EXPECT_EQ(Ok("{% set n = 0 %}{% for x in [1,2] %}{% set n = x %}{% endfor %}{{ n }}"), "0");
  EXPECT_EQ(Ok("{% set block %}a{{ 1 + 1 }}b{% endset %}[{{ block }}]"), "[a2b]");
  EXPECT_EQ(Ok("{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}"
               "{{ greet('Ann') }} {{ greet('Bob', punct='?') }}"),
            "Hi Ann! Hi Bob?");
  EXPECT_EQ(Ok("{% macro wrap() %}<{{ caller() }}>{% endmacro %}{% call wrap() %}in{% endcall %}"),
            "<in>");
  EXPECT_EQ(Ok("{% macro f(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ f(1, 2, k=3) }}"),
            "1[2]{\"k\": 3}");
  EXPECT_EQ(Ok("{% filter upper %}abc{% endfilter %}"), "ABC");
  EXPECT_EQ(Ok("{% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n * fact(n - 1) | int }}"
               "{% endif %}{% endmacro %}{{ fact(5) }}"),
            "120");
}

TEST(Jinja, SubscriptsAndSlices) {
  const nlohmann::ordered_json ctx = {
      {"xs", {0, 1, 2, 3, 4}}, {"s", "h\xc3\xa9llo"}, {"d", {{"k", "v"}}}};
  EXPECT_EQ(Ok("{{ xs[1] }}{{ xs[-1] }}{{ xs[1:3] }}{{ xs[::2] }}{{ xs[::-1] }}{{ xs[-2:] }}", ctx),
            "14[1, 2][0, 2, 4][4, 3, 2, 1, 0][3, 4]");
  EXPECT_EQ(Ok("{{ s[1] }}{{ s[1:3] }}{{ s[::-1] }}{{ d.k }}{{ d['k'] }}{{ d.missing }}", ctx),
            "\xc3\xa9\xc3\xa9loll\xc3\xa9hvv");
  EXPECT_EQ(Ok("{{ xs[10] }}|{{ xs.length }}|{{ s.length }}", ctx), "|5|5");
}

TEST(Jinja, Tests) {
  EXPECT_EQ(Ok("{{ x is defined }}{{ y is undefined }}{{ none is none }}{{ 's' is string }}"
               "{{ 1 is number }}{{ {} is mapping }}{{ [] is iterable }}{{ 'a' is sequence }}",
               {{"x", 1}}),
            "truetruetruetruetruetruetruetrue");
  EXPECT_EQ(Ok("{{ true is boolean }}{{ false is false }}{{ 3 is odd }}{{ 4 is even }}"
               "{{ 9 is divisibleby(3) }}{{ 9 is divisibleby 4 }}{{ 2 is equalto 2 }}"
               "{{ x is not none }}",
               {{"x", nullptr}}),
            "truetruetruetruetruefalsetruefalse");
  EXPECT_EQ(Ok("{{ {'a': 1} is iterable }}"), "false");  // as @huggingface/jinja
}

TEST(Jinja, Filters) {
  EXPECT_EQ(Ok("{{ '  a b  ' | trim }}|{{ 'xxaxx' | trim('x') }}|{{ 'ab' | upper }}|"
               "{{ 'AB' | lower }}|{{ 'hello world' | title }}|{{ 'hello' | capitalize }}"),
            "a b|a|AB|ab|Hello World|Hello");
  EXPECT_EQ(Ok("{{ [3, 1, 2] | sort }}{{ [3,1,2] | sort(reverse=true) }}{{ [1,2] | reverse }}"
               "{{ [1,1,2] | unique }}{{ [1,2,3] | first }}{{ [1,2,3] | last }}"
               "{{ [1,2,3] | length }}{{ 'abc' | count }}{{ [1, 2] | join('-') }}"),
            "[1, 2, 3][3, 2, 1][2, 1][1, 2]13331-2");
  EXPECT_EQ(Ok("{{ x | default('d') }}{{ '' | default('e', true) }}{{ 0 | d(5) }}"), "de0");
  EXPECT_EQ(Ok("{{ ms | selectattr('role', 'equalto', 'user') | map(attribute='c') | list }}"
               "{{ ms | rejectattr('role', 'equalto', 'user') | map(attribute='c') | join }}",
               {{"ms",
                 {{{"role", "user"}, {"c", "a"}},
                  {{"role", "bot"}, {"c", "b"}},
                  {{"role", "user"}, {"c", "c"}}}}}),
            "[\"a\", \"c\"]b");
  EXPECT_EQ(Ok("{{ [1,2,3,4] | select('odd') | list }}{{ [1,2,3,4] | reject('odd') | list }}"
               "{{ ['a','b'] | map('upper') | join }}"),
            "[1, 3][2, 4]AB");
  EXPECT_EQ(
      Ok("{{ d | items | list }}{{ d | dictsort }}{{ d | length }}", {{"d", {{"b", 1}, {"a", 2}}}}),
      "[[\"b\", 1], [\"a\", 2]][[\"a\", 2], [\"b\", 1]]2");
  EXPECT_EQ(Ok("{{ '3' | int + 1 }}|{{ '2.5' | float }}|{{ 2.7 | int }}|{{ -3 | abs }}|"
               "{{ 2.567 | round(2) }}|{{ 2 | string }}|{{ 'x' | int }}"),
            "4|2.5|2|3|2.57|2|0");
  EXPECT_EQ(Ok("{{ 'a\nb\n\nc' | indent(2) }}|{{ 'a\nb' | indent(2, true) }}"),
            "a\n  b\n\n  c|  a\n  b");
  EXPECT_EQ(Ok("{{ 'a-b-c' | replace('-', '+') }}|{{ 'aaa' | replace('a', 'b', 2) }}"),
            "a+b+c|bba");
  EXPECT_EQ(Ok("{{ [1,2,3,4,5] | batch(2) | list }}|{{ 'one two  three' | wordcount }}|"
               "{{ '<a&b>' | e }}|{{ [1,2,3] | sum }}|{{ [3,1,2] | min }}{{ [3,1,2] | max }}"),
            "[[1, 2], [3, 4], [5]]|3|&lt;a&amp;b&gt;|6|13");
}

TEST(Jinja, ToJsonMatchesPythonSpacing) {
  const nlohmann::ordered_json ctx = {
      {"t", {{"name", "f"}, {"p", {1, 2.5, nullptr, "\xc3\xa9\"\n"}}}}};
  EXPECT_EQ(Ok("{{ t | tojson }}", ctx),
            "{\"name\": \"f\", \"p\": [1, 2.5, null, \"\xc3\xa9\\\"\\n\"]}");
  EXPECT_EQ(Ok("{{ t | tojson(indent=2) }}", ctx),
            "{\n  \"name\": \"f\",\n  \"p\": [\n    1,\n    2.5,\n    null,\n    "
            "\"\xc3\xa9\\\"\\n\"\n  ]\n}");
  EXPECT_EQ(Ok("{{ t | tojson(ensure_ascii=true) }}", ctx),
            "{\"name\": \"f\", \"p\": [1, 2.5, null, \"\\u00e9\\\"\\n\"]}");
  EXPECT_EQ(Ok("{{ {'b': 1, 'a': [] } | tojson(sort_keys=true, separators=(',', ':')) }}"),
            "{\"a\":[],\"b\":1}");
  EXPECT_EQ(Ok("{{ '\xf0\x9f\x98\x80' | tojson(ensure_ascii=true) }}"), "\"\\ud83d\\ude00\"");
}

TEST(Jinja, StringAndDictMethods) {
  EXPECT_EQ(
      Ok("{{ '\\nab\\n'.strip('\\n') }}|{{ 'xay'.lstrip('x') }}|{{ ' a '.rstrip() }}|"
         "{{ 'a,b,,c'.split(',') }}|{{ ' a  b '.split() }}|{{ 'a,b,c'.split(',', 1) }}|"
         "{{ 'a,b,c'.rsplit(',', 1) }}"),
      "ab|ay| a|[\"a\", \"b\", \"\", \"c\"]|[\"a\", \"b\"]|[\"a\", \"b,c\"]|[\"a,b\", \"c\"]");
  EXPECT_EQ(Ok("{{ 'abc'.startswith('ab') }}{{ 'abc'.endswith(('x', 'c')) }}{{ 'abcb'.find('b') }}"
               "{{ 'abcb'.count('b') }}{{ '-'.join(['a', 'b']) }}{{ '{} and {x}'.format(1, x=2) }}"
               "{{ 'aXa'.replace('a', 'b') }}{{ 'ab'.upper() }}"),
            "truetrue12a-b1 and 2bXbAB");
  EXPECT_EQ(Ok("{{ d.get('a') }}{{ d.get('z', 'no') }}{{ d.keys() }}{{ d.values() }}",
               {{"d", {{"a", 1}}}}),
            "1no[\"a\"][1]");
}

TEST(Jinja, Globals) {
  EXPECT_EQ(Ok("{{ range(3) }}{{ range(1, 7, 2) }}{{ range(3, 0, -1) }}"),
            "[0, 1, 2][1, 3, 5][3, 2, 1]");
  EXPECT_EQ(Ok("{{ dict(a=1, b='x') }}"), "{\"a\": 1, \"b\": \"x\"}");
  EXPECT_EQ(Ok("{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%Y-%m-%d %B %A') }}"),
            "26 Jul 2024|2024-07-26 July Friday");
  ExpectError("{{ raise_exception('Roles must alternate') }}",
              absl::StatusCode::kFailedPrecondition, "Roles must alternate");
}

TEST(Jinja, SyntaxErrorsNameTheLine) {
  ExpectError("a\n{% if x %}", absl::StatusCode::kInvalidArgument,
              "ended before {% elif or else or endif %}");
  ExpectError("{{ 'abc }}", absl::StatusCode::kInvalidArgument, "unterminated string");
  ExpectError("line1\n{{ x + }}", absl::StatusCode::kInvalidArgument, "template line 2");
  ExpectError("{% frobnicate %}", absl::StatusCode::kInvalidArgument,
              "unknown statement 'frobnicate'");
  ExpectError("{# never closed", absl::StatusCode::kInvalidArgument, "comment");
  ExpectError("{{ x | nosuchfilter }}", absl::StatusCode::kInvalidArgument,
              "filter 'nosuchfilter': unknown filter");
  ExpectError("{{ 1 is nosuchtest }}", absl::StatusCode::kNotFound, "unknown test 'nosuchtest'");
  ExpectError("{{ nothing() }}", absl::StatusCode::kInvalidArgument, "cannot call 'nothing'");
  ExpectError("{{ 1 / 0 }}", absl::StatusCode::kInvalidArgument, "division by zero");
  ExpectError("{{ 9223372036854775807 + 1 }}", absl::StatusCode::kInvalidArgument, "overflow");
  ExpectError("{% set x = 5 %}{% set x.a = 1 %}", absl::StatusCode::kInvalidArgument,
              "only of a namespace");
}

TEST(Jinja, LimitsRefuseHostileTemplates) {
  Limits small;
  small.max_loop_iterations = 1000;
  ExpectError("{% for i in range(100000) %}{% endfor %}", absl::StatusCode::kResourceExhausted,
              "max_loop_iterations", {}, small);
  ExpectError("{% for i in range(40) %}{% for j in range(40) %}{% endfor %}{% endfor %}",
              absl::StatusCode::kResourceExhausted, "loop iterations", {}, small);
  ExpectError("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
              absl::StatusCode::kResourceExhausted, "max_depth");
  Limits tiny_out;
  tiny_out.max_output_bytes = 1000;
  ExpectError(
      "{% set ns = namespace(s='ab') %}{% for i in range(30) %}"
      "{% set ns.s = ns.s + ns.s %}{% endfor %}",
      absl::StatusCode::kResourceExhausted, "max_output_bytes", {}, tiny_out);
  ExpectError("{% for i in range(2000) %}xxxxxxxxxx{% endfor %}",
              absl::StatusCode::kResourceExhausted, "max_output_bytes", {}, tiny_out);
  ExpectError("{% set ns = namespace() %}{% set ns.self = ns %}",
              absl::StatusCode::kInvalidArgument, "cannot store namespace in itself");
  ExpectError("{% set ns = namespace(l=[]) %}{% set ns.l = [1, [ns]] %}",
              absl::StatusCode::kInvalidArgument, "cannot store namespace in itself");
  ExpectError(
      "{% set ns = namespace(l=[]) %}{% for i in range(1000) %}{% set ns.l = [ns.l] %}"
      "{% endfor %}",
      absl::StatusCode::kResourceExhausted, "nested deeper than 200");
  // A list holding one list twice, doubled 40 times: refused before it can be printed.
  ExpectError(
      "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = [ns.l, ns.l] %}"
      "{% endfor %}{{ ns.l }}",
      absl::StatusCode::kResourceExhausted, "more than 1000000 values");
  ExpectError(
      "{% macro m(x, n) %}{% if n > 0 %}{{ m([x, x], n - 1) }}{% else %}{{ x }}{% endif %}"
      "{% endmacro %}{{ m([1], 35) }}",
      absl::StatusCode::kResourceExhausted, "");
  // Rebuilding a big string again and again costs its bytes.
  ExpectError(
      "{% set ns = namespace(s='0123456789abcdef') %}"
      "{% for i in range(16) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"
      "{% for i in range(100000) %}{% set t = ns.s ~ 'y' %}{% endfor %}",
      absl::StatusCode::kResourceExhausted, "loop iterations");
  Limits tiny_src;
  tiny_src.max_template_bytes = 10;
  ExpectError("{{ 'longer than ten bytes' }}", absl::StatusCode::kResourceExhausted,
              "max_template_bytes", {}, tiny_src);
  ExpectError("{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}",
              absl::StatusCode::kResourceExhausted, "nests deeper");
  ExpectError("{{ " + std::string(5000, '[') + std::string(5000, ']') + " }}",
              absl::StatusCode::kResourceExhausted, "nests deeper");
}

TEST(Jinja, RenderChatSetsHuggingFaceVariables) {
  const char* t =
      "{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}"
      "{% if tools is defined %}T{{ tools | length }}{% endif %}"
      "{% if add_generation_prompt %}<assistant>{% endif %}{{ eos_token }}{{ extra_var }}";
  const nlohmann::ordered_json messages = {{{"role", "user"}, {"content", "hi"}}};
  absl::StatusOr<std::string> r = RenderChat(t, messages, nullptr, true, std::string("<s>"),
                                             std::string("</s>"), {{"extra_var", "!"}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "<s><user>hi<assistant></s>!");
  r = RenderChat(t, messages, nlohmann::ordered_json::array({{{"type", "function"}}}), false,
                 std::nullopt, std::nullopt);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "<user>hiT1");
  EXPECT_EQ(
      RenderChat(t, {{"role", "user"}}, nullptr, true, std::nullopt, std::nullopt).status().code(),
      absl::StatusCode::kInvalidArgument);
}

TEST(Jinja, ContextFromEitherJsonType) {
  absl::StatusOr<Template> t = Template::Parse("{{ d | tojson }}{{ n }}{{ f }}");
  ASSERT_TRUE(t.ok()) << t.status();
  const nlohmann::ordered_json ordered = {{"d", {{"b", 1}, {"a", 2}}}, {"n", 3.0}, {"f", 0.5}};
  EXPECT_EQ(t->Render(Value::FromJson(ordered)).value_or("?"), "{\"b\": 1, \"a\": 2}30.5");
  const nlohmann::json sorted = {{"d", {{"b", 1}, {"a", 2}}}, {"n", 3.0}, {"f", 0.5}};
  EXPECT_EQ(t->Render(Value::FromJson(sorted)).value_or("?"), "{\"a\": 2, \"b\": 1}30.5");
  EXPECT_EQ(t->Render(Value::Int(1)).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Jinja, TemplateFromTokenizerConfig) {
  nlohmann::ordered_json config = {{"chat_template", "{{ bos_token }}x"},
                                   {"bos_token", {{"__type", "AddedToken"}, {"content", "<b>"}}},
                                   {"eos_token", "</e>"}};
  absl::StatusOr<ChatTemplateSource> src = ChatTemplateFromTokenizerConfig(config);
  ASSERT_TRUE(src.ok()) << src.status();
  EXPECT_EQ(src->text, "{{ bos_token }}x");
  EXPECT_EQ(src->bos.value_or("?"), "<b>");
  EXPECT_EQ(src->eos.value_or("?"), "</e>");
  config["chat_template"] = {{{"name", "default"}, {"template", "D"}},
                             {{"name", "tool_use"}, {"template", "T"}}};
  EXPECT_EQ(ChatTemplateFromTokenizerConfig(config, true)->text, "T");
  EXPECT_EQ(ChatTemplateFromTokenizerConfig(config, false)->text, "D");
  config.erase("chat_template");
  EXPECT_EQ(ChatTemplateFromTokenizerConfig(config).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace jinja
}  // namespace edgeq
