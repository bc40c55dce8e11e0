"""pytest for edgeq.Graph / ops / InferenceSession and edgeq.save (run by python/python_test.sh)."""
import os

import numpy as np
import pytest

import edgeq


def test_seed_qmatmul_example_line_for_line():
    # The seeds' example: a [32, 64] input times a Q4_0-quantized [32, 64] constant, transposed.
    graph = edgeq.Graph(edgeq.TensorType(edgeq.DType.float32, (32, 64)))
    constant_value = np.full((32, 64), 0.15, np.float32)
    constant_symbol = graph.quantize(edgeq.Q4_0Encoding, constant_value)
    qmatmul_node = edgeq.ops.qmatmul(edgeq.Q4_0Encoding, graph[0], constant_symbol)
    graph.output(qmatmul_node)
    session = edgeq.InferenceSession()
    model = session.load(graph)
    input = np.full((32, 64), 0.5, np.float32)
    result_map = model.execute("input0", input)
    result = result_map.get("output0")
    assert result.shape == (32, 32) and result.dtype == np.float32
    # Q4_0 of 0.15 decodes to 8 * fp16(0.15 / 8); the kernel's Q8_0 of 0.5 to
    # 127 * fp16(0.5 / 127): 64 * 0.500031 * 0.150024 = 4.800488.
    dw = float(np.float16(0.15 / 8)) * 8
    dx = float(np.float16(0.5 / 127)) * 127
    np.testing.assert_allclose(result, 64 * dx * dw, rtol=1e-6)
    assert constant_symbol.encoding == "q4_0" and constant_symbol.shape == (32, 64)
    assert qmatmul_node.shape == (32, 32)
    assert "qmatmul" in str(graph)


def test_graph_equals_one_shot_qmatmul_and_numpy():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((48, 256)).astype(np.float32)
    x = rng.standard_normal((5, 256)).astype(np.float32)
    for enc in ("q4_0", "q8_0", "q4_k", "q6_k", "q5_0"):
        q = edgeq.quantize(w, enc)
        with edgeq.Graph("g", [edgeq.TensorType(np.float32, x.shape)]) as graph:
            graph.output(edgeq.ops.qmatmul(enc, graph.inputs[0], q))  # a QuantizedArray
        y = edgeq.InferenceSession(num_threads=2).load(graph).execute(x)["output0"]
        np.testing.assert_array_equal(y, edgeq.qmatmul(x, q))
        ref = x @ edgeq.dequantize(q).T
        np.testing.assert_allclose(y, ref, rtol=0, atol=0.03 * np.abs(ref).max())


def test_ops_and_operators():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    g = edgeq.Graph("ops", [edgeq.TensorType(edgeq.DType.float32, (3, 8))])
    h = g[0] @ w + b                       # numpy operands become constants
    g.output(edgeq.ops.silu(h), edgeq.ops.softmax(h * 2.0), 1.0 - g[0] / 4.0)
    out = edgeq.InferenceSession().load(g).execute(input0=x)
    ref = x @ w + b
    np.testing.assert_allclose(out["output0"], ref / (1 + np.exp(-ref)), rtol=1e-5, atol=1e-6)
    e = np.exp(2 * ref - (2 * ref).max(axis=1, keepdims=True))
    np.testing.assert_allclose(out["output1"], e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(out["output2"], 1.0 - x / 4.0, rtol=1e-6)


def test_failed_call_leaves_graph_unchanged():
    g = edgeq.Graph("g", [edgeq.TensorType(edgeq.DType.float32, (4, 64))])
    qw = g.quantize(edgeq.QuantizationEncoding.Q8_0, np.ones((8, 32), np.float32))
    before = str(g)
    with pytest.raises(edgeq.EdgeqError, match="qmatmul"):
        edgeq.ops.qmatmul("q8_0", g[0], qw)   # k 64 against 32
    with pytest.raises(edgeq.EdgeqError, match="multiple of 32"):
        g.quantize("q8_0", np.ones((8, 20), np.float32))
    with pytest.raises(edgeq.EdgeqError, match="q9_9"):
        g.quantize("q9_9", np.ones((8, 32), np.float32))
    assert str(g) == before
    other = edgeq.Graph("other", [edgeq.TensorType(edgeq.DType.float32, (4, 64))])
    with pytest.raises(ValueError, match="belongs to graph 'other'"):
        g.output(other[0])
    with pytest.raises(edgeq.EdgeqError, match="output"):
        edgeq.InferenceSession().load(g)     # no outputs yet
    g.output(edgeq.ops.qmatmul("q8_0", g[0], g.quantize("q8_0", np.ones((8, 64), np.float32))))
    y = edgeq.InferenceSession().load(g).execute(np.ones((4, 64), np.float32))["output0"]
    np.testing.assert_allclose(y, 64.0, rtol=1e-3)


def test_execute_checks_inputs():
    g = edgeq.Graph("g", [edgeq.TensorType(edgeq.DType.float32, (2, 3))])
    g.output(edgeq.ops.silu(g[0]))
    m = edgeq.InferenceSession().load(g)
    assert m.input_types == [edgeq.TensorType("f32", (2, 3))]
    with pytest.raises(ValueError, match="shape \\(3, 2\\), the graph declared \\(2, 3\\)"):
        m.execute(np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match="input0 .* is missing"):
        m.execute()
    with pytest.raises(ValueError, match="no input named 'x'"):
        m.execute(x=np.zeros((2, 3), np.float32))
    # float64 input is converted to the declared float32
    np.testing.assert_allclose(m.execute(np.zeros((2, 3)))["output0"], 0.0)


def test_save_load_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((16, 64)).astype(np.float32)
    tensors = {"w": w, "wq": edgeq.quantize(w, "q4_0"),
               "ids": np.arange(-3, 5, dtype=np.int32), "half": w[:2].astype(np.float16)}
    for ext in (".max", ".gguf"):
        path = str(tmp_path / ("t" + ext))
        edgeq.save(tensors, path)
        back = edgeq.load(path)
        assert set(back) == set(tensors)
        np.testing.assert_array_equal(back["w"], w)
        np.testing.assert_array_equal(back["ids"], tensors["ids"])
        np.testing.assert_array_equal(back["half"], tensors["half"])
        assert back["wq"].encoding == "q4_0" and back["wq"].logical_shape == (16, 64)
        np.testing.assert_array_equal(np.asarray(back["wq"]), np.asarray(tensors["wq"]))
        # A loaded quantized view feeds a graph directly.
        g = edgeq.Graph("g", [edgeq.TensorType(edgeq.DType.float32, (1, 64))])
        g.output(edgeq.ops.qmatmul("q4_0", g[0], back["wq"]))
        y = edgeq.InferenceSession().load(g).execute(w[:1])["output0"]
        np.testing.assert_array_equal(y, edgeq.qmatmul(w[:1], tensors["wq"]))
        del back
        # Existing files are kept unless overwrite=True.
        with pytest.raises(edgeq.EdgeqError, match="exists; not overwritten"):
            edgeq.save({"ids": tensors["ids"]}, path)
        assert len(edgeq.load(path)) == 4
        edgeq.save({"ids": tensors["ids"]}, path, overwrite=True)
        assert list(edgeq.load(path)) == ["ids"]


def test_save_refuses_bad_input(tmp_path):
    with pytest.raises(TypeError, match="tensor 'x' has dtype float64"):
        edgeq.save({"x": np.zeros(3)}, str(tmp_path / "a.max"))
    with pytest.raises(edgeq.EdgeqError, match="npz"):
        edgeq.save({"x": np.zeros(3, np.float32)}, str(tmp_path / "a.npz"))
    assert not os.listdir(tmp_path)
    q = edgeq.quantize(np.ones((2, 32), np.float32), "q8_0")
    bad = edgeq.QuantizedArray(np.asarray(q)[:, :20], "q8_0", (2, 32))
    with pytest.raises(edgeq.EdgeqError, match="tensor 'bad'"):
        edgeq.save({"bad": bad}, str(tmp_path / "b.max"))


def test_encodings_objects():
    assert edgeq.Q4_0Encoding.elements_per_block == 32 and edgeq.Q4_0Encoding.block_size == 18
    assert edgeq.QuantizationEncoding.Q4_K.block_size == 144
    assert edgeq.Q4_KEncoding == "q4_k"
    assert {e.lower() for e in edgeq.encodings()} >= {"q4_0", "q5_1", "iq4_xs", "f16"}


def test_every_registered_op_is_reachable():
    registry = edgeq.ops.registry()
    for name in ("add", "attention", "concat", "gather", "gelu_tanh", "matmul_transposed",
                 "qmatmul", "reshape", "rms_norm", "rope", "slice", "swiglu", "tanh",
                 "transpose"):
        assert name in registry, name
    assert registry["rope"] == (2, 3, ["mode", "theta"])
    g = edgeq.Graph("all", [edgeq.TensorType(edgeq.DType.float32, (2, 4))])
    for name, (lo, _, _) in registry.items():
        # Given min_inputs copies of an f32 input each op builds or refuses the types or its
        # attributes naming itself (never "unknown op").
        assert callable(getattr(edgeq.ops, name))
        try:
            edgeq.ops.op(name, *([g[0]] * max(lo, 1)))
        except edgeq.EdgeqError as e:
            assert name in str(e) and "unknown op" not in str(e), (name, str(e))
    with pytest.raises(AttributeError, match="no op 'conv2d'"):
        edgeq.ops.conv2d(g[0])


def test_ops_with_attributes():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 2, 8)).astype(np.float32)
    pos = np.array([0, 5, 17], np.int32)
    g = edgeq.Graph("attrs", [edgeq.TensorType(edgeq.DType.float32, (3, 2, 8)),
                              edgeq.TensorType(edgeq.DType.int32, (3,))])
    r = edgeq.ops.rope(g[0], g[1], mode="neox", theta=100.0)
    g.output(edgeq.ops.transpose(edgeq.ops.tanh(r), perm=[1, 0, 2]),
             edgeq.ops.slice(g[0], starts=[1, 0, 2], ends=[3, 1, 6]))
    assert "mode=neox" in str(g)
    out = edgeq.InferenceSession().load(g).execute(input0=x, input1=pos)
    inv = 100.0 ** (-np.arange(4) * 2 / 8)
    ang = pos[:, None] * inv[None, :]
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    a, b = x[..., :4], x[..., 4:]
    ref = np.concatenate([a * c - b * s, a * s + b * c], axis=-1)
    np.testing.assert_allclose(out["output0"], np.tanh(ref).transpose(1, 0, 2), atol=2e-5)
    np.testing.assert_array_equal(out["output1"], x[1:3, 0:1, 2:6])
    with pytest.raises(edgeq.EdgeqError, match="unknown attribute"):
        edgeq.ops.rope(g[0], g[1], angle=1.0)
