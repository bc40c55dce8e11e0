package dev.edgeq;

import java.nio.charset.StandardCharsets;

/**
 * The native methods (bindings/java/jni/edgeq_jni.c, one per C API call) and the string
 * conventions: strings go down as NUL-terminated UTF-8 byte arrays and come back as UTF-8 byte
 * arrays, never through JNI's modified UTF-8.
 *
 * <p>Loading: with the system property {@code edgeq.library.dir} set, {@code libedgeq.so} and
 * {@code libedgeq_jni.so} are loaded from that directory; otherwise by name from
 * {@code java.library.path} (on Android: the APK's {@code lib/arm64-v8a/}).
 */
final class Native {
  static {
    String dir = System.getProperty("edgeq.library.dir");
    if (dir != null && !dir.isEmpty()) {
      System.load(new java.io.File(dir, "libedgeq.so").getAbsolutePath());
      System.load(new java.io.File(dir, "libedgeq_jni.so").getAbsolutePath());
    } else {
      System.loadLibrary("edgeq");
      System.loadLibrary("edgeq_jni");
    }
  }

  private Native() {}

  /** {@code s} as UTF-8 plus a terminating 0; a NUL inside is refused (C strings end there). */
  static byte[] cstr(String what, String s) {
    if (s == null) {
      return null;
    }
    int nul = s.indexOf('\0');
    if (nul >= 0) {
      throw new IllegalArgumentException(
          what + " holds a NUL character at index " + nul
              + "; expected text without NUL (the C API takes NUL-terminated strings)");
    }
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[utf8.length + 1];
    System.arraycopy(utf8, 0, out, 0, utf8.length);
    return out;
  }

  static String str(byte[] utf8) {
    return utf8 == null ? null : new String(utf8, StandardCharsets.UTF_8);
  }

  static void checkOpen(long handle, String what) {
    if (handle == 0) {
      throw new IllegalStateException(what + " is closed");
    }
  }

  // Library info and one-shot calls.
  static native byte[] version();

  static native byte[] bestIsa();

  static native int encodingCount();

  static native byte[] encodingName(int index);

  static native long quantizedSize(byte[] encoding, long rows, long k);

  static native byte[] quantize(byte[] encoding, float[] x, long rows, long k);

  static native float[] dequantize(byte[] encoding, byte[] data, long rows, long k);

  static native float[] qmatmul(byte[] encoding, byte[] w, long n, long k, float[] x, long m);

  // LLM.
  static native long llmLoad(byte[] path, int threads, int context);

  static native void llmFree(long llm);

  static native int llmInfo(long llm, int what);

  static native void llmReset(long llm);

  static native int[] llmTokenize(long llm, byte[] text, boolean addSpecial);

  static native byte[] llmDetokenize(long llm, int[] tokens);

  static native int[] llmGenerate(
      long llm, int[] prompt, int maxTokens, float[] fparams, int[] iparams, Object target);

  static native void llmSamplingDefault(float[] fparams, int[] iparams);

  static native void llmConstrain(long llm, int kind, byte[] text);

  static native void llmCancel(long llm);

  static native byte[] llmStateSave(long llm, byte[] path);

  static native void llmStateLoad(long llm, byte[] data, byte[] path);

  static native long llmLoadWithProgress(
      byte[] path, int threads, int context, int ubatch, LoadProgressListener listener);

  static native int[] llmChatTokenize(
      long llm,
      byte[] chatTemplate,
      byte[][] roles,
      byte[][] contents,
      boolean addGenerationPrompt);

  // Graphs, sessions, compiled models.
  static native long graphCreate(byte[] name, byte[][] dtypes, long[][] shapes);

  static native void graphFree(long graph);

  static native int graphInput(long graph, int index);

  static native int graphConstant(long graph, byte[] encoding, float[] data, long[] shape);

  static native int graphQuantizedConstant(long graph, byte[] encoding, byte[] data, long[] shape);

  static native int graphQMatmul(long graph, byte[] encoding, int lhs, int rhs);

  static native int graphOp(long graph, byte[] op, int[] inputs);

  static native void graphOutput(long graph, int value);

  static native byte[] graphToString(long graph);

  static native long sessionCreate(int threads);

  static native void sessionFree(long session);

  static native long sessionLoad(long session, long graph);

  static native void modelFree(long model);

  static native int modelCount(long model, boolean outputs);

  static native long[] modelType(long model, boolean output, int index, byte[] dtype);

  static native void modelExecute(long model, Object[] inputs, Object[] outputs);
}
