package dev.edgeq;

/**
 * Receives each generated token as it is sampled. {@code text} is the text the token completes:
 * a token holding part of a multi-byte UTF-8 character gives "" and the character comes with the
 * token that completes it. An exception thrown here stops the generation and is rethrown by
 * {@link Session#generate}. Called on the generating thread.
 */
@FunctionalInterface
public interface TokenListener {
  void onToken(int token, String text);
}
