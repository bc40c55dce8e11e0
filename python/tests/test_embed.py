"""Embeddings in Python: edgeq.llm.Embedder (encoders, batched) on a random bert-tiny with the
bert-bge vocabulary (python_test.sh sets $EDGEQ_ENCODER), against llama-embedding's values
(llm/testdata/embed), and Model.embed over a list of texts (a decoder: stories260K)."""
import os

import numpy as np
import pytest

import edgeq

ENCODER = os.environ.get("EDGEQ_ENCODER", "")
GOLDEN = os.environ.get("EDGEQ_ENCODER_GOLDEN", "")
MODEL = os.environ.get("EDGEQ_MODEL", "")
PROMPT = "the quick brown fox jumps over the lazy dog and runs to the big red barn"


@pytest.mark.skipif(not os.path.exists(ENCODER), reason="EDGEQ_ENCODER is not there")
def test_embedder_batch_matches_llama_embedding_and_one_at_a_time():
    e = edgeq.llm.Embedder(ENCODER)
    assert e.dim == 64
    texts = [PROMPT, "hello world", "a"]
    batch = e.embed(texts, pooling="mean")
    assert batch.shape == (3, 64) and batch.dtype == np.float32
    want = np.fromfile(GOLDEN, dtype="<f4")
    np.testing.assert_allclose(batch[0], want, atol=1e-5)
    for i, t in enumerate(texts):
        np.testing.assert_allclose(e.embed(t), batch[i], atol=2e-6)
    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    with pytest.raises(edgeq.EdgeqError, match="pooling 'none'; expected mean, cls, last"):
        e.embed(texts, pooling="none")


@pytest.mark.skipif(not os.path.exists(MODEL), reason="EDGEQ_MODEL (stories260K) is not there")
def test_model_embed_list_of_texts():
    m = edgeq.llm.Model(MODEL)
    rows = m.embed(["Once upon a time", "a cat"])
    assert rows.shape[0] == 2
    np.testing.assert_array_equal(rows[1], m.embed("a cat"))
