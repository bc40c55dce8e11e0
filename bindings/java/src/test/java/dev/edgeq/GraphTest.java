package dev.edgeq;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import org.junit.Test;

/** The graph API and the one-shot codec calls from Java (no model files needed). */
public class GraphTest {
  private static float[] filled(int n, float v) {
    float[] a = new float[n];
    Arrays.fill(a, v);
    return a;
  }

  // The seeds' example (examples/qmatmul, README "Using edgeq"), in Java: f32 [32, 64] weights
  // quantized to Q4_0, qmatmul with an f32 [32, 64] input; the same numbers as the Python test.
  @Test
  public void seedsQMatmulExample() {
    try (Graph graph = new Graph("qmatmul", TensorType.f32(32, 64));
        InferenceSession session = new InferenceSession(2)) {
      Value w = graph.quantize("q4_0", filled(32 * 64, 0.15f), 32, 64);
      graph.output(graph.qmatmul("q4_0", graph.input(0), w));
      try (Model model = session.load(graph)) {
        assertEquals(1, model.inputCount());
        assertEquals("f32[32, 64]", model.inputType(0).toString());
        assertEquals("f32[32, 32]", model.outputType(0).toString());
        float[] y = model.execute(filled(32 * 64, 0.5f))[0];
        assertEquals(32 * 32, y.length);
        for (float v : y) {
          assertEquals(4.8005f, v, 1e-3f);
        }
        // The one-shot C API qmatmul on the same bytes gives the same values.
        byte[] q = Edgeq.quantize("q4_0", filled(32 * 64, 0.15f), 32, 64);
        assertEquals(Edgeq.quantizedSize("q4_0", 32, 64), q.length);
        assertEquals(32 * 2 * 18, q.length);
        float[] ref = Edgeq.qmatmul("q4_0", q, 32, 64, filled(32 * 64, 0.5f), 32);
        assertArrayEquals(ref, y, 1e-5f);
      }
    }
  }

  @Test
  public void quantizeRoundTripAndEncodings() {
    assertTrue(Edgeq.encodings().contains("q4_0"));
    assertTrue(Edgeq.encodings().contains("q6_k"));
    assertEquals("0.1.0", Edgeq.version());
    float[] x = new float[64];
    for (int i = 0; i < x.length; ++i) {
      x[i] = i - 32;
    }
    byte[] q = Edgeq.quantize("Q8_0", x, 2, 32);
    float[] back = Edgeq.dequantize("q8_0", q, 2, 32);
    assertArrayEquals(x, back, 0.13f);
  }

  @Test
  public void errorsCarryTheCApiMessage() {
    try (Graph graph = new Graph("g", TensorType.f32(2, 32))) {
      Value w = graph.quantize("q8_0", filled(4 * 32, 1f), 4, 32);
      EdgeqException e =
          assertThrows(EdgeqException.class, () -> graph.qmatmul("q9_9", graph.input(0), w));
      assertTrue(e.getMessage(), e.getMessage().contains("q9_9"));
      assertEquals(e.getMessage(), "NOT_FOUND", e.statusName());
      assertEquals(2, e.status());
      // The graph is as it was: the good call still works.
      graph.output(graph.qmatmul("q8_0", graph.input(0), w));
      assertTrue(graph.toString(), graph.toString().contains("qmatmul"));
      EdgeqException shape =
          assertThrows(EdgeqException.class, () -> Edgeq.quantize("q4_0", new float[30], 1, 30));
      assertTrue(shape.getMessage(), shape.getMessage().contains("30"));
      try (InferenceSession s = new InferenceSession();
          Model m = s.load(graph)) {
        IllegalArgumentException bad =
            assertThrows(IllegalArgumentException.class, () -> m.execute(new float[3]));
        assertTrue(bad.getMessage(), bad.getMessage().contains("expected 64"));
      }
    }
    Graph closed = new Graph("c", TensorType.f32(1, 32));
    closed.close();
    closed.close();
    assertThrows(IllegalStateException.class, () -> closed.input(0));
    IllegalArgumentException nul =
        assertThrows(IllegalArgumentException.class, () -> new Graph("a\0b"));
    assertTrue(nul.getMessage(), nul.getMessage().contains("NUL character at index 1"));
  }
}
