package dev.edgeq;

/** An InferenceSession: compiles graphs into {@link Model}s run by its kernel threads. */
public final class InferenceSession implements AutoCloseable {
  private long handle;

  /** One kernel thread. */
  public InferenceSession() {
    this(1);
  }

  /** {@code numThreads} kernel threads (<= 0: 1; at most 1024). */
  public InferenceSession(int numThreads) {
    handle = Native.sessionCreate(numThreads);
  }

  /** Verifies, plans and picks kernels; the model does not refer to the graph afterwards. */
  public synchronized Model load(Graph graph) {
    Native.checkOpen(handle, "InferenceSession");
    synchronized (graph) {
      return new Model(Native.sessionLoad(handle, graph.handle()));
    }
  }

  @Override
  public synchronized void close() {
    if (handle != 0) {
      Native.sessionFree(handle);
      handle = 0;
    }
  }
}
