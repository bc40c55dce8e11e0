/* Helpers shared by the JNI layer's C files (edgeq_jni.c, edgeq_jni_state.c); hidden, not part
 * of the library's interface. */
#ifndef EDGEQ_BINDINGS_JAVA_JNI_JNI_UTIL_H_
#define EDGEQ_BINDINGS_JAVA_JNI_JNI_UTIL_H_

#include <jni.h>
#include <stddef.h>

#include "edgeq/edgeq.h"

#define EDGEQ_JNI(ret, name) JNIEXPORT ret JNICALL Java_dev_edgeq_Native_##name
#define EDGEQ_JNI_INTERNAL __attribute__((visibility("hidden")))

/* Throws a new `cls_name` (e.g. "java/lang/OutOfMemoryError") with `message`. */
EDGEQ_JNI_INTERNAL void throw_class(JNIEnv* env, const char* cls_name, const char* message);
/* A byte[] of n bytes (NULL with OutOfMemoryError pending above 2 GiB). */
EDGEQ_JNI_INTERNAL jbyteArray new_bytes(JNIEnv* env, const char* data, size_t n);
/* Throws EdgeqException(status, edgeq_last_error()) unless status is EDGEQ_OK; 1 if it threw. */
EDGEQ_JNI_INTERNAL int check(JNIEnv* env, edgeq_status status);
/* A NUL-terminated string from a byte[] the Java side terminated; freed by release_cstr. */
EDGEQ_JNI_INTERNAL const char* get_cstr(JNIEnv* env, jbyteArray a);
EDGEQ_JNI_INTERNAL void release_cstr(JNIEnv* env, jbyteArray a, const char* s);

#endif /* EDGEQ_BINDINGS_JAVA_JNI_JNI_UTIL_H_ */
