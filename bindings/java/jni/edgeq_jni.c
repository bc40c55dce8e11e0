/* The JNI layer of the dev.edgeq Java binding: one native method of dev.edgeq.Native per C API
 * call, over include/edgeq/edgeq.h only (linked against libedgeq.so).
 *
 * Conventions (the Java side, Native.java, keeps them):
 * - Handles are jlong casts of the C API's pointers; the Java classes refuse a closed handle
 *   before calling here.
 * - Strings cross as byte[] holding UTF-8 plus a terminating 0 (Native.cstr): never
 *   GetStringUTFChars/NewStringUTF, whose "modified UTF-8" mangles NUL and non-BMP characters.
 *   Strings coming back are byte[] of UTF-8 without the terminator, decoded in Java.
 * - A failed C call throws dev.edgeq.EdgeqException(status code, UTF-8 message of
 *   edgeq_last_error()), read on the calling thread right after the call.
 * - No local reference outlives one callback: the token trampoline deletes the piece array it
 *   makes, so a generation of any length holds at most a fixed number of local references. */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edgeq/edgeq.h"
#include "jni_util.h"

/* ---- Errors --------------------------------------------------------------------------------- */

EDGEQ_JNI_INTERNAL void throw_class(JNIEnv* env, const char* cls_name, const char* message) {
  jclass cls = (*env)->FindClass(env, cls_name);
  if (cls == NULL) return; /* NoClassDefFoundError is pending */
  (*env)->ThrowNew(env, cls, message);
  (*env)->DeleteLocalRef(env, cls);
}

EDGEQ_JNI_INTERNAL jbyteArray new_bytes(JNIEnv* env, const char* data, size_t n) {
  jbyteArray a;
  if (n > (size_t)INT32_MAX) {
    throw_class(env, "java/lang/OutOfMemoryError", "edgeq: a string of more than 2 GiB");
    return NULL;
  }
  a = (*env)->NewByteArray(env, (jsize)n);
  if (a != NULL && n > 0) (*env)->SetByteArrayRegion(env, a, 0, (jsize)n, (const jbyte*)data);
  return a;
}

/* Throws EdgeqException(status, edgeq_last_error()) unless status is EDGEQ_OK; returns 1 if it
 * threw. */
EDGEQ_JNI_INTERNAL int check(JNIEnv* env, edgeq_status status) {
  const char* message;
  jclass cls;
  jmethodID ctor;
  jbyteArray bytes;
  jobject ex;
  if (status == EDGEQ_OK) return 0;
  message = edgeq_last_error();
  cls = (*env)->FindClass(env, "dev/edgeq/EdgeqException");
  if (cls == NULL) return 1;
  ctor = (*env)->GetMethodID(env, cls, "<init>", "(I[B)V");
  bytes = ctor != NULL ? new_bytes(env, message, strlen(message)) : NULL;
  if (bytes != NULL) {
    ex = (*env)->NewObject(env, cls, ctor, (jint)status, bytes);
    if (ex != NULL) {
      (*env)->Throw(env, (jthrowable)ex);
      (*env)->DeleteLocalRef(env, ex);
    }
    (*env)->DeleteLocalRef(env, bytes);
  }
  (*env)->DeleteLocalRef(env, cls);
  return 1;
}

/* A NUL-terminated UTF-8 string from a byte[] the Java side terminated (NULL stays NULL). The
 * caller frees it with release_cstr. */
EDGEQ_JNI_INTERNAL const char* get_cstr(JNIEnv* env, jbyteArray a) {
  if (a == NULL) return NULL;
  return (const char*)(*env)->GetByteArrayElements(env, a, NULL);
}

EDGEQ_JNI_INTERNAL void release_cstr(JNIEnv* env, jbyteArray a, const char* s) {
  if (a != NULL && s != NULL) (*env)->ReleaseByteArrayElements(env, a, (jbyte*)s, JNI_ABORT);
}

static int get_shape(JNIEnv* env, jlongArray shape, int32_t* rank, int64_t* dims) {
  jsize n = (*env)->GetArrayLength(env, shape);
  jlong tmp[EDGEQ_MAX_RANK];
  jsize i;
  if (n > EDGEQ_MAX_RANK) {
    throw_class(env, "java/lang/IllegalArgumentException",
                "edgeq: a shape has more than 8 dimensions; expected rank <= 8");
    return 0;
  }
  (*env)->GetLongArrayRegion(env, shape, 0, n, tmp);
  for (i = 0; i < n; ++i) dims[i] = (int64_t)tmp[i];
  *rank = (int32_t)n;
  return 1;
}

/* ---- Library info and one-shot calls ------------------------------------------------------ */

EDGEQ_JNI(jbyteArray, version)(JNIEnv* env, jclass cls) {
  (void)cls;
  return new_bytes(env, edgeq_version(), strlen(edgeq_version()));
}

EDGEQ_JNI(jbyteArray, bestIsa)(JNIEnv* env, jclass cls) {
  (void)cls;
  return new_bytes(env, edgeq_best_isa(), strlen(edgeq_best_isa()));
}

EDGEQ_JNI(jint, encodingCount)(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)edgeq_encoding_count();
}

EDGEQ_JNI(jbyteArray, encodingName)(JNIEnv* env, jclass cls, jint index) {
  const char* name = NULL;
  (void)cls;
  if (check(env, edgeq_encoding_name((size_t)index, &name))) return NULL;
  return new_bytes(env, name, strlen(name));
}

EDGEQ_JNI(jlong, quantizedSize)(JNIEnv* env, jclass cls, jbyteArray encoding, jlong rows, jlong k) {
  const char* enc = get_cstr(env, encoding);
  size_t bytes = 0;
  edgeq_status st = edgeq_quantized_size(enc, rows, k, &bytes);
  (void)cls;
  release_cstr(env, encoding, enc);
  if (check(env, st)) return -1;
  return (jlong)bytes;
}

EDGEQ_JNI(jbyteArray, quantize)
(JNIEnv* env, jclass cls, jbyteArray encoding, jfloatArray x, jlong rows, jlong k) {
  const char* enc = get_cstr(env, encoding);
  size_t bytes = 0;
  jbyteArray out = NULL;
  edgeq_status st = edgeq_quantized_size(enc, rows, k, &bytes);
  (void)cls;
  if (st == EDGEQ_OK && (jlong)(*env)->GetArrayLength(env, x) != rows * k) {
    release_cstr(env, encoding, enc);
    throw_class(env, "java/lang/IllegalArgumentException", "edgeq quantize: x.length != rows * k");
    return NULL;
  }
  if (st == EDGEQ_OK && bytes > (size_t)INT32_MAX) {
    release_cstr(env, encoding, enc);
    throw_class(env, "java/lang/IllegalArgumentException",
                "edgeq quantize: the result exceeds 2^31 - 1 bytes; expected a smaller tensor");
    return NULL;
  }
  if (st == EDGEQ_OK) out = (*env)->NewByteArray(env, (jsize)bytes);
  if (out != NULL) {
    float* xs = (*env)->GetFloatArrayElements(env, x, NULL);
    jbyte* o = (*env)->GetByteArrayElements(env, out, NULL);
    st = edgeq_quantize(enc, xs, rows, k, (uint8_t*)o, bytes);
    (*env)->ReleaseByteArrayElements(env, out, o, 0);
    (*env)->ReleaseFloatArrayElements(env, x, xs, JNI_ABORT);
  }
  release_cstr(env, encoding, enc);
  if (check(env, st)) return NULL;
  return out;
}

EDGEQ_JNI(jfloatArray, dequantize)
(JNIEnv* env, jclass cls, jbyteArray encoding, jbyteArray in, jlong rows, jlong k) {
  const char* enc = get_cstr(env, encoding);
  jfloatArray out = (*env)->NewFloatArray(env, (jsize)(rows * k));
  edgeq_status st = EDGEQ_OK;
  (void)cls;
  if (out != NULL) {
    jbyte* w = (*env)->GetByteArrayElements(env, in, NULL);
    float* y = (*env)->GetFloatArrayElements(env, out, NULL);
    st = edgeq_dequantize(enc, (const uint8_t*)w, (size_t)(*env)->GetArrayLength(env, in), rows, k,
                          y);
    (*env)->ReleaseFloatArrayElements(env, out, y, 0);
    (*env)->ReleaseByteArrayElements(env, in, w, JNI_ABORT);
  }
  release_cstr(env, encoding, enc);
  if (check(env, st)) return NULL;
  return out;
}

EDGEQ_JNI(jfloatArray, qmatmul)
(JNIEnv* env, jclass cls, jbyteArray encoding, jbyteArray w, jlong n, jlong k, jfloatArray x,
 jlong m) {
  const char* enc = get_cstr(env, encoding);
  jfloatArray out = NULL;
  edgeq_status st = EDGEQ_OK;
  (void)cls;
  if ((jlong)(*env)->GetArrayLength(env, x) != m * k) {
    release_cstr(env, encoding, enc);
    throw_class(env, "java/lang/IllegalArgumentException", "edgeq qmatmul: x.length != m * k");
    return NULL;
  }
  out = (*env)->NewFloatArray(env, (jsize)(m * n));
  if (out != NULL) {
    jbyte* ws = (*env)->GetByteArrayElements(env, w, NULL);
    float* xs = (*env)->GetFloatArrayElements(env, x, NULL);
    float* y = (*env)->GetFloatArrayElements(env, out, NULL);
    st = edgeq_qmatmul(enc, (const uint8_t*)ws, (size_t)(*env)->GetArrayLength(env, w), n, k, xs, m,
                       y);
    (*env)->ReleaseFloatArrayElements(env, out, y, 0);
    (*env)->ReleaseFloatArrayElements(env, x, xs, JNI_ABORT);
    (*env)->ReleaseByteArrayElements(env, w, ws, JNI_ABORT);
  }
  release_cstr(env, encoding, enc);
  if (check(env, st)) return NULL;
  return out;
}

/* ---- LLM ------------------------------------------------------------------------------------ */

EDGEQ_JNI(jlong, llmLoad)(JNIEnv* env, jclass cls, jbyteArray path, jint threads, jint context) {
  const char* p = get_cstr(env, path);
  edgeq_llm_options options;
  edgeq_llm* llm = NULL;
  edgeq_status st;
  (void)cls;
  memset(&options, 0, sizeof(options)); /* every field the binding does not set: its default */
  options.num_threads = threads;
  options.context_length = context;
  st = edgeq_llm_load(p, &options, &llm);
  release_cstr(env, path, p);
  if (check(env, st)) return 0;
  return (jlong)(intptr_t)llm;
}

EDGEQ_JNI(void, llmFree)(JNIEnv* env, jclass cls, jlong h) {
  (void)env;
  (void)cls;
  edgeq_llm_free((edgeq_llm*)(intptr_t)h);
}

/* what: 0 vocab size, 1 context length, 2 EOS id, 3 tokens in the context. */
EDGEQ_JNI(jint, llmInfo)(JNIEnv* env, jclass cls, jlong h, jint what) {
  const edgeq_llm* llm = (const edgeq_llm*)(intptr_t)h;
  (void)env;
  (void)cls;
  switch (what) {
    case 0:
      return edgeq_llm_vocab_size(llm);
    case 1:
      return edgeq_llm_context_length(llm);
    case 2:
      return edgeq_llm_eos(llm);
    default:
      return edgeq_llm_n_past(llm);
  }
}

EDGEQ_JNI(void, llmReset)(JNIEnv* env, jclass cls, jlong h) {
  (void)env;
  (void)cls;
  edgeq_llm_reset((edgeq_llm*)(intptr_t)h);
}

EDGEQ_JNI(jintArray, llmTokenize)
(JNIEnv* env, jclass cls, jlong h, jbyteArray text, jboolean add_special) {
  const edgeq_llm* llm = (const edgeq_llm*)(intptr_t)h;
  const char* t = get_cstr(env, text);
  size_t n = 0;
  int32_t* ids = NULL;
  jintArray out = NULL;
  edgeq_status st = edgeq_llm_tokenize(llm, t, add_special, NULL, 0, &n);
  (void)cls;
  if (st == EDGEQ_ERROR_BUFFER_TOO_SMALL || (st == EDGEQ_OK && n == 0)) {
    ids = (int32_t*)malloc((n > 0 ? n : 1) * sizeof(int32_t));
    st = ids != NULL ? edgeq_llm_tokenize(llm, t, add_special, ids, n, &n) : EDGEQ_ERROR_INTERNAL;
  }
  release_cstr(env, text, t);
  if (ids == NULL && st == EDGEQ_ERROR_INTERNAL) {
    free(ids);
    throw_class(env, "java/lang/OutOfMemoryError", "edgeq tokenize: no memory for the ids");
    return NULL;
  }
  if (!check(env, st)) {
    out = (*env)->NewIntArray(env, (jsize)n);
    if (out != NULL && n > 0) (*env)->SetIntArrayRegion(env, out, 0, (jsize)n, (const jint*)ids);
  }
  free(ids);
  return out;
}

EDGEQ_JNI(jbyteArray, llmDetokenize)(JNIEnv* env, jclass cls, jlong h, jintArray tokens) {
  const edgeq_llm* llm = (const edgeq_llm*)(intptr_t)h;
  jsize n = (*env)->GetArrayLength(env, tokens);
  jint* ids = (*env)->GetIntArrayElements(env, tokens, NULL);
  size_t length = 0;
  char* text = NULL;
  jbyteArray out = NULL;
  edgeq_status st = edgeq_llm_detokenize(llm, (const int32_t*)ids, (size_t)n, NULL, 0, &length);
  (void)cls;
  if (st == EDGEQ_ERROR_BUFFER_TOO_SMALL) {
    text = (char*)malloc(length + 1);
    st = text != NULL
             ? edgeq_llm_detokenize(llm, (const int32_t*)ids, (size_t)n, text, length + 1, &length)
             : EDGEQ_ERROR_INTERNAL;
  }
  (*env)->ReleaseIntArrayElements(env, tokens, ids, JNI_ABORT);
  if (!check(env, st)) out = new_bytes(env, text != NULL ? text : "", text != NULL ? length : 0);
  free(text);
  return out;
}

/* The token callback: calls session.onNativeToken(int, byte[]) -> boolean (false: stop, when
 * the listener threw or the session was cancelled). A pending Java exception stops generation
 * and is rethrown to the caller when the native method returns. */
typedef struct {
  JNIEnv* env;
  jobject target;
  jmethodID method;
  jmethodID abort_method; /* session.onNativeAbortCheck() -> boolean */
} token_sink;

/* The abort check (before each prompt block and token): session.onNativeAbortCheck(); a Java
 * exception cancels and reaches the caller. */
static int on_abort(void* user_data) {
  token_sink* s = (token_sink*)user_data;
  JNIEnv* env = s->env;
  jboolean stop;
  if ((*env)->ExceptionCheck(env)) return 1;
  stop = (*env)->CallBooleanMethod(env, s->target, s->abort_method);
  if ((*env)->ExceptionCheck(env)) return 1;
  return stop ? 1 : 0;
}

static int on_token(int32_t token, const char* piece, void* user_data) {
  token_sink* s = (token_sink*)user_data;
  JNIEnv* env = s->env;
  jboolean go_on;
  jbyteArray bytes = new_bytes(env, piece, strlen(piece));
  if (bytes == NULL) return 0;
  go_on = (*env)->CallBooleanMethod(env, s->target, s->method, (jint)token, bytes);
  (*env)->DeleteLocalRef(env, bytes);
  if ((*env)->ExceptionCheck(env)) return 0;
  return go_on ? 1 : 0;
}

/* params: {temperature, top_p, min_p, repeat_penalty} and {top_k, penalty_last_n, seed}; NULL
 * params: greedy. Returns the generated ids. */
EDGEQ_JNI(jintArray, llmGenerate)
(JNIEnv* env, jclass cls, jlong h, jintArray prompt, jint max_tokens, jfloatArray fparams,
 jintArray iparams, jobject target) {
  edgeq_llm* llm = (edgeq_llm*)(intptr_t)h;
  edgeq_sampling_params params;
  token_sink sink;
  jsize n_prompt = (*env)->GetArrayLength(env, prompt);
  size_t capacity, n_generated = 0;
  int32_t* out_ids;
  jint* ids;
  jintArray result = NULL;
  edgeq_status st;
  (void)cls;
  if (fparams != NULL) {
    jfloat f[4];
    jint i[3];
    (*env)->GetFloatArrayRegion(env, fparams, 0, 4, f);
    (*env)->GetIntArrayRegion(env, iparams, 0, 3, i);
    if ((*env)->ExceptionCheck(env)) return NULL;
    params.temperature = f[0];
    params.top_p = f[1];
    params.min_p = f[2];
    params.repeat_penalty = f[3];
    params.top_k = i[0];
    params.penalty_last_n = i[1];
    params.seed = (uint32_t)i[2];
  }
  capacity = max_tokens >= 0 ? (size_t)max_tokens : (size_t)edgeq_llm_context_length(llm);
  out_ids = (int32_t*)malloc((capacity > 0 ? capacity : 1) * sizeof(int32_t));
  if (out_ids == NULL) {
    throw_class(env, "java/lang/OutOfMemoryError", "edgeq generate: no memory for the ids");
    return NULL;
  }
  sink.env = env;
  sink.target = target;
  sink.method = NULL;
  if (target != NULL) {
    jclass tc = (*env)->GetObjectClass(env, target);
    sink.method = (*env)->GetMethodID(env, tc, "onNativeToken", "(I[B)Z");
    sink.abort_method =
        sink.method != NULL ? (*env)->GetMethodID(env, tc, "onNativeAbortCheck", "()Z") : NULL;
    (*env)->DeleteLocalRef(env, tc);
    if (sink.method == NULL || sink.abort_method == NULL) {
      free(out_ids);
      return NULL; /* NoSuchMethodError pending */
    }
  }
  ids = (*env)->GetIntArrayElements(env, prompt, NULL);
  if (target != NULL) edgeq_llm_set_abort_callback(llm, on_abort, &sink);
  st = edgeq_llm_generate(llm, (const int32_t*)ids, (size_t)n_prompt, max_tokens,
                          fparams != NULL ? &params : NULL, target != NULL ? on_token : NULL, &sink,
                          out_ids, capacity, &n_generated);
  if (target != NULL) edgeq_llm_set_abort_callback(llm, NULL, NULL);
  /* Session.cancel() (edgeq_llm_cancel): the tokens so far, the session says it was cancelled. */
  if (st == EDGEQ_CANCELLED) st = EDGEQ_OK;
  (*env)->ReleaseIntArrayElements(env, prompt, ids, JNI_ABORT);
  if ((*env)->ExceptionCheck(env)) {
    free(out_ids); /* the listener's exception reaches the caller */
    return NULL;
  }
  if (!check(env, st)) {
    if (n_generated > capacity) n_generated = capacity;
    result = (*env)->NewIntArray(env, (jsize)n_generated);
    if (result != NULL && n_generated > 0) {
      (*env)->SetIntArrayRegion(env, result, 0, (jsize)n_generated, (const jint*)out_ids);
    }
  }
  free(out_ids);
  return result;
}

EDGEQ_JNI(void, llmSamplingDefault)
(JNIEnv* env, jclass cls, jfloatArray fparams, jintArray iparams) {
  edgeq_sampling_params p = edgeq_sampling_default();
  jfloat f[4];
  jint i[3];
  (void)cls;
  f[0] = p.temperature;
  f[1] = p.top_p;
  f[2] = p.min_p;
  f[3] = p.repeat_penalty;
  i[0] = p.top_k;
  i[1] = p.penalty_last_n;
  i[2] = (jint)p.seed;
  (*env)->SetFloatArrayRegion(env, fparams, 0, 4, f);
  (*env)->SetIntArrayRegion(env, iparams, 0, 3, i);
}

/* kind: 0 GBNF grammar, 1 JSON schema; NULL text removes the constraint. */
EDGEQ_JNI(void, llmConstrain)(JNIEnv* env, jclass cls, jlong h, jint kind, jbyteArray text) {
  edgeq_llm* llm = (edgeq_llm*)(intptr_t)h;
  const char* t = get_cstr(env, text);
  edgeq_status st = kind == 0 ? edgeq_llm_set_grammar(llm, t) : edgeq_llm_set_json_schema(llm, t);
  (void)cls;
  release_cstr(env, text, t);
  check(env, st);
}

/* ---- Graphs, sessions, compiled models ---------------------------------------------------- */

/* dtypes: one NUL-terminated byte[] per input; shapes: one long[] per input. */
EDGEQ_JNI(jlong, graphCreate)
(JNIEnv* env, jclass cls, jbyteArray name, jobjectArray dtypes, jobjectArray shapes) {
  jsize n = (*env)->GetArrayLength(env, shapes);
  edgeq_tensor_type* types = (edgeq_tensor_type*)calloc(n > 0 ? (size_t)n : 1, sizeof(*types));
  jbyteArray* dts = (jbyteArray*)calloc(n > 0 ? (size_t)n : 1, sizeof(jbyteArray));
  const char* nm = NULL;
  edgeq_graph* graph = NULL;
  edgeq_status st = EDGEQ_ERROR_INTERNAL;
  jsize i, got = 0;
  (void)cls;
  if (types == NULL || dts == NULL || (*env)->PushLocalFrame(env, 2 * n + 4) != 0) {
    free(types);
    free(dts);
    if (!(*env)->ExceptionCheck(env)) {
      throw_class(env, "java/lang/OutOfMemoryError", "edgeq graph: no memory for the inputs");
    }
    return 0;
  }
  for (got = 0; got < n; ++got) {
    jlongArray shape = (jlongArray)(*env)->GetObjectArrayElement(env, shapes, got);
    dts[got] = (jbyteArray)(*env)->GetObjectArrayElement(env, dtypes, got);
    types[got].dtype = get_cstr(env, dts[got]);
    if (!get_shape(env, shape, &types[got].rank, types[got].shape)) break;
  }
  if (got == n) {
    nm = get_cstr(env, name);
    st = edgeq_graph_create(nm, types, (size_t)n, &graph);
    release_cstr(env, name, nm);
  }
  for (i = 0; i < n && i <= got; ++i) release_cstr(env, dts[i], types[i].dtype);
  (*env)->PopLocalFrame(env, NULL);
  free(types);
  free(dts);
  if (got != n || check(env, st)) return 0;
  return (jlong)(intptr_t)graph;
}

EDGEQ_JNI(void, graphFree)(JNIEnv* env, jclass cls, jlong h) {
  (void)env;
  (void)cls;
  edgeq_graph_free((edgeq_graph*)(intptr_t)h);
}

EDGEQ_JNI(jint, graphInput)(JNIEnv* env, jclass cls, jlong h, jint index) {
  edgeq_value v = -1;
  (void)cls;
  if (check(env, edgeq_graph_input((edgeq_graph*)(intptr_t)h, (size_t)index, &v))) return -1;
  return v;
}

/* encoding NULL: a plain f32 constant; else graph.Quantize(encoding, data). */
EDGEQ_JNI(jint, graphConstant)
(JNIEnv* env, jclass cls, jlong h, jbyteArray encoding, jfloatArray data, jlongArray shape) {
  int32_t rank = 0;
  int64_t dims[EDGEQ_MAX_RANK];
  edgeq_value v = -1;
  const char* enc;
  float* d;
  edgeq_status st;
  (void)cls;
  if (!get_shape(env, shape, &rank, dims)) return -1;
  enc = get_cstr(env, encoding);
  d = (*env)->GetFloatArrayElements(env, data, NULL);
  st = enc == NULL ? edgeq_graph_constant((edgeq_graph*)(intptr_t)h, d, rank, dims, &v)
                   : edgeq_graph_quantize((edgeq_graph*)(intptr_t)h, enc, d, rank, dims, &v);
  (*env)->ReleaseFloatArrayElements(env, data, d, JNI_ABORT);
  release_cstr(env, encoding, enc);
  if (check(env, st)) return -1;
  return v;
}

EDGEQ_JNI(jint, graphQuantizedConstant)
(JNIEnv* env, jclass cls, jlong h, jbyteArray encoding, jbyteArray data, jlongArray shape) {
  int32_t rank = 0;
  int64_t dims[EDGEQ_MAX_RANK];
  edgeq_value v = -1;
  const char* enc;
  jbyte* d;
  edgeq_status st;
  (void)cls;
  if (!get_shape(env, shape, &rank, dims)) return -1;
  enc = get_cstr(env, encoding);
  d = (*env)->GetByteArrayElements(env, data, NULL);
  st = edgeq_graph_quantized_constant((edgeq_graph*)(intptr_t)h, enc, (const uint8_t*)d,
                                      (size_t)(*env)->GetArrayLength(env, data), rank, dims, &v);
  (*env)->ReleaseByteArrayElements(env, data, d, JNI_ABORT);
  release_cstr(env, encoding, enc);
  if (check(env, st)) return -1;
  return v;
}

EDGEQ_JNI(jint, graphQMatmul)
(JNIEnv* env, jclass cls, jlong h, jbyteArray encoding, jint lhs, jint rhs) {
  const char* enc = get_cstr(env, encoding);
  edgeq_value v = -1;
  edgeq_status st = edgeq_graph_qmatmul((edgeq_graph*)(intptr_t)h, enc, lhs, rhs, &v);
  (void)cls;
  release_cstr(env, encoding, enc);
  if (check(env, st)) return -1;
  return v;
}

EDGEQ_JNI(jint, graphOp)(JNIEnv* env, jclass cls, jlong h, jbyteArray op, jintArray inputs) {
  const char* name = get_cstr(env, op);
  jsize n = (*env)->GetArrayLength(env, inputs);
  jint* in = (*env)->GetIntArrayElements(env, inputs, NULL);
  edgeq_value v = -1;
  edgeq_status st =
      edgeq_graph_op((edgeq_graph*)(intptr_t)h, name, (const edgeq_value*)in, (size_t)n, &v);
  (void)cls;
  (*env)->ReleaseIntArrayElements(env, inputs, in, JNI_ABORT);
  release_cstr(env, op, name);
  if (check(env, st)) return -1;
  return v;
}

EDGEQ_JNI(void, graphOutput)(JNIEnv* env, jclass cls, jlong h, jint value) {
  (void)cls;
  check(env, edgeq_graph_output((edgeq_graph*)(intptr_t)h, value));
}

EDGEQ_JNI(jbyteArray, graphToString)(JNIEnv* env, jclass cls, jlong h) {
  const edgeq_graph* graph = (const edgeq_graph*)(intptr_t)h;
  size_t length = 0;
  char* text;
  jbyteArray out = NULL;
  edgeq_status st = edgeq_graph_to_string(graph, NULL, 0, &length);
  (void)cls;
  if (st != EDGEQ_ERROR_BUFFER_TOO_SMALL && check(env, st)) return NULL;
  text = (char*)malloc(length + 1);
  if (text == NULL) {
    throw_class(env, "java/lang/OutOfMemoryError", "edgeq graph: no memory for its text");
    return NULL;
  }
  st = edgeq_graph_to_string(graph, text, length + 1, &length);
  if (!check(env, st)) out = new_bytes(env, text, length);
  free(text);
  return out;
}

EDGEQ_JNI(jlong, sessionCreate)(JNIEnv* env, jclass cls, jint threads) {
  edgeq_session* s = NULL;
  (void)cls;
  if (check(env, edgeq_session_create(threads, &s))) return 0;
  return (jlong)(intptr_t)s;
}

EDGEQ_JNI(void, sessionFree)(JNIEnv* env, jclass cls, jlong h) {
  (void)env;
  (void)cls;
  edgeq_session_free((edgeq_session*)(intptr_t)h);
}

EDGEQ_JNI(jlong, sessionLoad)(JNIEnv* env, jclass cls, jlong session, jlong graph) {
  edgeq_model* m = NULL;
  (void)cls;
  if (check(env, edgeq_session_load((edgeq_session*)(intptr_t)session,
                                    (const edgeq_graph*)(intptr_t)graph, &m))) {
    return 0;
  }
  return (jlong)(intptr_t)m;
}

EDGEQ_JNI(void, modelFree)(JNIEnv* env, jclass cls, jlong h) {
  (void)env;
  (void)cls;
  edgeq_model_free((edgeq_model*)(intptr_t)h);
}

EDGEQ_JNI(jint, modelCount)(JNIEnv* env, jclass cls, jlong h, jboolean outputs) {
  const edgeq_model* m = (const edgeq_model*)(intptr_t)h;
  (void)env;
  (void)cls;
  return (jint)(outputs ? edgeq_model_output_count(m) : edgeq_model_input_count(m));
}

/* The shape of input/output `index`; its dtype's bytes go to dtype[0] (a 16-byte array). */
EDGEQ_JNI(jlongArray, modelType)
(JNIEnv* env, jclass cls, jlong h, jboolean output, jint index, jbyteArray dtype) {
  const edgeq_model* m = (const edgeq_model*)(intptr_t)h;
  edgeq_tensor_type t;
  jlong dims[EDGEQ_MAX_RANK];
  jlongArray out;
  int32_t i;
  size_t n;
  (void)cls;
  if (check(env, output ? edgeq_model_output_type(m, (size_t)index, &t)
                        : edgeq_model_input_type(m, (size_t)index, &t))) {
    return NULL;
  }
  n = strlen(t.dtype);
  if (n > 15) n = 15;
  (*env)->SetByteArrayRegion(env, dtype, 0, (jsize)n, (const jbyte*)t.dtype);
  for (i = 0; i < t.rank; ++i) dims[i] = t.shape[i];
  out = (*env)->NewLongArray(env, t.rank);
  if (out != NULL) (*env)->SetLongArrayRegion(env, out, 0, t.rank, dims);
  return out;
}

/* inputs/outputs: primitive arrays (float[] or int[]) of the declared sizes, checked by the
 * Java side (Model.execute). */
EDGEQ_JNI(void, modelExecute)
(JNIEnv* env, jclass cls, jlong h, jobjectArray inputs, jobjectArray outputs) {
  jsize ni = (*env)->GetArrayLength(env, inputs), no = (*env)->GetArrayLength(env, outputs);
  void** in = (void**)calloc((size_t)(ni + no) + 1, sizeof(void*));
  jobject* arrays = (jobject*)calloc((size_t)(ni + no) + 1, sizeof(jobject));
  edgeq_status st = EDGEQ_ERROR_INTERNAL;
  jsize i, got;
  (void)cls;
  if (in == NULL || arrays == NULL || (*env)->PushLocalFrame(env, ni + no + 4) != 0) {
    free(in);
    free(arrays);
    if (!(*env)->ExceptionCheck(env)) {
      throw_class(env, "java/lang/OutOfMemoryError", "edgeq execute: no memory");
    }
    return;
  }
  /* Every element first: no other JNI call is allowed while a critical region is held. */
  for (i = 0; i < ni + no; ++i) {
    arrays[i] = i < ni ? (*env)->GetObjectArrayElement(env, inputs, i)
                       : (*env)->GetObjectArrayElement(env, outputs, i - ni);
  }
  for (got = 0; got < ni + no; ++got) {
    in[got] =
        arrays[got] != NULL ? (*env)->GetPrimitiveArrayCritical(env, arrays[got], NULL) : NULL;
    if (in[got] == NULL) break;
  }
  if (got == ni + no) {
    st = edgeq_model_execute((edgeq_model*)(intptr_t)h, (const void* const*)in, (size_t)ni,
                             (void* const*)(in + ni), (size_t)no);
  }
  for (i = got < ni + no ? got : ni + no; i-- > 0;) {
    (*env)->ReleasePrimitiveArrayCritical(env, arrays[i], in[i], i < ni ? JNI_ABORT : 0);
  }
  (*env)->PopLocalFrame(env, NULL);
  free(in);
  free(arrays);
  if (got != ni + no) {
    if (!(*env)->ExceptionCheck(env)) {
      throw_class(env, "java/lang/IllegalArgumentException", "edgeq execute: a null array");
    }
    return;
  }
  check(env, st);
}

/* ---- Chat ----------------------------------------------------------------------------------- */

/* roles/contents: NUL-terminated byte[] per message; chat_template NULL: the model's. */
EDGEQ_JNI(jintArray, llmChatTokenize)
(JNIEnv* env, jclass cls, jlong h, jbyteArray chat_template, jobjectArray roles,
 jobjectArray contents, jboolean add_generation_prompt) {
  const edgeq_llm* llm = (const edgeq_llm*)(intptr_t)h;
  jsize n = (*env)->GetArrayLength(env, roles), i, got;
  size_t count = (size_t)n;
  const char** strs = (const char**)calloc(2 * count + 1, sizeof(char*));
  jbyteArray* arrays = (jbyteArray*)calloc(2 * count + 1, sizeof(jbyteArray));
  const char* tmpl = NULL;
  size_t n_tokens = 0;
  int32_t* ids = NULL;
  jintArray out = NULL;
  edgeq_status st = EDGEQ_ERROR_INTERNAL;
  (void)cls;
  if (strs == NULL || arrays == NULL || (*env)->PushLocalFrame(env, 2 * n + 4) != 0) {
    free(strs);
    free(arrays);
    if (!(*env)->ExceptionCheck(env)) {
      throw_class(env, "java/lang/OutOfMemoryError", "edgeq chat: no memory for the messages");
    }
    return NULL;
  }
  for (got = 0; got < 2 * n; ++got) {
    arrays[got] = (jbyteArray)(*env)->GetObjectArrayElement(env, got < n ? roles : contents,
                                                            got < n ? got : got - n);
    strs[got] = get_cstr(env, arrays[got]);
    if (strs[got] == NULL) break;
  }
  if (got == 2 * n) {
    tmpl = get_cstr(env, chat_template);
    st = edgeq_llm_chat_tokenize(llm, tmpl, strs, strs + n, count, add_generation_prompt, NULL, 0,
                                 &n_tokens);
    if (st == EDGEQ_ERROR_BUFFER_TOO_SMALL || st == EDGEQ_OK) {
      ids = (int32_t*)malloc((n_tokens > 0 ? n_tokens : 1) * sizeof(int32_t));
      st = ids == NULL ? EDGEQ_ERROR_INTERNAL
                       : edgeq_llm_chat_tokenize(llm, tmpl, strs, strs + n, count,
                                                 add_generation_prompt, ids, n_tokens, &n_tokens);
    }
    release_cstr(env, chat_template, tmpl);
  }
  for (i = 0; i < got; ++i) release_cstr(env, arrays[i], strs[i]);
  (*env)->PopLocalFrame(env, NULL);
  free(strs);
  free(arrays);
  if (got != 2 * n) {
    free(ids);
    if (!(*env)->ExceptionCheck(env)) {
      throw_class(env, "java/lang/IllegalArgumentException", "edgeq chat: a null message");
    }
    return NULL;
  }
  if (!check(env, st)) {
    out = (*env)->NewIntArray(env, (jsize)n_tokens);
    if (out != NULL && n_tokens > 0) {
      (*env)->SetIntArrayRegion(env, out, 0, (jsize)n_tokens, (const jint*)ids);
    }
  }
  free(ids);
  return out;
}
