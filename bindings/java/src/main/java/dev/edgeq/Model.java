package dev.edgeq;

import java.nio.charset.StandardCharsets;

/** A compiled graph (edgeq_model): typed inputs and outputs, executed on Java arrays. */
public final class Model implements AutoCloseable {
  private long handle;

  Model(long handle) {
    this.handle = handle;
  }

  private long handle() {
    Native.checkOpen(handle, "Model");
    return handle;
  }

  public synchronized int inputCount() {
    return Native.modelCount(handle(), false);
  }

  public synchronized int outputCount() {
    return Native.modelCount(handle(), true);
  }

  public synchronized TensorType inputType(int index) {
    return type(false, index);
  }

  public synchronized TensorType outputType(int index) {
    return type(true, index);
  }

  private TensorType type(boolean output, int index) {
    byte[] dtype = new byte[16];
    long[] shape = Native.modelType(handle(), output, index, dtype);
    int n = 0;
    while (n < dtype.length && dtype[n] != 0) {
      ++n;
    }
    return new TensorType(new String(dtype, 0, n, StandardCharsets.US_ASCII), shape);
  }

  /** Runs a model whose inputs and outputs are all f32: one float[] per input, in order. */
  public synchronized float[][] execute(float[]... inputs) {
    Object[] out = executeArrays(inputs);
    float[][] y = new float[out.length][];
    for (int i = 0; i < out.length; ++i) {
      if (!(out[i] instanceof float[])) {
        throw new IllegalStateException(
            "output " + i + " is " + outputType(i).dtype() + "; execute(float[]...) returns f32 "
                + "outputs only (use executeArrays)");
      }
      y[i] = (float[]) out[i];
    }
    return y;
  }

  /**
   * Runs the model on primitive arrays (f32: float[], i32: int[], i64: long[], u8/i8: byte[]) of
   * the declared sizes; returns the outputs as such arrays.
   */
  public synchronized Object[] executeArrays(Object[] inputs) {
    int ni = inputCount();
    if (inputs.length != ni) {
      throw new IllegalArgumentException(
          "execute: " + inputs.length + " inputs given; expected " + ni);
    }
    for (int i = 0; i < ni; ++i) {
      TensorType t = inputType(i);
      if (length(inputs[i], t.dtype(), "input " + i) != t.elementCount()) {
        throw new IllegalArgumentException(
            "execute: input " + i + " holds " + length(inputs[i], t.dtype(), "input " + i)
                + " values; expected " + t.elementCount() + " (" + t + ")");
      }
    }
    Object[] outputs = new Object[outputCount()];
    for (int i = 0; i < outputs.length; ++i) {
      TensorType t = outputType(i);
      outputs[i] = allocate(t, "output " + i);
    }
    Native.modelExecute(handle(), inputs, outputs);
    return outputs;
  }

  private static long length(Object a, String dtype, String what) {
    switch (dtype) {
      case "f32":
        if (a instanceof float[]) return ((float[]) a).length;
        break;
      case "i32":
        if (a instanceof int[]) return ((int[]) a).length;
        break;
      case "i64":
        if (a instanceof long[]) return ((long[]) a).length;
        break;
      case "u8":
      case "i8":
        if (a instanceof byte[]) return ((byte[]) a).length;
        break;
      default:
        break;
    }
    throw new IllegalArgumentException(
        "execute: " + what + " is " + (a == null ? "null" : a.getClass().getSimpleName())
            + "; expected the array type of dtype " + dtype);
  }

  private static Object allocate(TensorType t, String what) {
    long n = t.elementCount();
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException(what + " " + t + " is too large for a Java array");
    }
    switch (t.dtype()) {
      case "f32":
        return new float[(int) n];
      case "i32":
        return new int[(int) n];
      case "i64":
        return new long[(int) n];
      case "u8":
      case "i8":
        return new byte[(int) n];
      default:
        throw new IllegalStateException(
            what + " has dtype " + t.dtype() + ", not supported in Java");
    }
  }

  @Override
  public synchronized void close() {
    if (handle != 0) {
      Native.modelFree(handle);
      handle = 0;
    }
  }
}
