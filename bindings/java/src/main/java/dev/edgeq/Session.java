package dev.edgeq;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The sequence of an {@link LlmModel}: generate (streaming to a {@link TokenListener}), cancel
 * from another thread, reset, and output constraints (GBNF grammar or JSON schema).
 */
public final class Session {
  private final LlmModel model;
  private volatile boolean cancelRequested;
  private volatile java.util.function.BooleanSupplier abortCheck;
  // State of the running generation (guarded by the model's lock).
  private TokenListener listener;
  private final ByteArrayOutputStream text = new ByteArrayOutputStream();
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
  private boolean cancelled;
  // True while the native generation runs: a listener may not reset, generate, constrain or
  // close the model it is being called from (the C API's handle is in use).
  private boolean generating;

  Session(LlmModel model) {
    this.model = model;
  }

  /** Tokenizes {@code prompt} (with BOS when the vocabulary asks) and generates. */
  public GenerationResult generate(
      String prompt, int maxTokens, SamplingParams params, TokenListener listener) {
    synchronized (model) {
      boolean first = nPast() == 0;
      int[] ids = model.tokenizer().encode(prompt, first);
      return generate(ids, maxTokens, params, listener);
    }
  }

  /**
   * Appends {@code prompt} (may be empty to continue) and samples up to {@code maxTokens} tokens
   * (< 0: until end of generation or the end of the context); params null: greedy. Stops early
   * when {@link #cancel()} is called (the result says so) or when the listener throws (the
   * exception is rethrown here).
   */
  public GenerationResult generate(
      int[] prompt, int maxTokens, SamplingParams params, TokenListener listener) {
    synchronized (model) {
      checkNotGenerating("generate");
      long h = model.handle();
      this.listener = listener;
      this.cancelled = false;
      this.cancelRequested = false;
      text.reset();
      pending.reset();
      generating = true;
      try {
        int[] ids =
            Native.llmGenerate(
                h,
                prompt,
                maxTokens,
                params != null ? params.floats() : null,
                params != null ? params.ints() : null,
                this);
        flushPending();
        if (cancelRequested) {
          cancelled = true; // stopped by edgeq_llm_cancel, possibly during the prompt
        }
        return new GenerationResult(
            ids, new String(text.toByteArray(), StandardCharsets.UTF_8), cancelled);
      } finally {
        this.listener = null;
        generating = false;
      }
    }
  }

  /**
   * Chat: the conversation rendered by the model's chat template (GGUF tokenizer.chat_template)
   * and generated from a fresh context; the result's text is the reply.
   */
  public GenerationResult chat(
      List<ChatMessage> messages, int maxTokens, SamplingParams params, TokenListener listener) {
    return chat(null, messages, maxTokens, params, listener);
  }

  /**
   * Chat with {@code chatTemplate}: null for the model's own (EdgeqException NOT_FOUND when it
   * has none), a preset name ("chatml", "llama3", "gemma", ...) or Jinja text.
   */
  public GenerationResult chat(
      String chatTemplate,
      List<ChatMessage> messages,
      int maxTokens,
      SamplingParams params,
      TokenListener listener) {
    synchronized (model) {
      int[] ids = chatPrompt(chatTemplate, messages);
      reset();
      return generate(ids, maxTokens, params, listener);
    }
  }

  /** The prompt ids of a conversation (the template's text with its control tokens matched). */
  public int[] chatPrompt(String chatTemplate, List<ChatMessage> messages) {
    byte[][] roles = new byte[messages.size()][];
    byte[][] contents = new byte[messages.size()][];
    for (int i = 0; i < roles.length; ++i) {
      roles[i] = Native.cstr("message " + i + " role", messages.get(i).role());
      contents[i] = Native.cstr("message " + i + " content", messages.get(i).content());
    }
    byte[] t =
        chatTemplate == null || chatTemplate.isEmpty()
            ? null
            : Native.cstr("chatTemplate", chatTemplate);
    synchronized (model) {
      return Native.llmChatTokenize(model.handle(), t, roles, contents, true);
    }
  }

  /**
   * Stops the running generation at its next check: before the next prompt block (the ubatch)
   * or the next token (safe from any thread; a no-op when none runs). The generation returns
   * normally with {@code cancelled() == true} and the tokens so far; the prompt blocks already
   * run stay in the context ({@link #nPast()}), and a later generate goes on from there.
   */
  public void cancel() {
    cancelRequested = true;
    model.nativeCancel();
  }

  /** The session's state (edgeq_llm_state_save): tokens, KV cache rows, sampler state. */
  public byte[] saveState() {
    synchronized (model) {
      checkNotGenerating("saveState");
      return Native.llmStateSave(model.handle(), null);
    }
  }

  /** The same, written to {@code path} atomically. */
  public void saveState(String path) {
    byte[] p = Native.cstr("path", path);
    synchronized (model) {
      checkNotGenerating("saveState");
      Native.llmStateSave(model.handle(), p);
    }
  }

  /**
   * Restores a state from {@link #saveState()}: the next generate (prompt may be empty)
   * continues as the saved session would have. EdgeqException IO for truncated or corrupted
   * bytes, INVALID_ARGUMENT for another model's state; the session is then unchanged.
   */
  public void loadState(byte[] state) {
    synchronized (model) {
      checkNotGenerating("loadState");
      Native.llmStateLoad(model.handle(), state, null);
    }
  }

  /** The same from a file written by {@link #saveState(String)}. */
  public void loadState(String path) {
    byte[] p = Native.cstr("path", path);
    synchronized (model) {
      checkNotGenerating("loadState");
      Native.llmStateLoad(model.handle(), null, p);
    }
  }

  /** Forgets the sequence. */
  public void reset() {
    synchronized (model) {
      checkNotGenerating("reset");
      Native.llmReset(model.handle());
    }
  }

  /** Tokens in the context. */
  public int nPast() {
    synchronized (model) {
      return Native.llmInfo(model.handle(), 3);
    }
  }

  /** Constrains the following generations to a GBNF grammar (null or "": no constraint). */
  public void setGrammar(String gbnf) {
    byte[] g = gbnf == null || gbnf.isEmpty() ? null : Native.cstr("grammar", gbnf);
    synchronized (model) {
      checkNotGenerating("a constraint");
      Native.llmConstrain(model.handle(), 0, g);
    }
  }

  /** Constrains the following generations to JSON valid under a schema (null: none). */
  public void setJsonSchema(String schema) {
    byte[] s = schema == null || schema.isEmpty() ? null : Native.cstr("schema", schema);
    synchronized (model) {
      checkNotGenerating("a constraint");
      Native.llmConstrain(model.handle(), 1, s);
    }
  }

  /** Throws IllegalStateException when called from this session's listener. */
  void checkNotGenerating(String what) {
    if (generating) {
      throw new IllegalStateException(
          what + " called from a TokenListener during generate; expected cancel() there");
    }
  }

  /**
   * {@code check} (null: none) is called on the generating thread before each prompt block and
   * each token; true stops the generation as {@link #cancel()} does. An exception it throws
   * stops it too and is rethrown by generate.
   */
  public void setAbortCheck(java.util.function.BooleanSupplier check) {
    abortCheck = check;
  }

  // Called from JNI before each prompt block and token (edgeq_jni.c, on_abort).
  boolean onNativeAbortCheck() {
    java.util.function.BooleanSupplier c = abortCheck;
    if (c != null && c.getAsBoolean()) {
      cancelRequested = true;
      return true;
    }
    return false;
  }

  // Called from JNI for each token (edgeq_jni.c, on_token); false stops the generation.
  boolean onNativeToken(int token, byte[] piece) {
    pending.write(piece, 0, piece.length);
    byte[] p = pending.toByteArray();
    int complete = completeUtf8Prefix(p);
    String s = new String(p, 0, complete, StandardCharsets.UTF_8);
    text.write(p, 0, complete);
    pending.reset();
    pending.write(p, complete, p.length - complete);
    if (listener != null) {
      listener.onToken(token, s);
    }
    if (cancelRequested) {
      cancelled = true;
      return false;
    }
    return true;
  }

  private void flushPending() {
    byte[] p = pending.toByteArray();
    text.write(p, 0, p.length);
    pending.reset();
  }

  /** Length of the longest prefix of {@code b} that does not end inside a UTF-8 character. */
  static int completeUtf8Prefix(byte[] b) {
    int n = b.length;
    // Look back at most 3 bytes for the lead byte of the last character.
    for (int back = 1; back <= Math.min(4, n); ++back) {
      int c = b[n - back] & 0xFF;
      if ((c & 0xC0) == 0x80) {
        continue; // a continuation byte
      }
      int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
      return back < len ? n - back : n;
    }
    return n;
  }
}
