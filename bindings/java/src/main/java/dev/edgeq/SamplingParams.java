package dev.edgeq;

/** Sampling parameters (edgeq_sampling_params). */
public final class SamplingParams {
  /** <= 0: greedy. */
  public float temperature;
  /** <= 0: off. */
  public int topK;
  /** (0, 1]; 1: off. */
  public float topP = 1f;
  /** [0, 1]; 0: off. */
  public float minP;
  /** > 0; 1: off. */
  public float repeatPenalty = 1f;
  public int penaltyLastN = 64;
  /** 0xFFFFFFFF (-1): from the clock. */
  public int seed = -1;

  /** Greedy decoding (what a null SamplingParams means too). */
  public static SamplingParams greedy() {
    return new SamplingParams();
  }

  /** llama.cpp's defaults, from edgeq_sampling_default(). */
  public static SamplingParams defaults() {
    float[] f = new float[4];
    int[] i = new int[3];
    Native.llmSamplingDefault(f, i);
    SamplingParams p = new SamplingParams();
    p.temperature = f[0];
    p.topP = f[1];
    p.minP = f[2];
    p.repeatPenalty = f[3];
    p.topK = i[0];
    p.penaltyLastN = i[1];
    p.seed = i[2];
    return p;
  }

  float[] floats() {
    return new float[] {temperature, topP, minP, repeatPenalty};
  }

  int[] ints() {
    return new int[] {topK, penaltyLastN, seed};
  }
}
