package dev.edgeq;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * LlmModel, Session and Tokenizer on stories260K.gguf (system property edgeq.model, set by
 * java_test.sh from @edgeq_refdata//:models; that script skips these tests, with the reason,
 * when the model is absent).
 */
public class LlmTest {
  private static LlmModel model;

  @BeforeClass
  public static void load() {
    model = LlmModel.load(System.getProperty("edgeq.model"), new LlmModel.Options().numThreads(1));
  }

  @AfterClass
  public static void free() {
    model.close();
  }

  private static String golden(String name) throws Exception {
    return new String(
        Files.readAllBytes(Paths.get(System.getProperty("edgeq.golden_dir"), name)),
        StandardCharsets.UTF_8);
  }

  // Greedy generation equals llama2.c run.c's greedy output for stories260K
  // (tests/testdata/tinystories/once_upon_a_time.txt), streamed text and result alike.
  @Test
  public void greedyGenerationMatchesTheGolden() throws Exception {
    assertEquals(512, model.vocabSize());
    Session s = model.session();
    s.reset();
    StringBuilder streamed = new StringBuilder();
    AtomicInteger calls = new AtomicInteger();
    GenerationResult r =
        s.generate(
            "Once upon a time",
            40,
            null,
            (token, text) -> {
              calls.incrementAndGet();
              streamed.append(text);
            });
    assertEquals(40, r.tokens().length);
    assertEquals(40, calls.get());
    assertFalse(r.cancelled());
    assertEquals(streamed.toString(), r.text());
    String want = golden("once_upon_a_time.txt");
    assertTrue(r.text(), want.startsWith("Once upon a time" + r.text()));
    assertTrue(r.text(), r.text().length() > 100);
    assertEquals(r.text().trim(), model.tokenizer().decode(r.tokens()).trim());
  }

  @Test
  public void stringsCrossAsUtf8() {
    Tokenizer t = model.tokenizer();
    // Non-BMP (surrogate pairs in Java, 4 UTF-8 bytes) and other scripts through byte tokens.
    String text = "Hi \uD83D\uDE00 caf\u00E9 \u4E2D";
    int[] ids = t.encode(text, false);
    assertEquals(text, t.decode(ids).replaceFirst("^ ", ""));
    // NUL: refused on the way in (C strings end there), kept on the way out.
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> t.encode("ab\0c", false));
    assertTrue(e.getMessage(), e.getMessage().contains("NUL character at index 2"));
    int[] nul = t.encode("\u0001", false);
    assertTrue(nul.length >= 1);
    int byteZero = nul[nul.length - 1] - 1; // <0x00> is the byte token before <0x01>
    assertEquals("\u0000", t.decode(new int[] {byteZero}));
    // A streamed emoji arrives whole: the listener sees "" for its first three bytes.
    assertEquals(3, Session.completeUtf8Prefix(new byte[] {'a', 'b', 'c', (byte) 0xF0}));
    assertEquals(1, Session.completeUtf8Prefix(new byte[] {'a', (byte) 0xF0, (byte) 0x9F}));
    assertEquals(
        5,
        Session.completeUtf8Prefix(
            new byte[] {'a', (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80}));
  }

  @Test
  public void loadErrorsCarryTheCApiMessage() {
    String path = "/nonexistent/dir/\uD83D\uDE00.gguf";
    EdgeqException e = assertThrows(EdgeqException.class, () -> LlmModel.load(path));
    assertTrue(e.getMessage(), e.getMessage().contains(path));
    assertTrue(e.statusName(), e.status() != 0);
    EdgeqException ctx =
        assertThrows(
            EdgeqException.class,
            () -> LlmModel.load(path, new LlmModel.Options().contextLength(2000000)));
    assertTrue(ctx.getMessage(), ctx.getMessage().contains("context_length is 2000000"));
    assertEquals("INVALID_ARGUMENT", ctx.statusName());
  }

  // A listener's exception stops the generation at once and reaches the caller; the model stays
  // usable.
  @Test
  public void listenerExceptionReachesTheCaller() {
    Session s = model.session();
    s.reset();
    IllegalStateException boom = new IllegalStateException("boom");
    AtomicInteger calls = new AtomicInteger();
    try {
      s.generate(
          "Once upon a time",
          100,
          null,
          (token, text) -> {
            if (calls.incrementAndGet() == 6) {
              throw boom;
            }
          });
      fail("the listener's exception was swallowed");
    } catch (IllegalStateException e) {
      assertSame(boom, e);
    }
    assertEquals(6, calls.get());
    s.reset();
    assertEquals(5, s.generate("Once upon a time", 5, null, null).tokens().length);
  }

  // A listener may not pull the handle from under the running generation.
  @Test
  public void listenerCannotResetOrCloseDuringGenerate() {
    Session s = model.session();
    s.reset();
    IllegalStateException reset =
        assertThrows(
            IllegalStateException.class,
            () -> s.generate("Once upon a time", 10, null, (token, text) -> s.reset()));
    assertTrue(
        reset.getMessage(), reset.getMessage().contains("reset called from a TokenListener"));
    IllegalStateException close =
        assertThrows(
            IllegalStateException.class,
            () -> s.generate("Once", 10, null, (token, text) -> model.close()));
    assertTrue(
        close.getMessage(), close.getMessage().contains("close called from a TokenListener"));
    s.reset();
    // cancel() from the listener itself stops after that token.
    GenerationResult one = s.generate("Once upon a time", 10, null, (token, text) -> s.cancel());
    assertTrue(one.cancelled());
    assertEquals(1, one.tokens().length);
  }

  // cancel() from another thread stops the generation after the token being delivered.
  @Test
  public void cancelFromAnotherThread() throws Exception {
    Session s = model.session();
    s.reset();
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch cancelled = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread t =
        new Thread(
            () -> {
              try {
                outcome.set(
                    s.generate(
                        "Once upon a time",
                        -1,
                        null,
                        (token, text) -> {
                          if (calls.incrementAndGet() == 11) {
                            reached.countDown();
                            try {
                              assertTrue(cancelled.await(120, TimeUnit.SECONDS));
                            } catch (InterruptedException e) {
                              throw new RuntimeException(e);
                            }
                          }
                        }));
              } catch (Throwable e) {
                outcome.set(e);
              }
            });
    t.start();
    assertTrue(reached.await(120, TimeUnit.SECONDS));
    s.cancel();
    cancelled.countDown();
    t.join(120000);
    assertTrue(String.valueOf(outcome.get()), outcome.get() instanceof GenerationResult);
    GenerationResult r = (GenerationResult) outcome.get();
    assertTrue(r.cancelled());
    assertEquals(11, r.tokens().length);
    assertEquals(11, calls.get());
    // The next generation is not cancelled.
    s.reset();
    GenerationResult again = s.generate("Once upon a time", 12, null, null);
    assertFalse(again.cancelled());
    assertEquals(12, again.tokens().length);
  }

  // Chat: messages -> the template's prompt ids -> the reply. stories260K carries no template
  // (NOT_FOUND naming the key); the ChatML preset and a Jinja text give what tokenizing their
  // rendering gives, non-BMP content included.
  @Test
  public void chatThroughATemplate() {
    Session s = model.session();
    java.util.List<ChatMessage> messages =
        java.util.Arrays.asList(
            ChatMessage.system("Be brief."), ChatMessage.user("Hi \uD83D\uDE00"));
    EdgeqException none = assertThrows(EdgeqException.class, () -> s.chat(messages, 5, null, null));
    assertEquals("NOT_FOUND", none.statusName());
    assertTrue(none.getMessage(), none.getMessage().contains("tokenizer.chat_template"));
    int[] chatml = s.chatPrompt("chatml", messages);
    assertArrayEquals(
        model.tokenizer().encode(
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi \uD83D\uDE00<|im_end|>\n"
                + "<|im_start|>assistant\n"),
        chatml);
    assertArrayEquals(
        model.tokenizer().encode("system: Be brief.\nuser: Hi \uD83D\uDE00\n"),
        s.chatPrompt(
            "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}", messages));
    StringBuilder streamed = new StringBuilder();
    GenerationResult reply =
        s.chat("chatml", messages, 12, null, (t, text) -> streamed.append(text));
    assertEquals(streamed.toString(), reply.text());
    s.reset();
    assertArrayEquals(s.generate(chatml, 12, null, null).tokens(), reply.tokens());
  }

  @Test
  public void structuredOutput() {
    Session s = model.session();
    s.setGrammar("root ::= (\"yes\" | \"no\") \"!\"");
    s.reset();
    GenerationResult r = s.generate("Once upon a time", 50, null, null);
    assertTrue(r.text(), r.text().equals("yes!") || r.text().equals("no!"));
    EdgeqException e =
        assertThrows(EdgeqException.class, () -> s.setGrammar("root ::= \"a\" | foo"));
    assertTrue(
        e.getMessage(), e.getMessage().contains("grammar line 1, column 16: undefined rule"));
    s.setJsonSchema(
        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"},"
            + "\"ok\":{\"type\":\"boolean\"}},\"required\":[\"n\",\"ok\"],"
            + "\"additionalProperties\":false}");
    SamplingParams p = SamplingParams.defaults();
    assertEquals(0.8f, p.temperature, 1e-6f);
    assertEquals(40, p.topK);
    p.seed = 3;
    s.reset();
    String json = s.generate("Once upon a time", 200, p, null).text().replaceAll("\\s", "");
    assertTrue(json, Pattern.matches("\\{\"n\":-?[0-9]+,\"ok\":(true|false)\\}", json));
    s.setGrammar(null);
    s.reset();
    int[] a = s.generate("Once upon a time", 20, p, null).tokens();
    s.reset();
    assertArrayEquals(a, s.generate("Once upon a time", 20, p, null).tokens());
  }
}
