/* edgeq C API (C99). Quantize and dequantize rows, read and write checkpoints, run a qmatmul on
 * your own buffers, build graphs and run them in sessions, and load/tokenize/generate with edgeq's
 * llm library, from any language with a C FFI.
 *
 *   edgeq_llm* llm;
 *   if (edgeq_llm_load("stories260K.gguf", NULL, &llm) != EDGEQ_OK)
 *     fprintf(stderr, "%s\n", edgeq_last_error());
 *
 * Conventions:
 * - Every fallible call returns an edgeq_status; EDGEQ_OK is 0. On failure, edgeq_last_error()
 *   gives a message for the calling thread (valid until that thread's next edgeq call).
 * - Handles are opaque; each *_open/*_load has a matching *_close/*_free (NULL is accepted).
 * - Buffers are the caller's; sizes are in elements unless a name ends in _bytes. A call that
 *   fills a caller buffer and is given one too small returns EDGEQ_ERROR_BUFFER_TOO_SMALL and
 *   reports the size needed through its out-parameter.
 * - Thread safety: functions marked [any thread] may be called concurrently. A handle may be
 *   used by one thread at a time unless marked [shared]: concurrent calls on the same handle
 *   need the caller's lock. Different handles are independent.
 * - No C++ exception or type crosses this interface. */
#ifndef EDGEQ_EDGEQ_H_
#define EDGEQ_EDGEQ_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(EDGEQ_BUILDING_LIBRARY) && defined(__GNUC__)
#define EDGEQ_API __attribute__((visibility("default")))
#else
#define EDGEQ_API
#endif

#define EDGEQ_VERSION_MAJOR 0
#define EDGEQ_VERSION_MINOR 1
#define EDGEQ_VERSION_PATCH 0
#define EDGEQ_VERSION_STRING "0.1.0"

typedef enum edgeq_status {
  EDGEQ_OK = 0,
  EDGEQ_ERROR_INVALID_ARGUMENT = 1,
  EDGEQ_ERROR_NOT_FOUND = 2,
  EDGEQ_ERROR_OUT_OF_RANGE = 3,
  EDGEQ_ERROR_FAILED_PRECONDITION = 4,
  EDGEQ_ERROR_BUFFER_TOO_SMALL = 5,
  EDGEQ_ERROR_IO = 6,
  EDGEQ_ERROR_INTERNAL = 7,
  /* A call stopped by edgeq_llm_cancel, an abort callback or a progress callback. */
  EDGEQ_CANCELLED = 8
} edgeq_status;

/* ---- Library info ------------------------------------------------------------------------- */

/* "0.1.0". [any thread] */
EDGEQ_API const char* edgeq_version(void);
/* The message of the calling thread's last failed call ("" if none). [any thread] */
EDGEQ_API const char* edgeq_last_error(void);
/* A static name of a status code ("OK", "INVALID_ARGUMENT", ...). [any thread] */
EDGEQ_API const char* edgeq_status_name(edgeq_status status);
/* The best instruction-set level this CPU supports for qmatmul kernels: "generic", "avx2",
 * "avxvnni", "avx512vnni", "neon", "dotprod", "i8mm". [any thread] */
EDGEQ_API const char* edgeq_best_isa(void);

/* ---- Encodings ----------------------------------------------------------------------------- */

/* Number of registered encodings, and the i-th name (sorted, lower case, e.g. "q4_0"); the
 * string is owned by the library and stays valid. [any thread] */
EDGEQ_API size_t edgeq_encoding_count(void);
EDGEQ_API edgeq_status edgeq_encoding_name(size_t index, const char** name);
/* Block parameters of an encoding (name case-insensitive: "Q4_K" == "q4_k"). [any thread] */
EDGEQ_API edgeq_status edgeq_encoding_block(const char* encoding, int64_t* elements_per_block,
                                            int64_t* block_bytes);
/* Bytes of `rows` rows of `k` values each; k must be a multiple of elements_per_block.
 * [any thread] */
EDGEQ_API edgeq_status edgeq_quantized_size(const char* encoding, int64_t rows, int64_t k,
                                            size_t* bytes);
/* Quantizes rows x k floats (finite) into out (out_bytes >= edgeq_quantized_size). Bit-exact
 * with GGML's reference quantizers. [any thread] */
EDGEQ_API edgeq_status edgeq_quantize(const char* encoding, const float* x, int64_t rows, int64_t k,
                                      uint8_t* out, size_t out_bytes);
/* Decodes rows x k values from `in` (in_bytes == edgeq_quantized_size) into y. [any thread] */
EDGEQ_API edgeq_status edgeq_dequantize(const char* encoding, const uint8_t* in, size_t in_bytes,
                                        int64_t rows, int64_t k, float* y);

/* ---- One-shot qmatmul --------------------------------------------------------------------- */

/* y[m, n] = x[m, k] . W[n, k]^T with W (n rows of k values) quantized in `encoding` (w_bytes
 * must equal edgeq_quantized_size(encoding, n, k)). Uses the best kernel for this CPU; one
 * thread. [any thread] */
EDGEQ_API edgeq_status edgeq_qmatmul(const char* encoding, const uint8_t* w, size_t w_bytes,
                                     int64_t n, int64_t k, const float* x, int64_t m, float* y);

/* ---- Checkpoints (.max, GGUF, llama2.c .bin, safetensors; read-only, memory-mapped) ------- */

typedef struct edgeq_checkpoint edgeq_checkpoint;

#define EDGEQ_MAX_RANK 8

typedef struct edgeq_tensor_info {
  const char* name;              /* valid while the checkpoint is open */
  const char* dtype;             /* storage type: "f32", "f16", "bf16", "u8", ... */
  const char* encoding;          /* "" for a plain tensor, else e.g. "q4_0" (storage dtype "u8") */
  int32_t rank;                  /* of the logical shape */
  int64_t shape[EDGEQ_MAX_RANK]; /* logical shape (as GGUF/numpy order: last dim contiguous) */
  const void* data;              /* the stored bytes, valid while the checkpoint is open */
  size_t data_bytes;
} edgeq_tensor_info;

/* Opens a checkpoint (format by content, then extension). [any thread] */
EDGEQ_API edgeq_status edgeq_checkpoint_open(const char* path, edgeq_checkpoint** out);
/* Accepts NULL. */
EDGEQ_API void edgeq_checkpoint_close(edgeq_checkpoint* checkpoint);
/* "max", "gguf", "llama2c", "safetensors". [shared] */
EDGEQ_API const char* edgeq_checkpoint_format(const edgeq_checkpoint* checkpoint);
/* Tensors in file order. [shared] */
EDGEQ_API size_t edgeq_checkpoint_tensor_count(const edgeq_checkpoint* checkpoint);
EDGEQ_API edgeq_status edgeq_checkpoint_tensor_at(const edgeq_checkpoint* checkpoint, size_t index,
                                                  edgeq_tensor_info* info);
EDGEQ_API edgeq_status edgeq_checkpoint_tensor(const edgeq_checkpoint* checkpoint, const char* name,
                                               edgeq_tensor_info* info);

/* ---- Writing checkpoints ------------------------------------------------------------------ */

typedef struct edgeq_tensor_dict edgeq_tensor_dict;

/* An empty, ordered set of named tensors to write. [any thread] */
EDGEQ_API edgeq_status edgeq_tensor_dict_create(edgeq_tensor_dict** out);
EDGEQ_API void edgeq_tensor_dict_free(edgeq_tensor_dict* dict);
/* Adds (or replaces) tensor `name`, copying `data_bytes` bytes. A plain tensor: dtype "f32",
 * "f16", "bf16", "i8", "u8", "i32" or "i64", encoding NULL or "", data_bytes == product of
 * shape x dtype size. A quantized one: dtype "u8", `encoding` a registered name, `shape` its
 * logical (decoded) shape, data_bytes == edgeq_quantized_size of it. rank 0 is a scalar.
 * [one thread per handle] */
EDGEQ_API edgeq_status edgeq_tensor_dict_set(edgeq_tensor_dict* dict, const char* name,
                                             const char* dtype, const char* encoding, int32_t rank,
                                             const int64_t* shape, const void* data,
                                             size_t data_bytes);
EDGEQ_API size_t edgeq_tensor_dict_size(const edgeq_tensor_dict* dict);

#define EDGEQ_SAVE_OVERWRITE 1
/* Writes the tensors in the format named by the extension (.max, .gguf, .safetensors),
 * atomically (a temporary file renamed). An existing `path` is refused unless flags has
 * EDGEQ_SAVE_OVERWRITE. [shared] */
EDGEQ_API edgeq_status edgeq_save(const edgeq_tensor_dict* dict, const char* path, int flags);

/* ---- Graphs and sessions (the C++ Graph / InferenceSession) ------------------------------- */

typedef struct edgeq_graph edgeq_graph;
typedef struct edgeq_session edgeq_session;
typedef struct edgeq_model edgeq_model;
/* A value of one graph (an input, a constant or an op's output): >= 0, in creation order. */
typedef int32_t edgeq_value;

typedef struct edgeq_tensor_type {
  const char* dtype; /* "f32", "i32", ... (NULL: "f32") */
  int32_t rank;
  int64_t shape[EDGEQ_MAX_RANK];
} edgeq_tensor_type;

/* A graph with n_inputs inputs of the given types, named "input0", "input1", ... [any thread] */
EDGEQ_API edgeq_status edgeq_graph_create(const char* name, const edgeq_tensor_type* inputs,
                                          size_t n_inputs, edgeq_graph** out);
EDGEQ_API void edgeq_graph_free(edgeq_graph* graph);
/* Every graph call below is [one thread per handle]. A call that fails (bad shapes, unknown op)
 * leaves the graph as it was before the call. */
EDGEQ_API edgeq_status edgeq_graph_input(edgeq_graph* graph, size_t index, edgeq_value* out);
/* A constant f32 tensor (the data is copied). */
EDGEQ_API edgeq_status edgeq_graph_constant(edgeq_graph* graph, const float* data, int32_t rank,
                                            const int64_t* shape, edgeq_value* out);
/* graph.Quantize: quantizes f32 data of the given shape with `encoding` into a constant. */
EDGEQ_API edgeq_status edgeq_graph_quantize(edgeq_graph* graph, const char* encoding,
                                            const float* data, int32_t rank, const int64_t* shape,
                                            edgeq_value* out);
/* A constant of already-quantized rows (e.g. from edgeq_quantize or a checkpoint; copied):
 * `shape` is the logical shape, data_bytes must equal the encoding's size of it. */
EDGEQ_API edgeq_status edgeq_graph_quantized_constant(edgeq_graph* graph, const char* encoding,
                                                      const uint8_t* data, size_t data_bytes,
                                                      int32_t rank, const int64_t* shape,
                                                      edgeq_value* out);
/* ops::QMatmul(encoding, lhs, rhs): lhs f32 [..., k] . rhs^T, rhs a quantized [n, k] constant. */
EDGEQ_API edgeq_status edgeq_graph_qmatmul(edgeq_graph* graph, const char* encoding,
                                           edgeq_value lhs, edgeq_value rhs, edgeq_value* out);
/* Any op of the op registry by name (edgeq_op_count/edgeq_op_get list them: "add", "attention",
 * "concat", "matmul", "rms_norm", "rope", ... and registered custom ops), with its attributes'
 * defaults. EDGEQ_ERROR_NOT_FOUND for an unknown name (the message lists the known ones). */
EDGEQ_API edgeq_status edgeq_graph_op(edgeq_graph* graph, const char* op, const edgeq_value* inputs,
                                      size_t n_inputs, edgeq_value* out);
/* As edgeq_graph_op with attributes as a JSON object of integers, numbers, strings and lists of
 * integers: {"epsilon": 1e-6}, {"shape": [2, -1]}, {"mode": "neox", "theta": 500000}; NULL or
 * "" for none. An unknown key or a value of the wrong kind: EDGEQ_ERROR_INVALID_ARGUMENT. */
EDGEQ_API edgeq_status edgeq_graph_op_with_attributes(edgeq_graph* graph, const char* op,
                                                      const edgeq_value* inputs, size_t n_inputs,
                                                      const char* attributes_json,
                                                      edgeq_value* out);
/* The op registry, sorted by name: `attributes` lists the keys the op reads, comma-separated
 * ("" if none); max_inputs -1: any number. Strings are owned by the library and stay valid.
 * [any thread] */
typedef struct edgeq_op_info {
  const char* name;
  int32_t min_inputs;
  int32_t max_inputs;
  const char* attributes;
} edgeq_op_info;
EDGEQ_API size_t edgeq_op_count(void);
EDGEQ_API edgeq_status edgeq_op_get(size_t index, edgeq_op_info* info);
/* Marks a value as the next output ("output0", "output1", ...). */
EDGEQ_API edgeq_status edgeq_graph_output(edgeq_graph* graph, edgeq_value value);
/* A value's type: storage dtype ("u8" for quantized), its encoding ("" if plain; both strings
 * valid while the graph lives) and logical shape. */
EDGEQ_API edgeq_status edgeq_graph_value_type(const edgeq_graph* graph, edgeq_value value,
                                              edgeq_tensor_type* type, const char** encoding);
/* The graph as text (Graph::ToString), NUL-terminated; *length excludes the NUL (needed size - 1
 * on EDGEQ_ERROR_BUFFER_TOO_SMALL). */
EDGEQ_API edgeq_status edgeq_graph_to_string(const edgeq_graph* graph, char* text, size_t capacity,
                                             size_t* length);

/* An InferenceSession: num_threads kernel threads (<= 0: 1; at most 1024; threads the process
 * cannot create are an error from edgeq_session_load). [any thread] */
EDGEQ_API edgeq_status edgeq_session_create(int32_t num_threads, edgeq_session** out);
EDGEQ_API void edgeq_session_free(edgeq_session* session);
/* Compiles a graph (with at least one output) into a model. The model does not refer to the graph
 * afterwards, and may outlive both the graph and the session. [one thread per session] */
EDGEQ_API edgeq_status edgeq_session_load(edgeq_session* session, const edgeq_graph* graph,
                                          edgeq_model** out);
EDGEQ_API void edgeq_model_free(edgeq_model* model);
/* [shared] */
EDGEQ_API size_t edgeq_model_input_count(const edgeq_model* model);
EDGEQ_API size_t edgeq_model_output_count(const edgeq_model* model);
EDGEQ_API edgeq_status edgeq_model_input_type(const edgeq_model* model, size_t index,
                                              edgeq_tensor_type* type);
EDGEQ_API edgeq_status edgeq_model_output_type(const edgeq_model* model, size_t index,
                                               edgeq_tensor_type* type);
/* Runs the model: inputs[i] holds input i (its declared type, dense, last dim contiguous), and
 * outputs[i] receives output i (the caller's buffer of its declared size). n_inputs and
 * n_outputs must equal the counts. [one thread per handle] */
EDGEQ_API edgeq_status edgeq_model_execute(edgeq_model* model, const void* const* inputs,
                                           size_t n_inputs, void* const* outputs, size_t n_outputs);

/* ---- LLM ---------------------------------------------------------------------------------- */

typedef struct edgeq_llm edgeq_llm;

typedef struct edgeq_llm_options {
  int32_t num_threads;    /* <= 0: 1; at most 1024 */
  int32_t context_length; /* <= 0: the model's; at most 1048576 */
  /* The most prompt tokens per prefill graph run (llama.cpp's ubatch); <= 0: edgeq's one default
   * (512, llm/prefill_plan.h); 1: token by token; at most 4096. */
  int32_t ubatch_size;
} edgeq_llm_options;

typedef struct edgeq_sampling_params {
  float temperature;    /* <= 0: greedy */
  int32_t top_k;        /* <= 0: off */
  float top_p;          /* (0, 1]; 1: off */
  float min_p;          /* [0, 1]; 0: off */
  float repeat_penalty; /* > 0; 1: off */
  int32_t penalty_last_n;
  uint32_t seed; /* 0xFFFFFFFF: from the clock */
} edgeq_sampling_params;

/* llama.cpp's defaults: temperature 0.8, top-k 40, top-p 0.95, min-p 0.05, no penalty (last
 * 64), seed from the clock. [any thread] */
EDGEQ_API edgeq_sampling_params edgeq_sampling_default(void);

/* Called with each generated token id and its text piece (NUL-terminated, may be ""); return
 * non-zero to go on, 0 to stop. */
typedef int (*edgeq_token_callback)(int32_t token, const char* piece, void* user_data);

/* Loads a model (any checkpoint edgeq::llm::Model reads) and, when the file has
 * tokenizer.ggml.* metadata (GGUF, .max), its tokenizer. options may be NULL. [any thread] */
EDGEQ_API edgeq_status edgeq_llm_load(const char* path, const edgeq_llm_options* options,
                                      edgeq_llm** out);
EDGEQ_API void edgeq_llm_free(edgeq_llm* llm);
/* [shared] */
EDGEQ_API int32_t edgeq_llm_vocab_size(const edgeq_llm* llm);
EDGEQ_API int32_t edgeq_llm_context_length(const edgeq_llm* llm);
/* The ubatch in use (edgeq_llm_options.ubatch_size or the default, capped at the context). */
EDGEQ_API int32_t edgeq_llm_ubatch_size(const edgeq_llm* llm);
EDGEQ_API int32_t edgeq_llm_eos(const edgeq_llm* llm);
/* Text -> ids (BOS added when the vocabulary asks and add_special != 0). On
 * EDGEQ_ERROR_BUFFER_TOO_SMALL *n_tokens is the count needed. [shared] */
EDGEQ_API edgeq_status edgeq_llm_tokenize(const edgeq_llm* llm, const char* text, int add_special,
                                          int32_t* tokens, size_t capacity, size_t* n_tokens);
/* Ids -> text, NUL-terminated; *length excludes the NUL (needed size - 1 on
 * EDGEQ_ERROR_BUFFER_TOO_SMALL). [shared] */
EDGEQ_API edgeq_status edgeq_llm_detokenize(const edgeq_llm* llm, const int32_t* tokens,
                                            size_t n_tokens, char* text, size_t capacity,
                                            size_t* length);
/* Appends the prompt (may be empty to continue; EDGEQ_ERROR_INVALID_ARGUMENT, before it is read
 * further, if n_prompt exceeds what is left of the context or an id is outside the vocabulary,
 * as for edgeq_llm_eval and edgeq_llm_detokenize) and samples up to max_tokens tokens (< 0:
 * until EOS/end of generation or the context ends), calling `callback` (may be NULL) with each.
 * params NULL: greedy. Generated ids (a final stop token included) go to `out_tokens` when it is
 * not NULL, at most `capacity`; *n_generated (may be NULL) gets the count generated.
 * [one thread per handle] */
EDGEQ_API edgeq_status edgeq_llm_generate(edgeq_llm* llm, const int32_t* prompt, size_t n_prompt,
                                          int32_t max_tokens, const edgeq_sampling_params* params,
                                          edgeq_token_callback callback, void* user_data,
                                          int32_t* out_tokens, size_t capacity,
                                          size_t* n_generated);
/* Constrains the output of the following edgeq_llm_generate calls to a GBNF grammar
 * (llama.cpp's format, root rule "root"): each call's generated text, from its start, is a
 * prefix of a sentence of the grammar, and end-of-generation is sampled only once the sentence
 * is complete (sampling as llama.cpp's: sample, and if the grammar refuses the token, sample
 * again over the tokens it allows). NULL or "" removes the constraint. On error
 * (EDGEQ_ERROR_INVALID_ARGUMENT with "grammar line L, column C: ..." in edgeq_last_error(), or
 * a model without a vocabulary) the previous constraint stays. [one thread per handle] */
EDGEQ_API edgeq_status edgeq_llm_set_grammar(edgeq_llm* llm, const char* gbnf);
/* The same for JSON valid under a JSON schema (converted as llama.cpp's json-schema-to-grammar
 * does); the error names the place in the schema. [one thread per handle] */
EDGEQ_API edgeq_status edgeq_llm_set_json_schema(edgeq_llm* llm, const char* schema);
/* A conversation -> prompt ids: n_messages messages (roles[i] "system"/"user"/"assistant",
 * contents[i]) rendered by a chat template and tokenized with control tokens ("<|im_start|>")
 * matched, BOS added when the vocabulary asks and the text does not already start with it.
 * chat_template: NULL or "" for the model's own (GGUF tokenizer.chat_template, run as Jinja;
 * EDGEQ_ERROR_NOT_FOUND if it has none), a preset name ("chatml", "llama3", ...) or Jinja text.
 * add_generation_prompt != 0 ends with the assistant's header. On EDGEQ_ERROR_BUFFER_TOO_SMALL
 * *n_tokens is the count needed. A library built with --define=edgeq_chat=off (no Jinja engine)
 * returns EDGEQ_ERROR_FAILED_PRECONDITION. [shared] */
EDGEQ_API edgeq_status edgeq_llm_chat_tokenize(const edgeq_llm* llm, const char* chat_template,
                                               const char* const* roles,
                                               const char* const* contents, size_t n_messages,
                                               int add_generation_prompt, int32_t* tokens,
                                               size_t capacity, size_t* n_tokens);
/* ---- Chat with tools (c_api/chat_c.cc) ---------------------------------------------------- */
/* A conversation as JSON -> the prompt a chat template renders (text) or its ids (tokens).
 * messages_json: a JSON array of messages as Hugging Face passes them to templates ({"role",
 * "content"}, an assistant's "tool_calls", "tool" results, ...); tools_json: a JSON array of tool
 * definitions (the template's `tools`), NULL or "" for none. chat_template as for
 * edgeq_llm_chat_tokenize (presets render neither tools nor tool messages:
 * EDGEQ_ERROR_INVALID_ARGUMENT). bos_token/eos_token are the vocabulary's. Text: NUL-terminated,
 * *length excludes the NUL (needed size - 1 on EDGEQ_ERROR_BUFFER_TOO_SMALL); tokens: as
 * edgeq_llm_chat_tokenize. Bad JSON: EDGEQ_ERROR_INVALID_ARGUMENT naming the argument; a
 * template's raise_exception: EDGEQ_ERROR_FAILED_PRECONDITION with its message. Built with
 * --define=edgeq_chat=off: EDGEQ_ERROR_FAILED_PRECONDITION. [shared] */
EDGEQ_API edgeq_status edgeq_llm_chat_render(const edgeq_llm* llm, const char* chat_template,
                                             const char* messages_json, const char* tools_json,
                                             int add_generation_prompt, char* text, size_t capacity,
                                             size_t* length);
EDGEQ_API edgeq_status edgeq_llm_chat_tokenize_json(const edgeq_llm* llm, const char* chat_template,
                                                    const char* messages_json,
                                                    const char* tools_json,
                                                    int add_generation_prompt, int32_t* tokens,
                                                    size_t capacity, size_t* n_tokens);
/* The tool calls in a model's reply: name + arguments (a JSON object's text, compact, keys in
 * the model's order), the reply's other text, and the assistant message to append to the
 * conversation (JSON, as Hugging Face passes calls to templates). A library built with
 * --define=edgeq_chat=off parses none: the two parse functions return
 * EDGEQ_ERROR_FAILED_PRECONDITION and edgeq_tool_call_format "". */
typedef struct edgeq_tool_calls edgeq_tool_calls;
/* Parses `reply` in the call format of a chat template (chosen by the markers its text writes:
 * Qwen/Hermes <tool_call>{...}</tool_call>, Llama 3.1 JSON / <|python_tag|>, DeepSeek V3,
 * Mistral [TOOL_CALLS], gpt-oss to=functions.NAME; "generic" otherwise). chat_template: NULL or
 * "" for the model's own, else Jinja text. A reply without calls gives 0 calls. A call that is
 * cut off or not JSON, or lacks a name: EDGEQ_ERROR_INVALID_ARGUMENT naming the format. [shared] */
EDGEQ_API edgeq_status edgeq_llm_parse_tool_calls(const edgeq_llm* llm, const char* chat_template,
                                                  const char* reply, edgeq_tool_calls** out);
/* The same with the format named: "hermes", "llama3.1", "deepseek-v3", "mistral", "gpt-oss" or
 * "generic" (EDGEQ_ERROR_INVALID_ARGUMENT listing them otherwise). [any thread] */
EDGEQ_API edgeq_status edgeq_parse_tool_calls(const char* format, const char* reply,
                                              edgeq_tool_calls** out);
/* The format name a chat template's text asks for (static string). [any thread] */
EDGEQ_API const char* edgeq_tool_call_format(const char* chat_template_text);
EDGEQ_API void edgeq_tool_calls_free(edgeq_tool_calls* calls);
/* Strings below stay valid until edgeq_tool_calls_free. [shared] */
EDGEQ_API const char* edgeq_tool_calls_format(const edgeq_tool_calls* calls);
EDGEQ_API size_t edgeq_tool_calls_count(const edgeq_tool_calls* calls);
EDGEQ_API edgeq_status edgeq_tool_calls_get(const edgeq_tool_calls* calls, size_t index,
                                            const char** name, const char** arguments_json);
/* The reply without its calls (trimmed). */
EDGEQ_API const char* edgeq_tool_calls_content(const edgeq_tool_calls* calls);
/* {"role": "assistant", "content": ..., "tool_calls": [{"type": "function", "function":
 * {"name": ..., "arguments": {...}}}]} (compact JSON). */
EDGEQ_API const char* edgeq_tool_calls_message(const edgeq_tool_calls* calls);
/* Forgets the context (as edgeq_llm_reset), runs `tokens` from position 0 and copies the last
 * position's logits [vocab_size] into `logits` (capacity >= vocab_size). [one thread per
 * handle] */
EDGEQ_API edgeq_status edgeq_llm_eval(edgeq_llm* llm, const int32_t* tokens, size_t n_tokens,
                                      float* logits, size_t capacity);
/* Tokens in the context. [one thread per handle] */
EDGEQ_API int32_t edgeq_llm_n_past(const edgeq_llm* llm);
/* Forgets the sequence. [one thread per handle] */
EDGEQ_API void edgeq_llm_reset(edgeq_llm* llm);

/* ---- Embeddings (llm/embed.h) -----------------------------------------------------------------
 * The embedding of `tokens` as one sequence, as llama-embedding computes it for decoder models:
 * the hidden states after the output norm, pooled by `pooling` ("mean", "last" (Qwen3-Embedding),
 * "cls": the first token, "none": one row per token) and normalized as --embd-normalize
 * (2 euclidean, -1 none, 0 max-abs to int16 range, 1 taxicab, > 2 p-norm). The context is
 * forgotten first (as edgeq_llm_eval). *n_floats gets the count (the embedding size, or n_tokens
 * times it for "none"; the count needed on EDGEQ_ERROR_BUFFER_TOO_SMALL). An unknown pooling or
 * normalize < -1: EDGEQ_ERROR_INVALID_ARGUMENT. [one thread per handle] */
EDGEQ_API edgeq_status edgeq_llm_embed(edgeq_llm* llm, const int32_t* tokens, size_t n_tokens,
                                       const char* pooling, int32_t normalize, float* out,
                                       size_t capacity, size_t* n_floats);

/* ---- Encoder embeddings (llm/embed_encoder.h) ---------------------------------------------------
 * Encoder models (general.architecture bert or nomic-bert: bge, MiniLM, nomic-embed-text) as
 * llama-embedding computes their embeddings. Texts are tokenized with the file's vocabulary
 * ([CLS] ... [SEP]) and run as one batch, each text its own sequence.
 *   edgeq_embedder* e; edgeq_embedder_load("bge.gguf", 1, &e);
 *   const char* texts[] = {"a dog", "a cat"};
 *   float v[2 * 384]; size_t n;
 *   edgeq_embedder_embed_batch(e, texts, 2, NULL, 2, v, 2 * 384, &n);  // n = 2 * 384 */
typedef struct edgeq_embedder edgeq_embedder;
/* num_threads <= 0: 1. A decoder model or a bad file: EDGEQ_ERROR_INVALID_ARGUMENT naming it.
 * [any thread] */
EDGEQ_API edgeq_status edgeq_embedder_load(const char* path, int32_t num_threads,
                                           edgeq_embedder** out);
EDGEQ_API void edgeq_embedder_free(edgeq_embedder* embedder);
/* The embedding size. [shared] */
EDGEQ_API int32_t edgeq_embedder_dim(const edgeq_embedder* embedder);
/* The embeddings of `n_texts` texts (UTF-8, NUL-terminated) in order, n_texts x dim floats in
 * `out`: pooling "mean", "cls", "last" or NULL (the file's pooling_type), normalize as
 * edgeq_llm_embed. *n_floats gets the count (also on EDGEQ_ERROR_BUFFER_TOO_SMALL). "none", an
 * unknown pooling, a text with no tokens or more than the context: EDGEQ_ERROR_INVALID_ARGUMENT.
 * [one thread per handle] */
EDGEQ_API edgeq_status edgeq_embedder_embed_batch(edgeq_embedder* embedder,
                                                  const char* const* texts, size_t n_texts,
                                                  const char* pooling, int32_t normalize,
                                                  float* out, size_t capacity, size_t* n_floats);

/* ---- Saved sessions (llm/state_file.h) --------------------------------------------------------
 * A state holds the sequence (its tokens and the logits not yet sampled from), the model's
 * per-sequence tensors (the KV cache rows of the positions used) and the sampler's random
 * sequence and penalties window, in a versioned format checked by XXH64 and tied to the model
 * (architecture, widths, KV cache type and a fingerprint of the weights). After a load, the next
 * edgeq_llm_generate (prompt may be empty) continues exactly as the saved handle would have: the
 * same tokens as one uninterrupted run, greedy or seeded. Truncated or corrupted bytes are
 * EDGEQ_ERROR_IO, another model's state or another format version EDGEQ_ERROR_INVALID_ARGUMENT;
 * on any error the handle is unchanged. [one thread per handle] */
/* Writes the state into `buffer` (capacity bytes); *size gets its size (the size needed on
 * EDGEQ_ERROR_BUFFER_TOO_SMALL; buffer may be NULL with capacity 0 to ask). */
EDGEQ_API edgeq_status edgeq_llm_state_save(edgeq_llm* llm, uint8_t* buffer, size_t capacity,
                                            size_t* size);
EDGEQ_API edgeq_status edgeq_llm_state_load(edgeq_llm* llm, const uint8_t* buffer, size_t size);
/* The same with a file, written atomically (a temporary beside it renamed over it). */
EDGEQ_API edgeq_status edgeq_llm_state_save_file(edgeq_llm* llm, const char* path);
EDGEQ_API edgeq_status edgeq_llm_state_load_file(edgeq_llm* llm, const char* path);

/* ---- Cancellation and progress ----------------------------------------------------------------
 * edgeq_llm_cancel asks the edgeq_llm_generate running on the handle to stop at its next check:
 * before each prompt block (at most the ubatch of tokens) and each generated token. It returns
 * EDGEQ_CANCELLED; the handle stays usable: the prompt blocks already run stay in the context
 * (edgeq_llm_n_past), as do the tokens generated (in out_tokens and *n_generated), and a later
 * edgeq_llm_generate goes on from there. A cancel while no call runs is forgotten when the next
 * call starts. [any thread] */
EDGEQ_API void edgeq_llm_cancel(edgeq_llm* llm);
/* Called at the same checks, from the generating thread; return non-zero to cancel. NULL
 * removes it. [one thread per handle] */
typedef int (*edgeq_abort_callback)(void* user_data);
EDGEQ_API void edgeq_llm_set_abort_callback(edgeq_llm* llm, edgeq_abort_callback callback,
                                            void* user_data);
/* Load progress: called from the loading thread with the fraction done in [0, 1] (0 first, 1
 * last, growing with the weight bytes prepared); return 0 to cancel the load (EDGEQ_CANCELLED,
 * *out NULL). */
typedef int (*edgeq_progress_callback)(float fraction, void* user_data);
/* edgeq_llm_load with a progress callback (may be NULL). [any thread] */
EDGEQ_API edgeq_status edgeq_llm_load_with_progress(const char* path,
                                                    const edgeq_llm_options* options,
                                                    edgeq_progress_callback progress,
                                                    void* user_data, edgeq_llm** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEQ_EDGEQ_H_ */
