package dev.edgeq;

/** The model's vocabulary (GGUF tokenizer.ggml.*): text <-> token ids. */
public final class Tokenizer {
  private final LlmModel model;

  Tokenizer(LlmModel model) {
    this.model = model;
  }

  /** Text -> ids, with BOS when the vocabulary asks for it. */
  public int[] encode(String text) {
    return encode(text, true);
  }

  /**
   * Text -> ids; {@code addSpecial}: BOS when the vocabulary asks. Text holding a NUL character
   * is refused (IllegalArgumentException naming its index).
   */
  public int[] encode(String text, boolean addSpecial) {
    byte[] t = Native.cstr("text", text);
    synchronized (model) {
      return Native.llmTokenize(model.handle(), t, addSpecial);
    }
  }

  /** Ids -> text (UTF-8 decoded; NUL bytes of byte tokens come back as '\0'). */
  public String decode(int[] tokens) {
    synchronized (model) {
      return Native.str(Native.llmDetokenize(model.handle(), tokens));
    }
  }
}
