"""Saved sessions, cancellation and load progress in Python (run by python/python_test.sh with
$EDGEQ_MODEL set to stories260K)."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import edgeq

MODEL = os.environ.get("EDGEQ_MODEL", "")
needs_model = pytest.mark.skipif(not os.path.exists(MODEL),
                                 reason="EDGEQ_MODEL (stories260K.gguf) is not there")

SAMPLED = dict(temperature=1.0, top_k=0, seed=11)


@needs_model
def test_state_continues_in_a_new_process(tmp_path):
    m = edgeq.llm.Model(MODEL)
    whole = m.session()
    want = whole.generate("Once upon a time", max_tokens=40, **SAMPLED)
    s = m.session()
    s.reset()
    head = s.generate("Once upon a time", max_tokens=15, **SAMPLED)
    path = str(tmp_path / "s.state")
    s.save_state(path)
    code = ("import edgeq, sys\n"
            "s = edgeq.llm.Model(sys.argv[1]).session()\n"
            "s.load_state(sys.argv[2])\n"
            "sys.stdout.write(s.generate(None, max_tokens=25, temperature=1.0, top_k=0, seed=11))\n")
    tail = subprocess.run([sys.executable, "-c", code, MODEL, path], check=True,
                          capture_output=True, env=dict(os.environ)).stdout.decode()
    assert head + tail == want
    assert len(want) > 40


@needs_model
def test_state_bytes_round_trip_and_refusals():
    m = edgeq.llm.Model(MODEL)
    s = m.session()
    s.generate("Once upon a time", max_tokens=5)
    state = s.save_state()
    assert state[:8] == b"EDGEQST1"
    n = s.n_past
    other = edgeq.llm.Model(MODEL).session()
    with pytest.raises(edgeq.EdgeqError, match="is truncated") as e:
        other.load_state(state[:-1])
    assert e.value.status == 6
    bad = bytearray(state)
    bad[len(bad) // 2] ^= 1
    with pytest.raises(edgeq.EdgeqError, match="checksum does not match"):
        other.load_state(bytes(bad))
    assert other.n_past == 0
    other.load_state(state)
    assert other.n_past == n
    assert other.generate(None, max_tokens=8) == s.generate(None, max_tokens=8)


@needs_model
def test_cancel_from_another_thread_then_generate():
    m = edgeq.llm.Model(MODEL, ubatch_size=64)
    prompt = "Once upon a time, there was a little girl named Lily. " * 26
    ids = m.tokenize(prompt)
    assert len(ids) > 300
    want = m.generate(prompt, max_tokens=10)
    s = m.session()
    s.reset()
    reached, done = threading.Event(), threading.Event()
    calls = [0]

    def should_abort():
        calls[0] += 1
        if calls[0] == 3:
            reached.set()
            done.wait()
        return False

    def canceller():
        reached.wait()
        s.cancel()
        done.set()

    t = threading.Thread(target=canceller)
    t.start()
    s.set_abort_callback(should_abort)
    with pytest.raises(edgeq.Cancelled, match="cancelled after 192 of %d prompt tokens" % len(ids)):
        s.generate(ids, max_tokens=10)
    t.join()
    s.set_abort_callback(None)
    assert s.n_past == 192
    assert s.generate(ids[192:], max_tokens=10) == want


@needs_model
def test_abort_callback_exception_propagates():
    s = edgeq.llm.Model(MODEL).session()

    def boom():
        raise KeyError("stop here")

    s.set_abort_callback(boom)
    with pytest.raises(KeyError, match="stop here"):
        s.generate("Once upon a time", max_tokens=5)
    s.set_abort_callback(None)
    assert len(s.generate(None if s.n_past else "Once", max_tokens=3)) > 0


@needs_model
def test_load_progress_reports_and_cancels():
    seen = []
    edgeq.llm.Model(MODEL, progress=seen.append)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and len(seen) >= 3
    assert all(a <= b for a, b in zip(seen, seen[1:]))
    with pytest.raises(edgeq.Cancelled, match="model load cancelled by the progress callback"):
        edgeq.llm.Model(MODEL, progress=lambda f: f < 0.5 and f == 0.0)

    def boom(_f):
        raise ValueError("no load today")

    with pytest.raises(ValueError, match="no load today"):
        edgeq.llm.Model(MODEL, progress=boom)


@needs_model
def test_embed_pooling_and_errors():
    m = edgeq.llm.Model(MODEL)
    ids = m.tokenize("Once upon a time there was a cat")
    rows = m.embed(ids, pooling="none", normalize=-1)
    assert rows.shape == (len(ids), 64) and rows.dtype == np.float32
    np.testing.assert_array_equal(m.embed(ids, pooling="last", normalize=-1), rows[-1])
    np.testing.assert_allclose(m.embed(ids, pooling="mean", normalize=-1), rows.mean(axis=0),
                               rtol=1e-5, atol=1e-6)
    v = m.embed("Once upon a time there was a cat")
    assert v.shape == (64,) and abs(float(np.dot(v, v)) - 1.0) < 1e-5
    with pytest.raises(edgeq.EdgeqError, match="pooling 'max'; expected one of none, mean"):
        m.embed(ids, pooling="max")
