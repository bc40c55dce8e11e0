"""pytest for the Python module (run by python/python_test.sh with $EDGEQ_MODEL set)."""
import json
import os

import numpy as np
import pytest

import edgeq

GOLDEN = os.environ.get("EDGEQ_GOLDEN_DIR", "tests/testdata/golden")


def test_encodings_and_version():
    assert {"q4_0", "q8_0", "q4_k", "q5_k", "q6_k", "bf16"} <= set(edgeq.encodings())
    assert edgeq.version() == "0.1.0"


def test_quantize_matches_ggml_golden():
    x = np.fromfile(os.path.join(GOLDEN, "q4_0.input.f32"), dtype="<f4")[:400 * 32]
    want = np.fromfile(os.path.join(GOLDEN, "q4_0.quant.bin"), dtype=np.uint8)[:400 * 18]
    q = edgeq.quantize(x.reshape(100, 128), "Q4_0")
    assert q.dtype == np.uint8 and q.shape == (100, 72)
    assert q.encoding == "q4_0" and q.logical_shape == (100, 128)
    np.testing.assert_array_equal(q.reshape(-1), want)
    deq = np.fromfile(os.path.join(GOLDEN, "q4_0.dequant.f32"), dtype="<f4")[:400 * 32]
    np.testing.assert_array_equal(edgeq.dequantize(q).reshape(-1), deq)


def test_qmatmul_example():
    # The seeds' qmatmul example: y = x . W^T with W quantized to Q4_0.
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 256)).astype(np.float32)
    x = rng.standard_normal((4, 256)).astype(np.float32)
    q = edgeq.quantize(w, "q4_0")
    y = edgeq.qmatmul(x, q)
    ref = x @ edgeq.dequantize(q).T
    assert y.shape == (4, 64)
    # The kernels quantize x to 8 bits per 32 values: errors of about 1% of the largest output.
    np.testing.assert_allclose(y, ref, rtol=0, atol=0.02 * np.abs(ref).max())


def test_errors_raise():
    with pytest.raises(edgeq.EdgeqError, match="multiple of 32"):
        edgeq.quantize(np.zeros((2, 33), np.float32), "q4_0")
    with pytest.raises(edgeq.EdgeqError, match="q9_9"):
        edgeq.quantize(np.zeros((2, 32), np.float32), "q9_9")


def test_load_checkpoint_views():
    model = os.environ["EDGEQ_MODEL"]
    tensors = edgeq.load(model)
    emb = tensors["token_embd.weight"]
    assert emb.shape == (512, 64) and emb.dtype == np.float32
    assert not emb.flags.writeable
    assert np.isfinite(emb).all()
    del tensors
    assert np.isfinite(emb.sum())  # the view keeps the mapping alive


def test_llm_ubatch_size_option():
    path = os.environ["EDGEQ_MODEL"]  # stories260K: context 512
    default = edgeq.llm.Model(path)
    assert default.ubatch_size == 512  # the one default (llm/prefill_plan.h)
    one = edgeq.llm.Model(path, num_threads=1, ubatch_size=1)
    assert one.ubatch_size == 1
    assert edgeq.llm.Model(path, context_length=100).ubatch_size == 100
    ids = default.tokenize("Once upon a time there was a little girl who liked to play outside")
    assert np.allclose(default.logits(ids), one.logits(ids), rtol=1e-4, atol=1e-4)
    with pytest.raises(edgeq.EdgeqError, match="edgeq_llm_options.ubatch_size is 5000; expected "
                       "at most 4096"):
        edgeq.llm.Model(path, ubatch_size=5000)


def test_llm_generate_greedy_is_deterministic():
    m = edgeq.llm.Model(os.environ["EDGEQ_MODEL"])
    ids = m.tokenize("Once upon a time")
    assert m.detokenize(ids).endswith("Once upon a time")
    a = m.generate("Once upon a time", max_tokens=12)
    b = m.generate("Once upon a time", max_tokens=12)
    assert a == b and len(a) > 10
    logits = m.logits(ids)
    assert logits.shape == (512,)


def test_llm_generate_with_grammar_and_json_schema():
    m = edgeq.llm.Model(os.environ["EDGEQ_MODEL"])
    assert m.generate("Once", max_tokens=20, grammar='root ::= ("yes" | "no") "!"') in (
        "yes!", "no!")
    schema = {"type": "object", "properties": {"n": {"type": "integer"},
                                               "ok": {"type": "boolean"}},
              "required": ["n", "ok"], "additionalProperties": False}
    for seed in (1, 2, 3):
        out = m.generate("Once", max_tokens=200, temperature=1.0, seed=seed, json_schema=schema)
        v = json.loads(out)
        assert set(v) == {"n", "ok"} and isinstance(v["n"], int) and isinstance(v["ok"], bool)
    # The constraint holds for one call only.
    assert m.generate("Once upon a time", max_tokens=12) == m.generate("Once upon a time",
                                                                      max_tokens=12)
    with pytest.raises(edgeq.EdgeqError, match="grammar line 1, column 16: undefined rule"):
        m.generate("Once", max_tokens=2, grammar='root ::= "a" | foo')
    with pytest.raises(edgeq.EdgeqError, match="edgeq_llm_set_json_schema: schema: "):
        m.generate("Once", max_tokens=2, json_schema='{"type":')
    with pytest.raises(ValueError, match="grammar and json_schema both given"):
        m.generate("Once", max_tokens=2, grammar='root ::= "a"', json_schema="{}")


# Issue 27 F15: C strings end at a NUL, so "a\0x" and "a\0y" were both saved as "a" (one tensor
# dropped) and tokenize("a\0b") dropped "b". Names, paths and text with a NUL are refused.
def test_nul_in_names_and_text_is_refused(tmp_path):
    out = str(tmp_path / "nul.gguf")
    w = np.zeros((2, 32), np.float32)
    with pytest.raises(ValueError, match="tensor name holds a NUL byte"):
        edgeq.save({"a\0x": w, "a\0y": w + 1}, out)
    assert not os.path.exists(out)
    with pytest.raises(ValueError, match="path holds a NUL byte"):
        edgeq.save({"w": w}, out + "\0.max")
    with pytest.raises(ValueError, match="path holds a NUL byte"):
        edgeq.load(out + "\0x")
    with pytest.raises(ValueError, match="encoding holds a NUL byte"):
        edgeq.quantize(w, "q8_0\0x")
    with pytest.raises(ValueError, match="graph name holds a NUL byte"):
        edgeq.Graph("g\0h", [edgeq.TensorType(edgeq.DType.float32, (2, 32))])
    m = edgeq.llm.Model(os.environ["EDGEQ_MODEL"])
    with pytest.raises(ValueError, match=r"text holds a NUL byte \(at 1\)"):
        m.tokenize("a\0b")
    with pytest.raises(ValueError, match="text holds a NUL byte"):
        m.generate("Once\0 upon", max_tokens=2)
    edgeq.save({"a": w, "b": w + 1}, out)  # names without NUL still work
    assert sorted(edgeq.load(out)) == ["a", "b"]


# Issue 27 F11: ctypes' c_int32 truncated max_tokens = 2**32 + 1 to 1 (and top_k to 1).
def test_out_of_range_integers_are_refused():
    m = edgeq.llm.Model(os.environ["EDGEQ_MODEL"])
    with pytest.raises(ValueError, match=r"max_tokens = 4294967297 is outside \[-2147483648, 2147483647\]"):
        m.generate("Once", max_tokens=2 ** 32 + 1)
    with pytest.raises(ValueError, match=r"top_k = 4294967297 is outside"):
        m.generate("Once", max_tokens=2, top_k=2 ** 32 + 1)
    with pytest.raises(ValueError, match=r"seed = 4294967296 is outside \[0, 4294967295\]"):
        m.generate("Once", max_tokens=2, seed=2 ** 32)
    with pytest.raises(TypeError, match="max_tokens must be an integer"):
        m.generate("Once", max_tokens=2.5)
    with pytest.raises(ValueError, match=r"ids\[1\] = 4294967297 is outside"):
        m.detokenize([1, 2 ** 32 + 1])
    with pytest.raises(ValueError, match=r"ids\[0\] = -4294967295 is outside"):
        m.logits([-(2 ** 32) + 1])
    with pytest.raises(edgeq.EdgeqError, match=r"tokens\[0\] is 512; expected a token id in \[0, 512\)"):
        m.logits([512])
    with pytest.raises(ValueError, match=r"num_threads = 4294967298 is outside"):
        edgeq.InferenceSession(num_threads=2 ** 32 + 2)
    with pytest.raises(edgeq.EdgeqError, match="num_threads is 5000; expected at most 1024"):
        edgeq.InferenceSession(num_threads=5000)
    assert len(m.generate("Once", max_tokens=np.int64(3))) > 0


# Issue 27 F15: an exception raised in on_token was printed and swallowed by ctypes, and
# generate returned normally. It stops generation and is raised to the caller.
def test_on_token_exception_propagates():
    m = edgeq.llm.Model(os.environ["EDGEQ_MODEL"])
    seen = []

    def boom(token, piece):
        seen.append(token)
        if len(seen) == 3:
            raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        m.generate("Once upon a time", max_tokens=20, on_token=boom)
    assert len(seen) == 3  # no call after the exception
    # The model is usable afterwards, and returning False still stops quietly.
    out = m.generate("Once upon a time", max_tokens=20, on_token=lambda t, p: False)
    assert isinstance(out, str)
