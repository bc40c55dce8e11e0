"""pytest for the Python module (run by python/python_test.sh with $EDGEQ_MODEL set)."""
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


def test_llm_generate_greedy_is_deterministic():
    m = edgeq.llm.Model(os.environ["EDGEQ_MODEL"])
    ids = m.tokenize("Once upon a time")
    assert m.detokenize(ids).endswith("Once upon a time")
    a = m.generate("Once upon a time", max_tokens=12)
    b = m.generate("Once upon a time", max_tokens=12)
    assert a == b and len(a) > 10
    logits = m.logits(ids)
    assert logits.shape == (512,)
