/* A minimal JNI wrapper over edgeq's C API for an Android app (not built in this repository;
 * see docs/android.md). Java side:
 *
 *   package org.example.edgeq;
 *   public final class Edgeq {
 *     static { System.loadLibrary("edgeq_jni"); }
 *     public static native long load(String modelPath);        // 0 on error
 *     public static native String generate(long handle, String prompt, int maxTokens);
 *     public static native void free(long handle);
 *     public static native String lastError();
 *   }
 */
#include <jni.h>
#include <stdlib.h>
#include <string.h>

#include <edgeq/edgeq.h>

typedef struct {
  char* text;
  size_t length;
  size_t capacity;
} text_buffer;

static int append_piece(int32_t token, const char* piece, void* user) {
  text_buffer* b = (text_buffer*)user;
  size_t n = strlen(piece);
  (void)token;
  if (b->length + n + 1 > b->capacity) {
    size_t capacity = (b->capacity + n + 1) * 2;
    char* grown = (char*)realloc(b->text, capacity);
    if (grown == NULL) return 0; /* stop generating */
    b->text = grown;
    b->capacity = capacity;
  }
  memcpy(b->text + b->length, piece, n + 1);
  b->length += n;
  return 1;
}

JNIEXPORT jlong JNICALL Java_org_example_edgeq_Edgeq_load(JNIEnv* env, jclass cls,
                                                           jstring model_path) {
  const char* path = (*env)->GetStringUTFChars(env, model_path, NULL);
  edgeq_llm_options options = {2 /* threads */, 512 /* context */};
  edgeq_llm* llm = NULL;
  edgeq_status status = edgeq_llm_load(path, &options, &llm);
  (void)cls;
  (*env)->ReleaseStringUTFChars(env, model_path, path);
  return status == EDGEQ_OK ? (jlong)(intptr_t)llm : 0;
}

JNIEXPORT jstring JNICALL Java_org_example_edgeq_Edgeq_generate(JNIEnv* env, jclass cls,
                                                                jlong handle, jstring prompt,
                                                                jint max_tokens) {
  edgeq_llm* llm = (edgeq_llm*)(intptr_t)handle;
  const char* text = (*env)->GetStringUTFChars(env, prompt, NULL);
  int32_t ids[512];
  size_t n = 0;
  text_buffer out = {NULL, 0, 0};
  jstring result = NULL;
  edgeq_sampling_params params = edgeq_sampling_default();
  (void)cls;
  edgeq_llm_reset(llm);
  if (edgeq_llm_tokenize(llm, text, 1, ids, 512, &n) == EDGEQ_OK &&
      edgeq_llm_generate(llm, ids, n, max_tokens, &params, append_piece, &out, NULL, 0, NULL) ==
          EDGEQ_OK) {
    result = (*env)->NewStringUTF(env, out.text != NULL ? out.text : "");
  }
  (*env)->ReleaseStringUTFChars(env, prompt, text);
  free(out.text);
  return result; /* null on error: call lastError() on the same thread */
}

JNIEXPORT void JNICALL Java_org_example_edgeq_Edgeq_free(JNIEnv* env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  edgeq_llm_free((edgeq_llm*)(intptr_t)handle);
}

JNIEXPORT jstring JNICALL Java_org_example_edgeq_Edgeq_lastError(JNIEnv* env, jclass cls) {
  (void)cls;
  return (*env)->NewStringUTF(env, edgeq_last_error());
}
