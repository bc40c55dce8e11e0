package dev.edgeq;

/** Load progress ({@code edgeq_llm_load_with_progress}): called on the loading thread. */
@FunctionalInterface
public interface LoadProgressListener {
  /**
   * {@code fraction} done in [0, 1] (0 first, 1 last). Return false to cancel the load
   * (EdgeqException CANCELLED); an exception thrown here cancels it and reaches the caller.
   */
  boolean onProgress(float fraction);
}
