package dev.edgeq;

/**
 * A graph (edgeq::Graph through the C API). The seeds' example:
 *
 * <pre>{@code
 * try (Graph graph = new Graph("qmatmul", TensorType.f32(32, 64));
 *      InferenceSession session = new InferenceSession(2)) {
 *   Value w = graph.quantize("q4_0", weights, 32, 64);
 *   graph.output(graph.qmatmul("q4_0", graph.input(0), w));
 *   try (Model model = session.load(graph)) {
 *     float[] y = model.execute(input)[0];   // f32 [32, 32]
 *   }
 * }
 * }</pre>
 *
 * A failed call throws {@link EdgeqException} and leaves the graph as it was.
 */
public final class Graph implements AutoCloseable {
  private long handle;

  public Graph(String name, TensorType... inputs) {
    byte[][] dtypes = new byte[inputs.length][];
    long[][] shapes = new long[inputs.length][];
    for (int i = 0; i < inputs.length; ++i) {
      dtypes[i] = Native.cstr("dtype", inputs[i].dtype());
      shapes[i] = inputs[i].shape();
    }
    handle = Native.graphCreate(Native.cstr("name", name), dtypes, shapes);
  }

  synchronized long handle() {
    Native.checkOpen(handle, "Graph");
    return handle;
  }

  private int id(Value v) {
    if (v == null || v.graph != this) {
      throw new IllegalArgumentException("a Value of another graph; expected one of this graph");
    }
    return v.id;
  }

  /** Input {@code index} ("input0", ...). */
  public synchronized Value input(int index) {
    return new Value(this, Native.graphInput(handle(), index));
  }

  /** A constant f32 tensor (copied). */
  public synchronized Value constant(float[] data, long... shape) {
    return new Value(this, Native.graphConstant(handle(), null, data, shape));
  }

  /** graph.Quantize: f32 data of {@code shape} quantized with {@code encoding} into a constant. */
  public synchronized Value quantize(String encoding, float[] data, long... shape) {
    return new Value(
        this, Native.graphConstant(handle(), Native.cstr("encoding", encoding), data, shape));
  }

  /** A constant of already-quantized rows; {@code shape} is the logical shape. */
  public synchronized Value quantizedConstant(String encoding, byte[] data, long... shape) {
    return new Value(
        this,
        Native.graphQuantizedConstant(handle(), Native.cstr("encoding", encoding), data, shape));
  }

  /** ops::QMatmul(encoding, lhs, rhs): lhs f32 [..., k] . rhs^T, rhs quantized [n, k]. */
  public synchronized Value qmatmul(String encoding, Value lhs, Value rhs) {
    return new Value(
        this, Native.graphQMatmul(handle(), Native.cstr("encoding", encoding), id(lhs), id(rhs)));
  }

  /** Other ops by name: "matmul", "add", "softmax", "silu", "rms_norm", ... (edgeq_graph_op). */
  public synchronized Value op(String name, Value... inputs) {
    int[] ids = new int[inputs.length];
    for (int i = 0; i < inputs.length; ++i) {
      ids[i] = id(inputs[i]);
    }
    return new Value(this, Native.graphOp(handle(), Native.cstr("op", name), ids));
  }

  /** Marks {@code value} as the next output ("output0", ...). */
  public synchronized void output(Value value) {
    Native.graphOutput(handle(), id(value));
  }

  /** The graph as text (Graph::ToString). */
  @Override
  public synchronized String toString() {
    return handle == 0 ? "Graph(closed)" : Native.str(Native.graphToString(handle));
  }

  @Override
  public synchronized void close() {
    if (handle != 0) {
      Native.graphFree(handle);
      handle = 0;
    }
  }
}
