#!/usr/bin/env bash
# Builds the checkpoint fuzz targets with clang (-fsanitize=fuzzer,address,undefined) and runs
# each for N seconds (or N runs) from its committed seed corpus. A crash, leak or UB report
# fails the script; the crashing input is left in $OUT/<target>/ (crash-*). OUT is --out=DIR,
# or by default a new folder per run (printed first), so that two runs never collide.
#
#   tests/fuzz/run_fuzzers.sh [--seconds=N] [--runs=N] [--jobs=N] [--out=DIR] [TARGET...]
#   TARGET: max gguf llama2c safetensors tokenizer model llm_model cli_args hf_import
#   hf_tokenizer spm_model chat_template grammar jinja (default: all)
#   model: a .max or GGUF, then qmatmul and Gather over every quantized tensor (graph, runtime
#   and every x86 kernel, each file with its Bazel -m flags; XNNPACK, cpuinfo and pthreadpool
#   from Debian's shared libraries).
#   llm_model: a GGUF into llm::ModelConfig::FromMetadata, llm::Model::Load (context 8, one
#   thread), one Forward and Prefill, and tokenizer::Tokenizer::FromGguf (the model target's sources
#   plus llm's). The sources of model, llm_model and hf_import are what Bazel links into their
#   libraries (`bazel cquery 'kind("source file", deps(...))'`, this repository's .cc files), so a
#   new .cc needs no line here; each is compiled with its ISA's flags by its path.
#   cli_args: the LLM commands' argument vectors (tools/llm_flags.h) and the sampler.
#   hf_import, hf_tokenizer, chat_template: past the parsers (issue 27): a Hugging Face directory
#   through ImportHfCheckpoint, a tokenizer.json loaded and used, chat templates detected and
#   rendered (inputs: files joined by tests/fuzz/fuzz_files.h's separator).
#   grammar: GBNF parsing, JSON schema conversion and the matcher (grammar/grammar_fuzzer.cc,
#   seeds in grammar/testdata/fuzz_corpus).
#   jinja: template text parsed and rendered within jinja::Limits (jinja/jinja_fuzzer.cc, seeds
#   in jinja/fuzz_corpus).
#
# Built outside Bazel (whose C++ toolchain here is gcc) from the sources Bazel lists; absl and
# xxhash come from Debian's static archives, like in the Bazel build.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=20
runs=""
out=""  # default: a new folder per run, so that two runs never share binaries or corpora
targets=()
for arg in "$@"; do
  case "$arg" in
    --seconds=*) seconds="${arg#*=}" ;;
    --runs=*) runs="${arg#*=}" ;;
    --out=*) out="${arg#*=}" ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    max|gguf|llama2c|safetensors|tokenizer|model|llm_model|cli_args) targets+=("$arg") ;;
    hf_import|hf_tokenizer|spm_model|chat_template|grammar|jinja) targets+=("$arg") ;;
    *) echo "run_fuzzers.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
all_targets=(max gguf llama2c safetensors tokenizer model llm_model cli_args)
all_targets+=(hf_import hf_tokenizer spm_model chat_template grammar jinja)
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")

CXX=${CXX:-clang++}
if ! command -v "$CXX" >/dev/null; then
  echo "run_fuzzers.sh: $CXX not found (clang with libFuzzer is needed)" >&2; exit 1
fi
libdir=/usr/lib/$(gcc -print-multiarch)
flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -I. -DXXH_STATIC_LINKING_ONLY -DUTF8PROC_STATIC
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
common=(checkpoint/tensor_dict.cc checkpoint/internal/file_io.cc
        checkpoint/internal/metadata_codec.cc core/bounded_input.cc core/dtype.cc core/shape.cc
        core/tensor.cc)
# The bounded JSON reader (safetensors headers, tokenizer.json).
common+=(checkpoint/internal/json_input.cc)
# The readers check quantized tensors against the encodings' table (CheckQuantizedTensor).
quant=(quantization/encoding.cc quantization/{bf16,codec_table,f16,iq4,iq4_nl,iq4_xs,k_quants,q2_k,q3_k,q4_0,q4_1,q4_k,q5_0,q5_1,q5_k,q6_k,q8_0}.cc)
declare -A lib=([max]=checkpoint/max_format.cc [gguf]=checkpoint/gguf.cc
                [llama2c]=checkpoint/llama2c.cc [safetensors]=checkpoint/safetensors.cc
                [tokenizer]="checkpoint/gguf.cc tokenizer/tokenizer.cc tokenizer/tokenizer_hf.cc
                             tokenizer/tokenizer_gguf.cc tokenizer/tokenizer_spm_file.cc
                             tokenizer/sentencepiece_model.cc tokenizer/regex.cc
                             tokenizer/unicode.cc"
                [cli_args]="tools/llm_flags.cc tools/command.cc llm/sampler.cc grammar/gbnf.cc
                            grammar/matcher.cc"
                [grammar]="grammar/gbnf.cc grammar/matcher.cc grammar/json_schema.cc
                           grammar/json_schema_util.cc grammar/json_schema_pattern.cc")
lib[jinja]="jinja/builtins.cc jinja/chat.cc jinja/filters.cc jinja/interpreter.cc jinja/lexer.cc
            jinja/operators.cc jinja/parser.cc jinja/template.cc jinja/text.cc jinja/value.cc"
lib[hf_tokenizer]="${lib[tokenizer]}"
lib[spm_model]="${lib[tokenizer]}"
# llm/chat_template.cc runs a model's own template in the Jinja engine.
lib[chat_template]="llm/chat_template.cc ${lib[jinja]}"

# The .cc files of this repository that Bazel links into the targets "$@": their transitive
# sources in the host configuration (so the kernel files are the ones Bazel builds for this
# machine), as paths. The targets built with the runtime take their sources from here, so that a
# new .cc in any library they link (an architecture, an op, a kernel) is built here too.
bazel_srcs() {
  local expr list
  expr=$(printf ' + %s' "$@")
  list=$(bazel cquery "kind('source file', deps(${expr:3}))" --output=label 2>/dev/null |
         sed -n '/^\/\//{s| (null)$||;s|^//||;s|:|/|;s|^/||;p}' | grep '\.cc$' |
         grep -v '^third_party/' | sort) || true
  if [ -z "$list" ]; then
    echo "run_fuzzers.sh: bazel cquery found no sources for $*" >&2; exit 1
  fi
  echo "$list"
}
# The model target: the readers, graph and runtime with every kernel. llm_model: the llm library
# (model, architectures, tokenizers, the other readers). hf_import: the importer, which links the
# architecture table (it names each architecture's graph builder) and the chat templates.
model_targets=(//runtime //graph //checkpoint:gguf //checkpoint:max_format)
llm_targets=(//llm:model //tokenizer:tokenizer //checkpoint)
hf_import_targets=(//convert:hf_import //llm:random_model)
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/edgeq_fuzz.XXXXXX")
mkdir -p "$out"
echo "run_fuzzers.sh: building and fuzzing in $out"

# The model target: everything from the readers to the kernels, one object per source so that
# each kernel file gets its own ISA flags (as in runtime/kernels/BUILD).
# build_model BIN [FUZZER_SOURCE EXTRA_SOURCE...] (default: the model target).
build_model() {
  local bin=$1 objs=() src f extra
  local -A seen=()
  local fuzzer=${2:-tests/fuzz/model_fuzzer.cc}
  local more=("${@:3}")
  # One object folder for every target built here: a source compiles with the same flags for
  # each, so the model and llm_model targets share the runtime's objects.
  local obj_dir="$out/model_obj"
  mkdir -p "$obj_dir"
  local avx2=(-mavx2 -mfma -mf16c)
  local plain
  read -r -d '' -a plain < <(bazel_srcs "${model_targets[@]}") || true
  [ ${#plain[@]} -gt 0 ] || exit 1
  for src in "$fuzzer" "${more[@]}" "${plain[@]}"; do
    [ -z "${seen[$src]:-}" ] || continue  # a source listed twice links once
    seen[$src]=1
    extra=()
    case "$src" in
      quantization/encoding.cc) ;;
      quantization/*) extra=(-ffp-contract=off) ;;
      runtime/kernels/x86/*_avx2.cc) extra=("${avx2[@]}") ;;
      runtime/kernels/x86/*_avxvnni.cc) extra=("${avx2[@]}" -mavxvnni) ;;
      runtime/kernels/x86/*_avx512vnni.cc)
        extra=("${avx2[@]}" -mavx512f -mavx512bw -mavx512vl -mavx512vnni) ;;
      runtime/kernels/attention/attention_avx2.cc) extra=(-mavx2 -mfma) ;;
      runtime/kernels/attention/attention_avx512.cc) extra=(-mavx2 -mfma -mavx512f) ;;
      runtime/kernels/vector/activation_avx2.cc) extra=(-mavx2 -mfma) ;;
      runtime/kernels/vector/activation_avx512.cc) extra=(-mavx2 -mfma -mavx512f) ;;
    esac
    f="$obj_dir/$(echo "$src" | tr / _).o"
    [ -f "$f" ] || "$CXX" "${flags[@]}" "${extra[@]}" -c "$src" -o "$f"
    objs+=("$f")
  done
  "$CXX" "${flags[@]}" "${objs[@]}" -o "$bin" \
    -Wl,--start-group "$libdir"/libabsl_*.a -Wl,--end-group -l:libxxhash.a -l:libutf8proc.a \
    -lXNNPACK -lcpuinfo -lpthreadpool -pthread
}

status=0
for t in "${targets[@]}"; do
  bin="$out/${t}_fuzzer"
  echo "=== $t: building $bin"
  if [ "$t" = model ]; then
    if [ "$(uname -m)" != x86_64 ]; then echo "model: x86-64 only here, skipped"; continue; fi
    build_model "$bin"
  elif [ "$t" = llm_model ]; then
    if [ "$(uname -m)" != x86_64 ]; then echo "llm_model: x86-64 only here, skipped"; continue; fi
    read -r -d '' -a llm_srcs < <(bazel_srcs "${llm_targets[@]}") || true
    [ ${#llm_srcs[@]} -gt 0 ] || exit 1
    build_model "$bin" tests/fuzz/llm_model_fuzzer.cc "${llm_srcs[@]}"
  elif [ "$t" = hf_import ]; then
    if [ "$(uname -m)" != x86_64 ]; then echo "hf_import: x86-64 only here, skipped"; continue; fi
    read -r -d '' -a llm_srcs < <(bazel_srcs "${llm_targets[@]}" "${hf_import_targets[@]}") || true
    [ ${#llm_srcs[@]} -gt 0 ] || exit 1
    build_model "$bin" tests/fuzz/hf_import_fuzzer.cc "${llm_srcs[@]}"
  else
    read -r -a srcs <<< "$(echo ${lib[$t]})"
    fuzzer="tests/fuzz/${t}_fuzzer.cc"
    [ "$t" = grammar ] && fuzzer=grammar/grammar_fuzzer.cc
    [ "$t" = jinja ] && fuzzer=jinja/jinja_fuzzer.cc
    # Each source compiles once per run (the same flags for every target): the readers, codecs
    # and common files are shared by most targets.
    objs=()
    mkdir -p "$out/plain_obj"
    for src in "$fuzzer" "${srcs[@]}" "${common[@]}" "${quant[@]}"; do
      f="$out/plain_obj/$(echo "$src" | tr / _).o"
      [ -f "$f" ] || "$CXX" "${flags[@]}" -c "$src" -o "$f"
      objs+=("$f")
    done
    "$CXX" "${flags[@]}" "${objs[@]}" -o "$bin" \
      -Wl,--start-group "$libdir"/libabsl_*.a -Wl,--end-group -l:libxxhash.a -l:libutf8proc.a \
      -lpthreadpool -pthread
  fi
  work="$out/$t"
  mkdir -p "$work/corpus"
  cp -n tests/fuzz/corpus/"$t"/* "$work/corpus/" 2>/dev/null || true
  [ "$t" = grammar ] && cp -n grammar/testdata/fuzz_corpus/* "$work/corpus/"
  [ "$t" = jinja ] && cp -n jinja/fuzz_corpus/* "$work/corpus/"
  limit=(-max_total_time="$seconds")
  [ -n "$runs" ] && limit=(-runs="$runs")
  echo "=== $t: fuzzing (${limit[*]})"
  if (cd "$work" && ASAN_OPTIONS=detect_leaks=1 "$bin" "${limit[@]}" -max_len=8192 \
        -rss_limit_mb=2048 -print_final_stats=1 corpus 2>"$work/log.txt"); then
    grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$work/log.txt" | tail -2
  else
    echo "$t: FAILED (see $work/log.txt)"; tail -30 "$work/log.txt"; status=1
  fi
done
exit $status
