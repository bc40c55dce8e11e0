package dev.edgeq;

/** A value of one {@link Graph}: an input, a constant or an op's output. */
public final class Value {
  final Graph graph;
  final int id;

  Value(Graph graph, int id) {
    this.graph = graph;
    this.id = id;
  }

  /** Its index in the graph (creation order). */
  public int id() {
    return id;
  }
}
