package dev.edgeq;

/**
 * A language model loaded through the C API's {@code edgeq_llm_load} (GGUF, .max, llama2.c .bin,
 * safetensors) with its tokenizer when the file carries one. It holds one sequence, driven by
 * {@link #session()}. Calls are serialized on the model (the C API's "one thread per handle");
 * {@link Session#cancel()} is the one call meant for another thread.
 *
 * <pre>{@code
 * try (LlmModel model = LlmModel.load(path, new LlmModel.Options().numThreads(2))) {
 *   GenerationResult r = model.session().generate("Once upon a time", 64, null,
 *       (token, text) -> System.out.print(text));
 * }
 * }</pre>
 */
public final class LlmModel implements AutoCloseable {
  /** Load options (edgeq_llm_options). */
  public static final class Options {
    int numThreads;
    int contextLength;
    int ubatchSize;

    /** Kernel threads (<= 0: 1; at most 1024). */
    public Options numThreads(int n) {
      numThreads = n;
      return this;
    }

    /** Context length in tokens (<= 0: the model's; at most 1048576). */
    public Options contextLength(int n) {
      contextLength = n;
      return this;
    }

    /** Prompt tokens per prefill graph run (<= 0: edgeq's default, 512; at most 4096). */
    public Options ubatchSize(int n) {
      ubatchSize = n;
      return this;
    }
  }

  private long handle;
  // Guards handle's release against Session.cancel() from another thread (which does not take
  // the model's lock, held by the generating thread).
  private final Object cancelLock = new Object();
  private final Session session;
  private final Tokenizer tokenizer;

  private LlmModel(long handle) {
    this.handle = handle;
    this.session = new Session(this);
    this.tokenizer = new Tokenizer(this);
  }

  /** Loads with default options (one thread, the model's context). */
  public static LlmModel load(String path) {
    return load(path, new Options());
  }

  /** Loads {@code path}; throws {@link EdgeqException} with the C API's message on failure. */
  public static LlmModel load(String path, Options options) {
    return load(path, options, null);
  }

  /**
   * Loads {@code path}, calling {@code listener} (may be null) with the fraction done; the
   * listener returning
   * false cancels the load (EdgeqException CANCELLED), and an exception it throws cancels it and
   * is rethrown here.
   */
  public static LlmModel load(String path, Options options, LoadProgressListener listener) {
    Options o = options != null ? options : new Options();
    return new LlmModel(
        Native.llmLoadWithProgress(
            Native.cstr("path", path), o.numThreads, o.contextLength, o.ubatchSize, listener));
  }

  // edgeq_llm_cancel: any thread, without the model's lock.
  void nativeCancel() {
    synchronized (cancelLock) {
      if (handle != 0) {
        Native.llmCancel(handle);
      }
    }
  }

  synchronized long handle() {
    Native.checkOpen(handle, "LlmModel");
    return handle;
  }

  public synchronized int vocabSize() {
    return Native.llmInfo(handle(), 0);
  }

  public synchronized int contextLength() {
    return Native.llmInfo(handle(), 1);
  }

  /** The end-of-sequence token id, -1 without a vocabulary. */
  public synchronized int eosToken() {
    return Native.llmInfo(handle(), 2);
  }

  /** The model's sequence: generation, cancel, reset, constraints. */
  public Session session() {
    return session;
  }

  public Tokenizer tokenizer() {
    return tokenizer;
  }

  /** Frees the native model; waits for a running generation to end. Idempotent. */
  @Override
  public synchronized void close() {
    session.checkNotGenerating("close");
    synchronized (cancelLock) {
      if (handle != 0) {
        Native.llmFree(handle);
        handle = 0;
      }
    }
  }
}
