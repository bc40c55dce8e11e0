/* The JNI layer's saved sessions, cancellation and load progress (dev.edgeq.Native llmCancel,
 * llmStateSave, llmStateLoad, llmLoadWithProgress), as edgeq_jni.c's conventions say. */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edgeq/edgeq.h"
#include "jni_util.h"

EDGEQ_JNI(void, llmCancel)(JNIEnv* env, jclass cls, jlong h) {
  (void)env;
  (void)cls;
  edgeq_llm_cancel((edgeq_llm*)(intptr_t)h);
}

/* path NULL: returns the state's bytes; else writes the file and returns NULL. */
EDGEQ_JNI(jbyteArray, llmStateSave)(JNIEnv* env, jclass cls, jlong h, jbyteArray path) {
  edgeq_llm* llm = (edgeq_llm*)(intptr_t)h;
  size_t size = 0;
  uint8_t* buf;
  jbyteArray out = NULL;
  edgeq_status st;
  (void)cls;
  if (path != NULL) {
    const char* p = get_cstr(env, path);
    st = edgeq_llm_state_save_file(llm, p);
    release_cstr(env, path, p);
    check(env, st);
    return NULL;
  }
  st = edgeq_llm_state_save(llm, NULL, 0, &size);
  if (st != EDGEQ_ERROR_BUFFER_TOO_SMALL && check(env, st)) return NULL;
  buf = (uint8_t*)malloc(size > 0 ? size : 1);
  if (buf == NULL) {
    throw_class(env, "java/lang/OutOfMemoryError", "edgeq state save: no memory for the state");
    return NULL;
  }
  st = edgeq_llm_state_save(llm, buf, size, &size);
  if (!check(env, st)) out = new_bytes(env, (const char*)buf, size);
  free(buf);
  return out;
}

/* One of data (the bytes) or path (a file). */
EDGEQ_JNI(void, llmStateLoad)(JNIEnv* env, jclass cls, jlong h, jbyteArray data, jbyteArray path) {
  edgeq_llm* llm = (edgeq_llm*)(intptr_t)h;
  edgeq_status st;
  (void)cls;
  if (path != NULL) {
    const char* p = get_cstr(env, path);
    st = edgeq_llm_state_load_file(llm, p);
    release_cstr(env, path, p);
  } else {
    jsize n = (*env)->GetArrayLength(env, data);
    jbyte* b = (*env)->GetByteArrayElements(env, data, NULL);
    if (b == NULL) return; /* OutOfMemoryError pending */
    st = edgeq_llm_state_load(llm, (const uint8_t*)b, (size_t)n);
    (*env)->ReleaseByteArrayElements(env, data, b, JNI_ABORT);
  }
  check(env, st);
}

/* The load progress trampoline: listener.onProgress(float) -> boolean; a Java exception it
 * throws cancels the load and reaches the caller. */
typedef struct {
  JNIEnv* env;
  jobject listener;
  jmethodID method;
} progress_sink;

static int on_progress(float fraction, void* user_data) {
  progress_sink* s = (progress_sink*)user_data;
  jboolean go_on;
  if ((*s->env)->ExceptionCheck(s->env)) return 0;
  go_on = (*s->env)->CallBooleanMethod(s->env, s->listener, s->method, (jfloat)fraction);
  if ((*s->env)->ExceptionCheck(s->env)) return 0;
  return go_on ? 1 : 0;
}

/* listener may be null. */
EDGEQ_JNI(jlong, llmLoadWithProgress)
(JNIEnv* env, jclass cls, jbyteArray path, jint threads, jint context, jint ubatch,
 jobject listener) {
  const char* p;
  edgeq_llm_options options;
  edgeq_llm* llm = NULL;
  edgeq_status st;
  progress_sink sink;
  jclass lc;
  (void)cls;
  sink.env = env;
  sink.listener = listener;
  sink.method = NULL;
  if (listener != NULL) {
    lc = (*env)->GetObjectClass(env, listener);
    sink.method = (*env)->GetMethodID(env, lc, "onProgress", "(F)Z");
    (*env)->DeleteLocalRef(env, lc);
    if (sink.method == NULL) return 0; /* NoSuchMethodError pending */
  }
  memset(&options, 0, sizeof(options));
  options.num_threads = threads;
  options.context_length = context;
  options.ubatch_size = ubatch;
  p = get_cstr(env, path);
  st = edgeq_llm_load_with_progress(p, &options, listener != NULL ? on_progress : NULL, &sink,
                                    &llm);
  release_cstr(env, path, p);
  if ((*env)->ExceptionCheck(env)) {
    edgeq_llm_free(llm);
    return 0; /* the listener's exception reaches the caller */
  }
  if (check(env, st)) return 0;
  return (jlong)(intptr_t)llm;
}

