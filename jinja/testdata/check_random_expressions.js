// Differential test: random expressions over literals, variables, operators, filters, tests,
// slices and methods (a fixed pseudo-random sequence per seed), rendered as `{{ expr }}` by
// @huggingface/jinja and by edgeq (jinja_render --batch, one process). Wherever the reference
// renders, edgeq must give the same text; where only edgeq refuses, the reason must be one it
// documents (division by zero, which JavaScript turns into Infinity/NaN).
//
//   node check_random_expressions.js NODE_MODULES_DIR JINJA_RENDER TMPDIR SEED...
"use strict";
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");

const [npm, render, tmp, ...seeds] = process.argv.slice(2);
if (!npm || !render || !tmp || seeds.length === 0) {
  console.error("usage: node check_random_expressions.js NODE_MODULES_DIR JINJA_RENDER TMPDIR SEED...");
  process.exit(2);
}
const { Template } = require(path.join(npm, "@huggingface/jinja"));

const atoms = ["1", "2", "0", "-3", "2.5", "0.1", "1.0", "3.0", "-0.0", "12345678.9",
  "0.30000000000000004", "100000000000000000000000.0", "'ab'", "'A b'", "''", "'%'", "true",
  "false", "none", "[1, 2]", "[]", "(1, 2)", "{'a': 1}", "x", "y", "s", "l", "d", "undefined_var",
  "s[1:3]", "s[::2]", "l[::-1]", "l[-1]", "s.split(' ')", "s.startswith('He')", "s.strip()",
  "d.items()", "d.keys()", "d.get('a')", "l|length", "range(3)"];
const binary = ["+", "-", "*", "/", "//", "%", "**", "~", "==", "!=", "<", ">", "<=", ">=", "and",
  "or", "in", "not in"];
const filters = ["length", "upper", "lower", "trim", "first", "last", "string", "int", "float",
  "abs", "tojson", "list", "reverse", "sort", "unique", "join", "items", "title", "capitalize",
  "default('z')", "join('-')", "tojson(indent=2)", "round", "count", "safe", "indent(2)",
  "replace('a','b')"];
const tests = ["defined", "undefined", "none", "string", "number", "integer", "iterable", "mapping",
  "sequence", "boolean", "true", "false", "odd", "even", "lower", "upper"];
const context = { x: 5, y: -2.5, s: "Hello World", l: [3, 1, 2], d: { b: 2, a: 1 } };

let failed = 0, total = 0, same = 0;
for (const seedText of seeds) {
  let seed = Number(seedText);
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const expr = (d) => {
    const r = rnd(10);
    if (d > 3 || r < 3) return atoms[rnd(atoms.length)];
    if (r < 6) return `(${expr(d + 1)} ${binary[rnd(binary.length)]} ${expr(d + 1)})`;
    if (r < 8) return `(${expr(d + 1)} | ${filters[rnd(filters.length)]})`;
    if (r < 9) return `(${expr(d + 1)} is ${rnd(2) ? "not " : ""}${tests[rnd(tests.length)]})`;
    return `(${expr(d + 1)} if ${expr(d + 1)} else ${expr(d + 1)})`;
  };
  const cases = [];
  for (let i = 0; i < 4000; ++i) {
    const text = `{{ ${expr(0)} }}`;
    let want;
    try {
      want = { text: new Template(text).render(context) };
    } catch (e) {
      want = { error: String(e.message) };
    }
    cases.push({ text, want });
  }
  const batchFile = path.join(tmp, `expressions_${seedText}.json`);
  fs.writeFileSync(batchFile, JSON.stringify(cases.map((c) => ({
    template: c.text, messages: [], vars: context, add_generation_prompt: false }))));
  const r = spawnSync(render, ["--batch", batchFile], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.status !== 0) {
    console.log(`FAIL: jinja_render --batch exited ${r.status}: ${r.stderr}`);
    process.exit(1);
  }
  const got = JSON.parse(r.stdout);
  cases.forEach((c, i) => {
    ++total;
    const g = got[i];
    if (!("text" in c.want)) return;  // the reference refuses: edgeq may render or refuse
    if ("text" in g && g.text === c.want.text) {
      ++same;
    } else if ("error" in g && /division by zero/.test(g.error)) {
      // documented: Python's ZeroDivisionError where JavaScript gives Infinity or NaN
    } else {
      ++failed;
      console.log(`FAIL: ${c.text}: edgeq ${JSON.stringify(g)}, @huggingface/jinja ${JSON.stringify(c.want)}`);
    }
  });
}
console.log(`${total} expressions, ${same} rendered alike, ${failed} different`);
process.exit(failed === 0 && same > total / 3 ? 0 : 1);
