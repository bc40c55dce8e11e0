// Differential test of statements and white space: random templates of text runs (spaces, tabs,
// newlines), {{ }} with and without `-`, if/elif/else, for (tuple targets, `if` filters, else,
// loop variables), set (names and namespace attributes), comments, a macro and its calls, built
// from a fixed pseudo-random sequence per seed, rendered by @huggingface/jinja and by edgeq
// (jinja_render --batch, one process). Wherever the reference renders, edgeq must give the same
// bytes (where it refuses, e.g. a loop over a string, edgeq may render, as Jinja2 does).
//
//   node check_random_templates.js NODE_MODULES_DIR JINJA_RENDER TMPDIR SEED...
"use strict";
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");

const [npm, render, tmp, ...seeds] = process.argv.slice(2);
if (!npm || !render || !tmp || seeds.length === 0) {
  console.error("usage: node check_random_templates.js NODE_MODULES_DIR JINJA_RENDER TMPDIR SEED...");
  process.exit(2);
}
const { Template } = require(path.join(npm, "@huggingface/jinja"));

const texts = ["a", "\n", "  ", "\t", "b\n  ", "\n\n", "  \n", "x y", " \n \t"];
const exprs = ["x", "l", "s", "ns.k", "loop.index", "loop.first", "m.role", "m.content", "v",
  "l|length", "s[0]", "x+1", "none", "'q'", "m", "d.a", "mac(x)", "mac(v, b='B')"];
const iterables = ["l", "messages", "d", "range(3)", "[]", "d.items()", "s"];
const vars = { x: 5, l: [3, 1, 2], s: "Hi", d: { a: 1, b: 2 } };
const messages = [{ role: "user", content: " hey " }, { role: "assistant", content: "yo\n" }];

let failed = 0, total = 0, same = 0;
for (const seedText of seeds) {
  let seed = Number(seedText);
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pick = (a) => a[rnd(a.length)];
  const open = () => pick(["{%", "{%-"]), close = () => pick(["%}", "-%}"]);
  const expr = () => `${pick(["{{", "{{-"])}${pick(["", " ", "  "])}${pick(exprs)}` +
    `${pick(["", " "])}${pick(["}}", "-}}"])}`;
  const block = (d) => {
    let out = "";
    for (let n = 1 + rnd(4); n > 0; --n) out += statement(d);
    return out;
  };
  const statement = (d) => {
    const r = rnd(13);
    if (d > 2 || r < 3) return pick(texts);
    if (r < 5) return expr();
    if (r < 7) {
      return `${open()} if ${pick(exprs)} ${close()}${block(d + 1)}` +
        (rnd(2) ? `${open()} elif ${pick(exprs)} ${close()}${block(d + 1)}` : "") +
        (rnd(2) ? `${open()} else ${close()}${block(d + 1)}` : "") + `${open()} endif ${close()}`;
    }
    if (r < 9) {
      const it = pick(iterables);
      const target = it === "d.items()" ? "k, v" : it === "messages" ? "m" : "v";
      return `${open()} for ${target} in ${it}${rnd(3) === 0 ? " if v" : ""} ${close()}` +
        `${block(d + 1)}${rnd(3) === 0 ? `${open()} else ${close()}${block(d + 1)}` : ""}` +
        `${open()} endfor ${close()}`;
    }
    if (r < 10) return `${open()} set ns.k = ${pick(exprs)} ${close()}`;
    if (r < 11) return `{#${rnd(2) ? "-" : ""} c ${rnd(2) ? "-" : ""}#}`;
    if (r < 12) return `${open()} call mac(${pick(["1", "x", "s"])}) ${close()}${block(d + 1)}${open()} endcall ${close()}`;
    return `${open()} set v = ${pick(exprs)} ${close()}`;
  };
  const cases = [];
  for (let i = 0; i < 3000; ++i) {
    const macro = `{% macro mac(a, b=2) %}${pick(texts)}[{{ a }}|{{ b }}]${pick(texts)}{% endmacro %}`;
    const text = `{% set ns = namespace(k=0) %}${macro}${pick(texts)}${block(0)}${pick(texts)}` +
      (rnd(2) ? "\n" : "");
    let want;
    try {
      want = { text: new Template(text).render(Object.assign({ messages }, vars)) };
    } catch (e) {
      want = { error: String(e.message) };
    }
    cases.push({ text, want });
  }
  const batchFile = path.join(tmp, `templates_${seedText}.json`);
  fs.writeFileSync(batchFile, JSON.stringify(cases.map((c) => ({
    template: c.text, messages, vars, add_generation_prompt: false }))));
  const r = spawnSync(render, ["--batch", batchFile], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.status !== 0) {
    console.log(`FAIL: jinja_render --batch exited ${r.status}: ${r.stderr}`);
    process.exit(1);
  }
  const got = JSON.parse(r.stdout);
  cases.forEach((c, i) => {
    ++total;
    if (!("text" in c.want)) return;
    if ("text" in got[i] && got[i].text === c.want.text) {
      ++same;
    } else {
      ++failed;
      console.log(`FAIL: ${JSON.stringify(c.text)}: edgeq ${JSON.stringify(got[i])}, ` +
        `@huggingface/jinja ${JSON.stringify(c.want)}`);
    }
  });
}
console.log(`${total} templates, ${same} rendered alike, ${failed} different`);
process.exit(failed === 0 && same > total / 2 ? 0 : 1);
