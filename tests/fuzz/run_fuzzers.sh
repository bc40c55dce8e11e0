#!/usr/bin/env bash
# Builds the checkpoint fuzz targets with clang (-fsanitize=fuzzer,address,undefined) and runs
# each for N seconds (or N runs) from its committed seed corpus. A crash, leak or UB report
# fails the script; the crashing input is left in $OUT/<target>/ (crash-*). OUT is --out=DIR,
# or by default a new folder per run (printed first), so that two runs never collide; that
# default folder is deleted when every target passed.
#
#   tests/fuzz/run_fuzzers.sh [--seconds=N] [--runs=N] [--jobs=N] [--parallel=N] [--out=DIR]
#                             [--cache=DIR | --no-cache] [TARGET...]
#   --jobs=N: compilers at once (default: nproc). --parallel=N: fuzz targets linked and run at
#   once (default 2; each still gets its N seconds). Objects are cached between runs in
#   --cache=DIR (default ${XDG_CACHE_HOME:-~/.cache}/edgeq-fuzz, outside the clone), keyed by
#   a SHA-256 of the compiler, the flags, the source and every header it included (-MD), so an
#   unchanged file is never compiled twice and an edited header recompiles what includes it;
#   entries are written by atomic rename (concurrent runs share the cache safely); those unused
#   for 14 days, and the least recently used beyond EDGEQ_FUZZ_CACHE_MB (500; one build of
#   every target is about 130 MB), are deleted. The last line is "N passed, N failed" (targets).
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
jobs=$(nproc)
parallel=2
cache=${XDG_CACHE_HOME:-$HOME/.cache}/edgeq-fuzz
targets=()
for arg in "$@"; do
  case "$arg" in
    --seconds=*) seconds="${arg#*=}" ;;
    --runs=*) runs="${arg#*=}" ;;
    --out=*) out="${arg#*=}" ;;
    --jobs=*) jobs="${arg#*=}" ;;
    --parallel=*) parallel="${arg#*=}" ;;
    --cache=*) cache="${arg#*=}" ;;
    --no-cache) cache="" ;;
    -h|--help) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    max|gguf|llama2c|safetensors|tokenizer|model|llm_model|cli_args) targets+=("$arg") ;;
    hf_import|hf_tokenizer|spm_model|chat_template|grammar|jinja) targets+=("$arg") ;;
    *) echo "run_fuzzers.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
for v in "$jobs" "$parallel"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || {
    echo "run_fuzzers.sh: --jobs/--parallel '$v': expected a positive integer" >&2; exit 2; }
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
declare -A lib=([max]="checkpoint/max_format.cc checkpoint/stored_layouts.cc" [gguf]=checkpoint/gguf.cc
                [llama2c]=checkpoint/llama2c.cc [safetensors]=checkpoint/safetensors.cc
                [tokenizer]="checkpoint/gguf.cc tokenizer/tokenizer.cc tokenizer/tokenizer_hf.cc
                             tokenizer/tokenizer_gguf.cc tokenizer/tokenizer_spm_file.cc
                             tokenizer/sentencepiece_model.cc tokenizer/regex.cc
                             tokenizer/unicode.cc"
                [cli_args]="tools/llm_flags.cc tools/command.cc llm/sampler.cc grammar/gbnf.cc
                            grammar/matcher.cc runtime/kernels/isa.cc"
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
own_out=""  # set when the folder is this run's own: deleted at the end unless a target failed
[ -n "$out" ] || { out=$(mktemp -d "${TMPDIR:-/tmp}/edgeq_fuzz.XXXXXX"); own_out=1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "run_fuzzers.sh: building and fuzzing in $out (objects: ${cache:-$out/obj, no cache})"

# src_extra SRC: the flags a source compiles with beyond $flags, by its path: each kernel file
# gets its ISA's flags (as in runtime/kernels/BUILD), the codecs GGML's -ffp-contract=off. Every
# target compiles a source with the same flags, so all of them share its object.
src_extra() {
  local avx2="-mavx2 -mfma -mf16c"
  case "$1" in
    quantization/encoding.cc) ;;
    quantization/*) echo "-ffp-contract=off" ;;
    runtime/kernels/x86/*_avx2.cc) echo "$avx2" ;;
    runtime/kernels/x86/*_avxvnni.cc) echo "$avx2 -mavxvnni" ;;
    runtime/kernels/x86/*_avx512vnni.cc)
      echo "$avx2 -mavx512f -mavx512bw -mavx512vl -mavx512vnni" ;;
    runtime/kernels/attention/attention_avx2.cc) echo "$avx2" ;;
    runtime/kernels/attention/attention_avx512.cc)
      echo "$avx2 -mavx512f -mavx512bw -mavx512vl -mavx512vnni" ;;
    runtime/kernels/vector/activation_avx2.cc) echo "-mavx2 -mfma" ;;
    runtime/kernels/vector/activation_avx512.cc) echo "-mavx2 -mfma -mavx512f" ;;
    runtime/kernels/vector/delta_rule.cc) echo "-ffp-contract=off" ;;
    runtime/kernels/vector/delta_rule_avx2.cc) echo "-mavx2 -mfma -ffp-contract=off" ;;
    runtime/kernels/vector/delta_rule_avx512.cc) echo "-mavx2 -mfma -mavx512f -ffp-contract=off" ;;
  esac
}

# compile_one SRC: compiles SRC (or finds it in the cache) and prints "SRC OBJECT". Run by xargs
# -P, so it reads its settings from the environment (FUZZ_*). Cache: dep/KEY1 lists the headers
# the source included last time (KEY1 = compiler, flags, path and text of the source); the object
# is obj/KEY2.o with KEY2 = KEY1 and the text of those headers. Files appear by rename only.
compile_one() {
  set -o pipefail
  local src=$1 extra key1 key2 manifest tmp obj
  extra=$(src_extra "$src")
  if [ -z "$FUZZ_CACHE" ]; then
    obj="$FUZZ_OUT/obj/$(echo "$src" | tr / _).o"
    [ -f "$obj" ] || $FUZZ_CXX $FUZZ_FLAGS $extra -c "$src" -o "$obj" || return 1
    echo "$src $obj"; return 0
  fi
  key1=$( { echo "$FUZZ_CXX_ID"; echo "$FUZZ_FLAGS $extra"; echo "$src"; cat "$src"; } |
          sha256sum | cut -c1-64)
  manifest="$FUZZ_CACHE/dep/$key1"
  # hash_deps: KEY2 from the header list on stdin (fails if a header is gone).
  hash_deps() {
    local -a deps; mapfile -t deps
    { echo "$key1"; [ ${#deps[@]} -eq 0 ] || sha256sum -- "${deps[@]}"; } | sha256sum | cut -c1-64
  }
  if [ -f "$manifest" ] && key2=$(hash_deps <"$manifest" 2>/dev/null) &&
     [ -f "$FUZZ_CACHE/obj/$key2.o" ]; then
    touch "$FUZZ_CACHE/obj/$key2.o" "$manifest" 2>/dev/null || true
    echo "$src $FUZZ_CACHE/obj/$key2.o"; return 0
  fi
  tmp=$(mktemp "$FUZZ_CACHE/tmp/$key1.XXXXXX")
  $FUZZ_CXX $FUZZ_FLAGS $extra -MD -MF "$tmp.d" -c "$src" -o "$tmp.o" || { rm -f "$tmp"*; return 1; }
  # The .d file: "OBJ: SRC HEADER...", continued lines; keep the headers, one per line.
  sed -e 's/^[^:]*://' -e 's/\\$//' "$tmp.d" | tr -s ' \t' '\n\n' | sed '/^$/d' |
    grep -vxF -- "$src" >"$tmp" || true
  key2=$(hash_deps <"$tmp")
  mv -f "$tmp.o" "$FUZZ_CACHE/obj/$key2.o"
  mv -f "$tmp" "$manifest"
  rm -f "$tmp.d"
  echo "$src $FUZZ_CACHE/obj/$key2.o"
}

# Each target's sources (its fuzzer first) and libraries.
declare -A srcs_of libs_of
runtime_libs="-lXNNPACK -lcpuinfo -lpthreadpool -pthread"
model_srcs=""
selected=()
for t in "${targets[@]}"; do
  case "$t" in
    model|llm_model|hf_import)
      if [ "$(uname -m)" != x86_64 ]; then echo "$t: x86-64 only here, skipped"; continue; fi
      [ -n "$model_srcs" ] || model_srcs=$(bazel_srcs "${model_targets[@]}")
      case "$t" in
        model) srcs_of[$t]="tests/fuzz/model_fuzzer.cc $model_srcs" ;;
        llm_model) srcs_of[$t]="tests/fuzz/llm_model_fuzzer.cc $(bazel_srcs "${llm_targets[@]}")
                                $model_srcs" ;;
        hf_import) srcs_of[$t]="tests/fuzz/hf_import_fuzzer.cc
            $(bazel_srcs "${llm_targets[@]}" "${hf_import_targets[@]}") $model_srcs" ;;
      esac
      libs_of[$t]=$runtime_libs ;;
    *)
      fuzzer="tests/fuzz/${t}_fuzzer.cc"
      [ "$t" = grammar ] && fuzzer=grammar/grammar_fuzzer.cc
      [ "$t" = jinja ] && fuzzer=jinja/jinja_fuzzer.cc
      srcs_of[$t]="$fuzzer ${lib[$t]} ${common[*]} ${quant[*]}"
      libs_of[$t]="-lpthreadpool -pthread"
      # --isa names the CPU's instruction sets (runtime/kernels/isa.cc reads them through cpuinfo).
      [ "$t" = cli_args ] && libs_of[$t]="-lcpuinfo ${libs_of[$t]}" ;;
  esac
  selected+=("$t")
done

# Every distinct source compiles once, $jobs at a time.
if [ -n "$cache" ]; then
  mkdir -p "$cache/dep" "$cache/obj" "$cache/tmp"
  find "$cache" -type f -mtime +14 -delete 2>/dev/null || true
  # At most EDGEQ_FUZZ_CACHE_MB (default 500) of objects: the least recently used go first.
  find "$cache/obj" -type f -printf '%T@ %s %p\n' 2>/dev/null | sort -rn |
    awk -v cap=$(( ${EDGEQ_FUZZ_CACHE_MB:-500} * 1048576 )) '(t += $2) > cap { print $3 }' |
    xargs -r rm -f || true
else
  mkdir -p "$out/obj"
fi
export FUZZ_CXX="$CXX" FUZZ_FLAGS="${flags[*]}" FUZZ_CACHE="$cache" FUZZ_OUT="$out"
FUZZ_CXX_ID=$("$CXX" --version | head -1)
export FUZZ_CXX_ID
export -f compile_one src_extra
start=$SECONDS
declare -A want obj_of
for t in "${selected[@]}"; do for src in ${srcs_of[$t]}; do want[$src]=1; done; done
if [ ${#want[@]} -gt 0 ]; then
  printf '%s\n' "${!want[@]}" | sort | xargs -r -n 1 -P "$jobs" bash -c 'compile_one "$1"' _ \
    >"$out/objects.txt" || { echo "run_fuzzers.sh: compilation failed" >&2; exit 1; }
fi
while read -r src obj; do obj_of[$src]=$obj; done <"$out/objects.txt"
echo "run_fuzzers.sh: ${#want[@]} sources compiled or found in the cache ($((SECONDS - start)) s)"

# Each target's object list (a source listed twice links once), for link_and_fuzz.
for t in "${selected[@]}"; do
  declare -A seen=()
  for src in ${srcs_of[$t]}; do
    [ -z "${seen[$src]:-}" ] || continue
    seen[$src]=1; echo "${obj_of[$src]}"
  done >"$out/$t.objects"
  unset seen
done

# link_and_fuzz TARGET: links $out/TARGET_fuzzer and runs it from its seeds in $out/TARGET;
# writes $out/TARGET/result ("passed"/"failed") and $out/TARGET/summary.
link_and_fuzz() {
  local t=$1 bin="$FUZZ_OUT/${1}_fuzzer" work="$FUZZ_OUT/$1"
  local -a objs limit=(-max_total_time="$FUZZ_SECONDS")
  [ -n "$FUZZ_RUNS" ] && limit=(-runs="$FUZZ_RUNS")
  mapfile -t objs <"$FUZZ_OUT/$t.objects"
  mkdir -p "$work/corpus"
  {
    echo "=== $t: building $bin"
    if ! $FUZZ_CXX $FUZZ_FLAGS "${objs[@]}" -o "$bin" -Wl,--start-group "$FUZZ_LIBDIR"/libabsl_*.a \
         -Wl,--end-group -l:libxxhash.a -l:libutf8proc.a ${FUZZ_LIBS[$t]:-} 2>&1; then
      echo "$t: FAILED to link"; echo failed >"$work/result"; return 0
    fi
    cp -n tests/fuzz/corpus/"$t"/* "$work/corpus/" 2>/dev/null || true
    [ "$t" = grammar ] && cp -n grammar/testdata/fuzz_corpus/* "$work/corpus/"
    [ "$t" = jinja ] && cp -n jinja/fuzz_corpus/* "$work/corpus/"
    echo "=== $t: fuzzing (${limit[*]})"
    if (cd "$work" && ASAN_OPTIONS=detect_leaks=1 "$bin" "${limit[@]}" -max_len=8192 \
          -rss_limit_mb=2048 -print_final_stats=1 corpus 2>"$work/log.txt"); then
      grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$work/log.txt" | tail -2
      echo passed >"$work/result"
    else
      echo "$t: FAILED (see $work/log.txt)"; tail -30 "$work/log.txt"; echo failed >"$work/result"
    fi
  } >"$work/summary" 2>&1
}
export FUZZ_SECONDS="$seconds" FUZZ_RUNS="$runs" FUZZ_LIBDIR="$libdir"
export -f link_and_fuzz
# Bash cannot export an associative array: pass each target's libraries in the command.
fuzz_start=$SECONDS
for t in "${selected[@]}"; do echo "$t ${libs_of[$t]}"; done |
  xargs -r -P "$parallel" -L 1 bash -c \
    'declare -A FUZZ_LIBS=(["$1"]="${*:2}"); link_and_fuzz "$1"' _ || true
passed=0
failed=0
for t in "${selected[@]}"; do
  cat "$out/$t/summary" 2>/dev/null || echo "$t: no result"
  if [ "$(cat "$out/$t/result" 2>/dev/null)" = passed ]; then passed=$((passed + 1))
  else failed=$((failed + 1)); fi
done
echo "run_fuzzers.sh: linked and fuzzed ${#selected[@]} targets, $parallel at once" \
     "($((SECONDS - fuzz_start)) s)"
if [ -n "$own_out" ] && [ "$failed" -eq 0 ]; then
  rm -rf "$out"  # ~450 MB of binaries and corpora; a failing run keeps them (crash inputs)
  echo "run_fuzzers.sh: every target passed: removed $out"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
