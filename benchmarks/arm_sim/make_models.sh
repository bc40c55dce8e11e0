#!/usr/bin/env bash
# Makes the GGUF files whole_model.py measures: random-weight f32 files of the 166M llama shape
# and the Qwen3-0.6B shape (make_random_gguf), quantized to Q4_0, Q4_K_M and Q8_0.
#
#   bazel build //llm/tools:make_random_gguf //tools:edgeq
#   benchmarks/arm_sim/make_models.sh OUT_DIR [QWEN3_LAYERS (default 28)] [LLAMA_QUANTIZE]
#
# With LLAMA_QUANTIZE (a host llama-quantize) the files are made by it (`llama-quantize F32 OUT
# TYPE`). Without it, `edgeq quantize --rules` writes each tensor in the type llama-quantize
# d32676d7 picks for that file type (rules below: Q4_0 puts the classifier, or a tied embedding,
# in q6_k; Q4_K_M puts attn_v and ffn_down of the layers its use_more_bits() picks, and the
# classifier, in q6_k; Q8_0 is q8_0 throughout), with edgeq's codecs, which are bit-exact with
# ggml's reference quantizers.
set -euo pipefail

out="${1:?usage: make_models.sh OUT_DIR [QWEN3_LAYERS] [LLAMA_QUANTIZE]}"
qwen_layers="${2:-28}"
llama_quantize="${3:-}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
make_gguf="$repo/bazel-bin/llm/tools/make_random_gguf"
edgeq="$repo/bazel-bin/tools/edgeq"
for tool in "$make_gguf" "$edgeq"; do
  if [ ! -x "$tool" ]; then
    echo "make_models: $tool not built (bazel build //llm/tools:make_random_gguf //tools:edgeq)" >&2
    exit 1
  fi
done
mkdir -p "$out"

# llama-quantize's use_more_bits(i, n): the first and last eighth of the layers and every third
# layer between them.
more_bits_layers() {
  local n="$1" i
  for ((i = 0; i < n; i++)); do
    if ((i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2)); then echo "$i"; fi
  done
}

# rules TYPE LAYERS TIED
rules() {
  local type="$1" layers="$2" tied="$3" classifier=output.weight
  [ "$tied" = 1 ] && classifier=token_embd.weight
  case "$type" in
    q4_0) printf '%s -> q6_k\n* -> q4_0\n' "$classifier" ;;
    q8_0) printf '* -> q8_0\n' ;;
    q4_k_m)
      for i in $(more_bits_layers "$layers"); do
        printf 'blk.%d.attn_v.weight -> q6_k\nblk.%d.ffn_down.weight -> q6_k\n' "$i" "$i"
      done
      printf '%s -> q6_k\n* -> q4_k\n' "$classifier" ;;
  esac
}

# name, make_random_gguf flags, layers, tied
make_file() {
  local name="$1" flags="$2" layers="$3" tied="$4" type
  local f32="$out/$name-f32.gguf"
  # shellcheck disable=SC2086
  [ -f "$f32" ] || "$make_gguf" $flags --synthetic_vocab --out="$f32"
  for type in q4_0 q4_k_m q8_0; do
    local dst="$out/$name-$type.gguf"
    [ -f "$dst" ] && continue
    if [ -n "$llama_quantize" ]; then
      "$llama_quantize" "$f32" "$dst" "$(echo "$type" | tr a-z A-Z)" >"$dst.log" 2>&1
    else
      rules "$type" "$layers" "$tied" >"$out/rules_$name-$type.txt"
      "$edgeq" quantize "$f32" "$dst" --rules="$out/rules_$name-$type.txt" --quiet >"$dst.log"
    fi
    echo "$dst"
  done
}

make_file 166m "--shape=tinyllama-1.1b --dim=1024 --heads=16 --kv_heads=16 --ffn=2816 --layers=8 \
--vocab_size=32000" 8 0
make_file "qwen3-0.6b-l$qwen_layers" "--shape=qwen3-0.6b --layers=$qwen_layers" "$qwen_layers" 1
