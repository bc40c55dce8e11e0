#!/usr/bin/env bash
# Keeps the selective build small (README, "Footprint"): libedgeq.so built with
# --config=aarch64 --config=selective (llama only, q4_0 + q8_0, NEON/dotprod/i8mm, GGUF only, no
# chat templates, no grammars, no graph C API or checkpoint writer, no encoder models), stripped,
# must stay under LIMIT bytes, and the tables must really have compiled down: the layer functions
# of the architectures left out, the ops no kept architecture uses, the graph C API and checkpoint
# writer, the encoders and the grammar matcher are not in the library.
#   selective_footprint_test.sh LIMIT   ("not-selective": built without --config=selective)
source tests/shell/check.sh
set -uo pipefail
limit="$1"
if [ "$limit" = not-selective ]; then
  check "built with --config=aarch64 --config=selective (tools/test.sh's aarch64 stage)" false
  finish
fi
lib=sdk/libedgeq.so
out="$TEST_TMPDIR/libedgeq.so.stripped"
aarch64-linux-gnu-strip -o "$out" "$lib" || check "strip $lib" false
size=$(stat -L -c %s "$out")
echo "selective libedgeq.so: $(stat -L -c %s "$lib") bytes, stripped $size bytes (limit $limit)"
check "selective libedgeq.so stripped <= $limit bytes" test "$size" -le "$limit"
# The unstripped library keeps its local symbols: what the linker kept.
symbols=$(aarch64-linux-gnu-nm -C "$lib")
has() { grep -q -- "$1" <<<"$symbols"; }
lacks() { ! has "$1"; }
check "the llama layer is in" has "arch::LlamaLayer("
for fn in Gemma3Layer Gemma4Layer Lfm2Layer Qwen35Layer Smollm3Layer; do
  check "$fn is left out" lacks "arch::$fn("
done
check "the q4_0 dotprod kernel is in" has "kQ4_0DotprodGemv"
for k in kQ4_KDotprodGemv kQ6_KNeonGemv kIq4NlDotprodGemv kQ4_KGenericGemv; do
  check "$k is left out" lacks "$k"
done
check "no JSON schema converter" lacks "grammar::JsonSchemaToGbnf"
check "no Jinja engine" lacks "jinja::"
check "no safetensors reader" lacks "checkpoint::ReadSafetensorsFromBuffer"
check "the GGUF reader is in" has "checkpoint::ReadGgufFromBuffer"
check "no graph C API (graph_c.cc)" lacks "edgeq_graph::"
check "the graph C API's stubs are exported" has "T edgeq_graph_op_with_attributes"
check "no checkpoint writer (save_c.cc)" lacks "checkpoint::WriteCheckpoint("
check "the checkpoint writer's stubs are exported" has "T edgeq_tensor_dict_set"
check "the rms_norm op is in" has "RmsNormKernel::Run"
for k in MoeKernel::Run SsmConvKernel::Run; do
  check "the op of $k is left out" lacks "$k"
done
check "no grammar matcher" lacks "grammar::Matcher::FilterTokens"
check "no grammar matcher state (the sampler's matcher behind a pointer)" \
  lacks "grammar::Matcher::Reset("
check "no per-layer embeddings (Gemma 4's)" lacks "arch::Gemma4PerLayerInputs("
check "no encoder models" lacks "arch::BuildEncoderGraph("
# Only the kept encodings' quantizers (quantization/codec_table.cc), no MoE graph builder without
# the moe op (llm/arch/common.cc), no llama2.c tokenizer without the llama2c format
# (tokenizer/text_tokenizer.cc), no generic attention kernel on aarch64.
for q in QuantizeRowQ4_0 QuantizeRowQ8_0; do
  check "the $q quantizer is in" has "quantization_internal::$q("
done
for q in QuantizeRowQ4_K QuantizeRowQ6_K QuantizeRowQ2_K QuantizeRowIq4Nl QuantizeRowF16; do
  check "the $q quantizer is left out" lacks "quantization_internal::$q("
done
check "the dequantizers stay" has "quantization_internal::DequantizeRowQ6_K("
check "no MoE feed-forward" lacks "arch::MoeFeedForward("
check "no llama2.c tokenizer reader" lacks "checkpoint::ReadLlama2cTokenizer"
check "no llama2.c tokenizer" lacks "Llama2cTokenizer::ForModel"
check "no generic attention kernel" lacks "AttendRows<.*GenericOps>"
check "the embedder's stubs are exported" has "T edgeq_embedder_load"
finish
