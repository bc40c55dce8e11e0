package dev.edgeq;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

/**
 * Saved sessions, cancellation during a prompt and load progress on stories260K.gguf (system
 * property edgeq.model, as LlmTest).
 */
public class StateTest {
  private static final String PATH = System.getProperty("edgeq.model");

  private static SamplingParams seeded() {
    SamplingParams p = SamplingParams.defaults();
    p.temperature = 1.0f;
    p.topK = 0;
    p.seed = 21;
    return p;
  }

  private static int[] concat(int[] a, int[] b) {
    int[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  // Save after 12 tokens, load into another model handle, 18 more: one run of 30 (greedy and
  // seeded); a file round trip; corrupted bytes are EdgeqException IO and change nothing.
  @Test
  public void stateContinuesInAnotherModel() throws Exception {
    try (LlmModel a = LlmModel.load(PATH);
        LlmModel b = LlmModel.load(PATH)) {
      for (SamplingParams p : new SamplingParams[] {null, seeded()}) {
        a.session().reset();
        int[] want = a.session().generate("Once upon a time", 30, p, null).tokens();
        a.session().reset();
        int[] head = a.session().generate("Once upon a time", 12, p, null).tokens();
        byte[] state = a.session().saveState();
        b.session().reset();
        b.session().loadState(state);
        assertEquals(a.session().nPast(), b.session().nPast());
        int[] tail = b.session().generate(new int[0], 18, p, null).tokens();
        assertArrayEquals(want, concat(head, tail));
      }
      File f = File.createTempFile("edgeq", ".state");
      a.session().saveState(f.getPath());
      b.session().reset();
      b.session().loadState(f.getPath());
      assertEquals(a.session().nPast(), b.session().nPast());
      byte[] state = a.session().saveState();
      state[state.length / 2] ^= 4;
      b.session().reset();
      EdgeqException e = assertThrows(EdgeqException.class, () -> b.session().loadState(state));
      assertEquals(6, e.status());
      assertTrue(e.getMessage(), e.getMessage().contains("checksum does not match"));
      assertEquals(0, b.session().nPast());
      f.delete();
    }
  }

  // cancel() from another thread during a prompt of several blocks: the result says cancelled,
  // the blocks run stay, and the rest of the prompt then gives what a fresh run gives.
  @Test
  public void cancelDuringPromptFromAnotherThread() throws Exception {
    try (LlmModel m = LlmModel.load(PATH, new LlmModel.Options().ubatchSize(64), null)) {
      Session s = m.session();
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < 26; ++i) {
        text.append("Once upon a time, there was a little girl named Lily. ");
      }
      int[] ids = m.tokenizer().encode(text.toString(), true);
      assertTrue(ids.length > 300);
      int[] want = s.generate(ids, 10, null, null).tokens();
      s.reset();
      CountDownLatch reached = new CountDownLatch(1);
      CountDownLatch cancelled = new CountDownLatch(1);
      AtomicInteger calls = new AtomicInteger();
      s.setAbortCheck(
          () -> {
            if (calls.incrementAndGet() == 3) {
              reached.countDown();
              try {
                assertTrue(cancelled.await(120, TimeUnit.SECONDS));
              } catch (InterruptedException e) {
                throw new RuntimeException(e);
              }
            }
            return false;
          });
      Thread t =
          new Thread(
              () -> {
                try {
                  assertTrue(reached.await(120, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                  throw new RuntimeException(e);
                }
                s.cancel();
                cancelled.countDown();
              });
      t.start();
      GenerationResult r = s.generate(ids, 10, null, null);
      t.join(120000);
      s.setAbortCheck(null);
      assertTrue(r.cancelled());
      assertEquals(0, r.tokens().length);
      assertEquals(192, s.nPast()); // the 3rd check let its block run; the 4th saw the cancel
      GenerationResult rest =
          s.generate(Arrays.copyOfRange(ids, 192, ids.length), 10, null, null);
      assertFalse(rest.cancelled());
      assertArrayEquals(want, rest.tokens());
    }
  }

  // Load progress: 0 first, 1 last, growing; false cancels (CANCELLED); an exception propagates.
  @Test
  public void loadProgress() {
    List<Float> seen = new ArrayList<>();
    try (LlmModel m =
        LlmModel.load(
            PATH,
            null,
            f -> {
              seen.add(f);
              return true;
            })) {
      assertTrue(m.vocabSize() > 0);
    }
    assertTrue(seen.size() >= 3);
    assertEquals(0.0f, seen.get(0), 0.0f);
    assertEquals(1.0f, seen.get(seen.size() - 1), 0.0f);
    for (int i = 1; i < seen.size(); ++i) {
      assertTrue(seen.get(i) >= seen.get(i - 1));
    }
    EdgeqException e =
        assertThrows(EdgeqException.class, () -> LlmModel.load(PATH, null, f -> f == 0.0f));
    assertEquals("CANCELLED", e.statusName());
    assertTrue(e.getMessage(), e.getMessage().contains("model load cancelled"));
    IllegalStateException x =
        assertThrows(
            IllegalStateException.class,
            () ->
                LlmModel.load(
                    PATH,
                    null,
                    f -> {
                      throw new IllegalStateException("no load today");
                    }));
    assertEquals("no load today", x.getMessage());
  }
}
