package dev.edgeq;

/** What one {@link Session#generate} call produced. */
public final class GenerationResult {
  private final int[] tokens;
  private final String text;
  private final boolean cancelled;

  GenerationResult(int[] tokens, String text, boolean cancelled) {
    this.tokens = tokens;
    this.text = text;
    this.cancelled = cancelled;
  }

  /** The generated ids (a final end-of-generation token included). */
  public int[] tokens() {
    return tokens.clone();
  }

  /** The generated ids decoded ("" without a vocabulary). */
  public String text() {
    return text;
  }

  /** True when {@link Session#cancel()} stopped it. */
  public boolean cancelled() {
    return cancelled;
  }
}
