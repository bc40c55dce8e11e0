package dev.edgeq;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

/**
 * A 10,000-token generation with a streaming listener leaks nothing: the JNI layer's local
 * references stay bounded (java_test.sh runs the JVM with -Xcheck:jni, which reports any native
 * frame holding more local references than it reserved, and fails on such a report), and the
 * native RSS and the Java heap after a second 10,000-token generation equal those after the
 * first within a stated margin (memory measured, nothing timed).
 */
public class LongGenerationTest {
  private static final int TOKENS = 10000;
  private static final long RSS_MARGIN = 4L << 20; // 4 MiB
  private static final long HEAP_MARGIN = 2L << 20; // 2 MiB

  static long rssBytes() throws Exception {
    for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IllegalStateException("/proc/self/status has no VmRSS line");
  }

  static long heapBytes() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; ++i) {
      System.gc();
      Thread.sleep(50);
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  private static int generate(Session s, AtomicLong bytes) {
    s.reset();
    TokenListener count = (token, text) -> bytes.addAndGet(text.length());
    return s.generate("Once upon a time", TOKENS, null, count)
        .tokens()
        .length;
  }

  @Test
  public void tenThousandTokensWithAListenerLeakNothing() throws Exception {
    try (LlmModel model =
        LlmModel.load(
            System.getProperty("edgeq.model"), new LlmModel.Options().contextLength(TOKENS + 64))) {
      Session s = model.session();
      AtomicLong bytes = new AtomicLong();
      assertEquals(TOKENS, generate(s, bytes)); // touches the whole KV cache
      long rss0 = rssBytes();
      long heap0 = heapBytes();
      assertEquals(TOKENS, generate(s, bytes));
      long rss1 = rssBytes();
      long heap1 = heapBytes();
      System.out.printf(
          "LongGeneration: %d tokens x 2, %d text chars; native RSS %.1f -> %.1f MiB (%+d KiB),"
              + " Java heap %.1f -> %.1f MiB (%+d KiB)%n",
          TOKENS, bytes.get(), rss0 / 1048576.0, rss1 / 1048576.0, (rss1 - rss0) / 1024,
          heap0 / 1048576.0, heap1 / 1048576.0, (heap1 - heap0) / 1024);
      assertTrue("native RSS grew by " + (rss1 - rss0) + " bytes", rss1 - rss0 < RSS_MARGIN);
      assertTrue("Java heap grew by " + (heap1 - heap0) + " bytes", heap1 - heap0 < HEAP_MARGIN);
      assertTrue(bytes.get() > TOKENS);
    }
  }
}
