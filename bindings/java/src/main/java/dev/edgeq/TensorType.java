package dev.edgeq;

import java.util.Arrays;

/** A tensor's storage dtype ("f32", "i32", ...) and logical shape (last dimension contiguous). */
public final class TensorType {
  private final String dtype;
  private final long[] shape;

  public TensorType(String dtype, long... shape) {
    this.dtype = dtype;
    this.shape = shape.clone();
  }

  /** An f32 tensor of the given shape. */
  public static TensorType f32(long... shape) {
    return new TensorType("f32", shape);
  }

  public String dtype() {
    return dtype;
  }

  public long[] shape() {
    return shape.clone();
  }

  /** The number of elements (product of the shape). */
  public long elementCount() {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    return n;
  }

  @Override
  public String toString() {
    return dtype + Arrays.toString(shape);
  }
}
