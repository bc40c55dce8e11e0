package dev.edgeq;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Library info and the one-shot codec calls of the C API. */
public final class Edgeq {
  private Edgeq() {}

  /** "0.1.0". */
  public static String version() {
    return Native.str(Native.version());
  }

  /** The best qmatmul ISA of this CPU: "generic", "avx2", ..., "neon", "dotprod", "i8mm". */
  public static String bestIsa() {
    return Native.str(Native.bestIsa());
  }

  /** The registered encodings' names, sorted, lower case ("q4_0", ...). */
  public static List<String> encodings() {
    int n = Native.encodingCount();
    List<String> names = new ArrayList<>(n);
    for (int i = 0; i < n; ++i) {
      names.add(Native.str(Native.encodingName(i)));
    }
    return Collections.unmodifiableList(names);
  }

  /** Bytes of {@code rows} rows of {@code k} values in {@code encoding}. */
  public static long quantizedSize(String encoding, long rows, long k) {
    return Native.quantizedSize(Native.cstr("encoding", encoding), rows, k);
  }

  /** Quantizes rows x k floats (bit-exact with GGML's reference quantizers). */
  public static byte[] quantize(String encoding, float[] x, long rows, long k) {
    return Native.quantize(Native.cstr("encoding", encoding), x, rows, k);
  }

  /** Decodes rows x k values. */
  public static float[] dequantize(String encoding, byte[] data, long rows, long k) {
    if (rows < 0 || k < 0 || rows * k > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "dequantize: rows x k is " + rows + " x " + k + "; expected at most 2^31 - 9 values");
    }
    return Native.dequantize(Native.cstr("encoding", encoding), data, rows, k);
  }

  /** y[m, n] = x[m, k] . W[n, k]^T with W quantized in {@code encoding}; one thread. */
  public static float[] qmatmul(String encoding, byte[] w, long n, long k, float[] x, long m) {
    if (m < 0 || n < 0 || m * n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "qmatmul: m x n is " + m + " x " + n + "; expected at most 2^31 - 9 values");
    }
    return Native.qmatmul(Native.cstr("encoding", encoding), w, n, k, x, m);
  }
}
