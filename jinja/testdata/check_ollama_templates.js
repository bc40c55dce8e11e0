// Renders every chat template that @huggingface/ollama-utils lists (about 100 models' Hugging
// Face templates, in its src/chat-template-automap.ts) over conversations.json with
// @huggingface/jinja and with edgeq's engine (jinja_render --batch, one process), and checks
// that edgeq gives the same text wherever @huggingface/jinja renders. Where only
// @huggingface/jinja throws (a feature it lacks, such as looping over a string or the reject
// filter) edgeq may render: those cases are counted, not failed. Only reads installed packages.
//
// With LLM_GOLDENS (llm/testdata/chat_template_goldens.json), also checks that the ten
// templates of those goldens are in the table with the same text (sha256), as
// jinja/project_goldens_test.cc assumes.
//
//   node check_ollama_templates.js NODE_MODULES_DIR TESTDATA_DIR JINJA_RENDER TMPDIR [LLM_GOLDENS]
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");

const [npm, testdata, render, tmp, llmGoldens] = process.argv.slice(2);
if (!npm || !testdata || !render || !tmp) {
  console.error("usage: node check_ollama_templates.js NODE_MODULES_DIR TESTDATA_DIR JINJA_RENDER TMPDIR");
  process.exit(2);
}
const { Template } = require(path.join(npm, "@huggingface/jinja"));

// The table is TypeScript: drop the type import and annotation, then evaluate the literal.
const ts = fs.readFileSync(path.join(npm, "@huggingface/ollama-utils/src/chat-template-automap.ts"), "utf8");
const js = ts.replace(/^import type .*$/m, "").replace(/export const (\w+): [\w\[\]]+ =/, "module.exports =");
const mod = { exports: null };
new Function("module", js)(mod);
const entries = mod.exports;
if (!Array.isArray(entries) || entries.length < 90) {
  console.log(`FAIL: expected about 100 templates in @huggingface/ollama-utils, found ${entries && entries.length}`);
  process.exit(1);
}

let shaFailures = 0;
if (llmGoldens) {
  const models = {
    llama3: "library/dolphin-llama3:8b", qwen3: "library/qwen3:0.6b", gemma3: "library/gemma3:270m",
    qwen25: "library/qwen2.5-coder:1.5b", phi35: "library/phi3.5:3.8b", smollm2: "library/smollm2:135m",
    phi3mini: "library/nuextract:3.8b", llama31: "library/llama3.1:8b", llama32: "library/llama3.2:3b",
    llama2: "library/llama2:7b",
  };
  const g = JSON.parse(fs.readFileSync(llmGoldens, "utf8"));
  for (const [key, model] of Object.entries(models)) {
    const e = entries.find((x) => x.model === model);
    const sha = e ? crypto.createHash("sha256").update(e.gguf).digest("hex") : "missing";
    if (sha !== g.templates[key].sha256) {
      console.log(`FAIL: ${model}'s template (${sha}) is not llm goldens' ${key} (${g.templates[key].sha256})`);
      shaFailures++;
    }
  }
  console.log(`${Object.keys(models).length} templates of llm/testdata/chat_template_goldens.json ` +
    `found in the table, ${shaFailures} with a different text`);
}

const conversations = JSON.parse(fs.readFileSync(path.join(testdata, "conversations.json"), "utf8"));
const cases = [];
const batch = [];
for (const e of entries) {
  let tmpl = null, parseError = null;
  try {
    tmpl = new Template(e.gguf);
  } catch (err) {
    parseError = String(err.message);
  }
  for (const [name, c] of Object.entries(conversations)) {
    for (const agp of [false, true]) {
      const vars = Object.assign({ bos_token: "<s>", eos_token: "</s>" }, c.extra || {});
      const ctx = Object.assign({ messages: c.messages, add_generation_prompt: agp }, vars);
      if (c.tools) ctx.tools = c.tools;
      let want;
      try {
        want = tmpl ? { text: tmpl.render(ctx) } : { error: parseError };
      } catch (err) {
        want = { error: String(err.message) };
      }
      cases.push({ model: e.model, conversation: name, agp, want });
      const item = { template: e.gguf, messages: c.messages, vars, add_generation_prompt: agp };
      if (c.tools) item.tools = c.tools;
      batch.push(item);
    }
  }
}
const batchFile = path.join(tmp, "ollama_batch.json");
fs.writeFileSync(batchFile, JSON.stringify(batch));
const r = spawnSync(render, ["--batch", batchFile], { encoding: "utf8", maxBuffer: 1 << 30 });
if (r.status !== 0) {
  console.log(`FAIL: jinja_render --batch exited ${r.status}: ${r.stderr}`);
  process.exit(1);
}
const got = JSON.parse(r.stdout);
let same = 0, bothFail = 0, onlyReferenceFails = 0, failed = 0;
for (let i = 0; i < cases.length; ++i) {
  const c = cases[i], g = got[i];
  const what = `${c.model} / ${c.conversation} / add_generation_prompt ${c.agp}`;
  if ("text" in c.want && "text" in g && g.text === c.want.text) {
    same++;
  } else if ("error" in c.want && "error" in g) {
    bothFail++;
  } else if ("error" in c.want) {
    onlyReferenceFails++;
  } else {
    failed++;
    console.log(`FAIL: ${what}: edgeq ${JSON.stringify(g).slice(0, 300)}, ` +
      `@huggingface/jinja ${JSON.stringify(c.want).slice(0, 300)}`);
  }
}
console.log(`${entries.length} templates, ${cases.length} renderings: ${same} equal, ${bothFail} ` +
  `refused by both, ${onlyReferenceFails} refused by @huggingface/jinja only, ${failed} different`);
process.exit(failed === 0 && shaFailures === 0 && same > 1500 ? 0 : 1);
