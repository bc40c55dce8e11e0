"""edgeq from Python: ctypes over the C API (libedgeq.so), NumPy arrays in and out.

    import numpy as np, edgeq
    w = np.random.randn(64, 256).astype(np.float32)
    q = edgeq.quantize(w, "Q4_0")          # uint8 [64, 144], q.encoding, q.logical_shape
    y = edgeq.qmatmul(x, q)                # x [m, 256] . W^T -> [m, 64]
    tensors = edgeq.load("model.gguf")     # name -> read-only array views of the mapped file
    text = edgeq.llm.Model("stories260K.gguf").generate("Once upon a time", max_tokens=32)
    edgeq.save({"w": w, "wq": q}, "weights.max")   # or .gguf / .safetensors

    # The seeds' qmatmul example (graph, session, model):
    graph = edgeq.Graph("qmatmul", [edgeq.TensorType(edgeq.DType.float32, (32, 64))])
    qw = graph.quantize(edgeq.Q4_0Encoding, np.full((32, 64), 0.15, np.float32))
    graph.output(edgeq.ops.qmatmul(edgeq.Q4_0Encoding, graph[0], qw))
    model = edgeq.InferenceSession().load(graph)
    y = model.execute("input0", np.full((32, 64), 0.5, np.float32)).get("output0")

libedgeq.so is found through $EDGEQ_LIBRARY, next to this package, or the loader's path.
"""
import ctypes
import json as _json
import operator
import os

import numpy as np

__all__ = ["EdgeqError", "Cancelled", "QuantizedArray", "encodings", "quantize", "dequantize", "qmatmul",
           "load", "save", "Checkpoint", "llm", "version", "best_isa", "DType", "TensorType",
           "QuantizationEncoding", "Graph", "Value", "ops", "InferenceSession", "Model",
           "parse_tool_calls", "tool_call_format", "ToolCall", "ParsedReply"]


def _load_library():
    candidates = []
    if os.environ.get("EDGEQ_LIBRARY"):
        candidates.append(os.environ["EDGEQ_LIBRARY"])
    candidates.append(os.path.join(os.path.dirname(__file__), "libedgeq.so"))
    candidates.append("libedgeq.so")
    errors = []
    for c in candidates:
        try:
            return ctypes.CDLL(c)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("edgeq: cannot load libedgeq.so (set EDGEQ_LIBRARY): " + "; ".join(errors))


_lib = _load_library()
_c = ctypes
_i64, _sz, _i32, _f = _c.c_int64, _c.c_size_t, _c.c_int32, _c.c_float
_u8p, _fp, _i32p = _c.POINTER(_c.c_uint8), _c.POINTER(_c.c_float), _c.POINTER(_c.c_int32)


class _TensorInfo(_c.Structure):
    _fields_ = [("name", _c.c_char_p), ("dtype", _c.c_char_p), ("encoding", _c.c_char_p),
                ("rank", _i32), ("shape", _i64 * 8), ("data", _c.c_void_p),
                ("data_bytes", _sz)]


class _SamplingParams(_c.Structure):
    _fields_ = [("temperature", _f), ("top_k", _i32), ("top_p", _f), ("min_p", _f),
                ("repeat_penalty", _f), ("penalty_last_n", _i32), ("seed", _c.c_uint32)]


class _TensorType(_c.Structure):
    _fields_ = [("dtype", _c.c_char_p), ("rank", _i32), ("shape", _i64 * 8)]


_TOKEN_CALLBACK = _c.CFUNCTYPE(_c.c_int, _i32, _c.c_char_p, _c.c_void_p)


def _sig(name, restype, *argtypes):
    fn = getattr(_lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_sig("edgeq_version", _c.c_char_p)
_sig("edgeq_last_error", _c.c_char_p)
_sig("edgeq_best_isa", _c.c_char_p)
_sig("edgeq_encoding_count", _sz)
_sig("edgeq_encoding_name", _c.c_int, _sz, _c.POINTER(_c.c_char_p))
_sig("edgeq_quantized_size", _c.c_int, _c.c_char_p, _i64, _i64, _c.POINTER(_sz))
_sig("edgeq_quantize", _c.c_int, _c.c_char_p, _fp, _i64, _i64, _u8p, _sz)
_sig("edgeq_dequantize", _c.c_int, _c.c_char_p, _u8p, _sz, _i64, _i64, _fp)
_sig("edgeq_qmatmul", _c.c_int, _c.c_char_p, _u8p, _sz, _i64, _i64, _fp, _i64, _fp)
_sig("edgeq_checkpoint_open", _c.c_int, _c.c_char_p, _c.POINTER(_c.c_void_p))
_sig("edgeq_checkpoint_close", None, _c.c_void_p)
_sig("edgeq_checkpoint_format", _c.c_char_p, _c.c_void_p)
_sig("edgeq_checkpoint_tensor_count", _sz, _c.c_void_p)
_sig("edgeq_checkpoint_tensor_at", _c.c_int, _c.c_void_p, _sz, _c.POINTER(_TensorInfo))
_sig("edgeq_sampling_default", _SamplingParams)
_sig("edgeq_llm_load", _c.c_int, _c.c_char_p, _c.c_void_p, _c.POINTER(_c.c_void_p))
_sig("edgeq_llm_free", None, _c.c_void_p)
_sig("edgeq_llm_vocab_size", _i32, _c.c_void_p)
_sig("edgeq_llm_ubatch_size", _i32, _c.c_void_p)
_sig("edgeq_llm_tokenize", _c.c_int, _c.c_void_p, _c.c_char_p, _c.c_int, _i32p, _sz,
     _c.POINTER(_sz))
_sig("edgeq_llm_detokenize", _c.c_int, _c.c_void_p, _i32p, _sz, _c.c_char_p, _sz,
     _c.POINTER(_sz))
_sig("edgeq_llm_generate", _c.c_int, _c.c_void_p, _i32p, _sz, _i32,
     _c.POINTER(_SamplingParams), _TOKEN_CALLBACK, _c.c_void_p, _i32p, _sz, _c.POINTER(_sz))
_sig("edgeq_llm_eval", _c.c_int, _c.c_void_p, _i32p, _sz, _fp, _sz)
_sig("edgeq_llm_reset", None, _c.c_void_p)
_sig("edgeq_llm_set_grammar", _c.c_int, _c.c_void_p, _c.c_char_p)
_sig("edgeq_llm_set_json_schema", _c.c_int, _c.c_void_p, _c.c_char_p)
_sig("edgeq_llm_n_past", _i32, _c.c_void_p)
_sig("edgeq_llm_embed", _c.c_int, _c.c_void_p, _i32p, _sz, _c.c_char_p, _i32, _fp, _sz,
     _c.POINTER(_sz))
_sig("edgeq_embedder_load", _c.c_int, _c.c_char_p, _i32, _c.POINTER(_c.c_void_p))
_sig("edgeq_embedder_free", None, _c.c_void_p)
_sig("edgeq_embedder_dim", _i32, _c.c_void_p)
_sig("edgeq_embedder_embed_batch", _c.c_int, _c.c_void_p, _c.POINTER(_c.c_char_p), _sz,
     _c.c_char_p, _i32, _fp, _sz, _c.POINTER(_sz))
_sig("edgeq_llm_state_save", _c.c_int, _c.c_void_p, _u8p, _sz, _c.POINTER(_sz))
_sig("edgeq_llm_state_load", _c.c_int, _c.c_void_p, _u8p, _sz)
_sig("edgeq_llm_state_save_file", _c.c_int, _c.c_void_p, _c.c_char_p)
_sig("edgeq_llm_state_load_file", _c.c_int, _c.c_void_p, _c.c_char_p)
_sig("edgeq_llm_cancel", None, _c.c_void_p)
_ABORT_CALLBACK = _c.CFUNCTYPE(_c.c_int, _c.c_void_p)
_PROGRESS_CALLBACK = _c.CFUNCTYPE(_c.c_int, _c.c_float, _c.c_void_p)
_sig("edgeq_llm_set_abort_callback", None, _c.c_void_p, _ABORT_CALLBACK, _c.c_void_p)
_sig("edgeq_llm_load_with_progress", _c.c_int, _c.c_char_p, _c.c_void_p, _PROGRESS_CALLBACK,
     _c.c_void_p, _c.POINTER(_c.c_void_p))
_vp, _i64p, _ttp = _c.c_void_p, _c.POINTER(_i64), _c.POINTER(_TensorType)
_sig("edgeq_encoding_block", _c.c_int, _c.c_char_p, _i64p, _i64p)
_sig("edgeq_tensor_dict_create", _c.c_int, _c.POINTER(_vp))
_sig("edgeq_tensor_dict_free", None, _vp)
_sig("edgeq_tensor_dict_set", _c.c_int, _vp, _c.c_char_p, _c.c_char_p, _c.c_char_p, _i32, _i64p,
     _vp, _sz)
_sig("edgeq_save", _c.c_int, _vp, _c.c_char_p, _c.c_int)
_sig("edgeq_graph_create", _c.c_int, _c.c_char_p, _ttp, _sz, _c.POINTER(_vp))
_sig("edgeq_graph_free", None, _vp)
_sig("edgeq_graph_input", _c.c_int, _vp, _sz, _i32p)
_sig("edgeq_graph_constant", _c.c_int, _vp, _fp, _i32, _i64p, _i32p)
_sig("edgeq_graph_quantize", _c.c_int, _vp, _c.c_char_p, _fp, _i32, _i64p, _i32p)
_sig("edgeq_graph_quantized_constant", _c.c_int, _vp, _c.c_char_p, _u8p, _sz, _i32, _i64p, _i32p)
_sig("edgeq_graph_qmatmul", _c.c_int, _vp, _c.c_char_p, _i32, _i32, _i32p)
_sig("edgeq_graph_op", _c.c_int, _vp, _c.c_char_p, _i32p, _sz, _i32p)
_sig("edgeq_graph_op_with_attributes", _c.c_int, _vp, _c.c_char_p, _i32p, _sz, _c.c_char_p, _i32p)


class _OpInfo(_c.Structure):
    _fields_ = [("name", _c.c_char_p), ("min_inputs", _i32), ("max_inputs", _i32),
                ("attributes", _c.c_char_p)]


_sig("edgeq_op_count", _sz)
_sig("edgeq_op_get", _c.c_int, _sz, _c.POINTER(_OpInfo))
_sig("edgeq_graph_output", _c.c_int, _vp, _i32)
_sig("edgeq_graph_value_type", _c.c_int, _vp, _i32, _ttp, _c.POINTER(_c.c_char_p))
_sig("edgeq_graph_to_string", _c.c_int, _vp, _c.c_char_p, _sz, _c.POINTER(_sz))
_sig("edgeq_session_create", _c.c_int, _i32, _c.POINTER(_vp))
_sig("edgeq_session_free", None, _vp)
_sig("edgeq_session_load", _c.c_int, _vp, _vp, _c.POINTER(_vp))
_sig("edgeq_model_free", None, _vp)
_sig("edgeq_model_input_count", _sz, _vp)
_sig("edgeq_model_output_count", _sz, _vp)
_sig("edgeq_model_input_type", _c.c_int, _vp, _sz, _ttp)
_sig("edgeq_model_output_type", _c.c_int, _vp, _sz, _ttp)
_sig("edgeq_model_execute", _c.c_int, _vp, _c.POINTER(_vp), _sz, _c.POINTER(_vp), _sz)

_BUFFER_TOO_SMALL = 5
_CANCELLED = 8


class EdgeqError(RuntimeError):
    """A failed edgeq call: .status (the C status code) and the message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Cancelled(EdgeqError):
    """A call stopped by Session.cancel(), an abort callback or a load progress callback
    (status 8, EDGEQ_CANCELLED)."""


def _check(status):
    if status == _CANCELLED:
        raise Cancelled(status, _lib.edgeq_last_error().decode("utf-8", "replace"))
    if status != 0:
        raise EdgeqError(status, _lib.edgeq_last_error().decode("utf-8", "replace"))


def _cstr(value, what):
    """`value` (str or bytes) as bytes for a C string. ValueError naming `what` if it holds a
    NUL: C would end the string there, silently (two names "a\\0x" and "a\\0y" would collide)."""
    b = value if isinstance(value, bytes) else str(value).encode()
    if b"\0" in b:
        raise ValueError("edgeq: %s holds a NUL byte (at %d); expected none" % (
            what, b.index(b"\0")))
    return b


def _cpath(path):
    return _cstr(os.fsencode(path), "path")


_INT32 = (-2 ** 31, 2 ** 31 - 1)


def _int_arg(value, name, lo=_INT32[0], hi=_INT32[1]):
    """An integer argument in [lo, hi] (ctypes would truncate it silently: 2**32 + 1 -> 1).
    TypeError if it is not an integer, ValueError naming the argument and the range if it is
    outside."""
    if isinstance(value, bool):
        raise TypeError("edgeq: %s must be an integer, got a bool" % name)
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("edgeq: %s must be an integer, got %s" % (
            name, type(value).__name__)) from None
    if not lo <= v <= hi:
        raise ValueError("edgeq: %s = %d is outside [%d, %d]" % (name, v, lo, hi))
    return v


def _i32_array(ids, what):
    ids = [_int_arg(t, "%s[%d]" % (what, i)) for i, t in enumerate(ids)]
    return (_i32 * len(ids))(*ids)


def version():
    return _lib.edgeq_version().decode()


def best_isa():
    return _lib.edgeq_best_isa().decode()


def encodings():
    """Registered encoding names, sorted: ['bf16', 'q4_0', ...]."""
    out = []
    for i in range(_lib.edgeq_encoding_count()):
        name = _c.c_char_p()
        _check(_lib.edgeq_encoding_name(i, _c.byref(name)))
        out.append(name.value.decode())
    return out


class QuantizedArray(np.ndarray):
    """A uint8 array of quantized rows, tagged with its encoding and logical shape."""

    def __new__(cls, data, encoding, logical_shape):
        obj = np.asarray(data, dtype=np.uint8).view(cls)
        obj.encoding = encoding
        obj.logical_shape = tuple(int(d) for d in logical_shape)
        return obj

    def __array_finalize__(self, obj):
        self.encoding = getattr(obj, "encoding", None)
        self.logical_shape = getattr(obj, "logical_shape", None)


def _rows_k(shape):
    if len(shape) < 1:
        raise ValueError("edgeq: a tensor of rank >= 1 is needed, got a scalar")
    k = int(shape[-1])
    rows = int(np.prod(shape[:-1], dtype=np.int64)) if len(shape) > 1 else 1
    return rows, k


def quantize(array, encoding):
    """float32 [..., k] -> QuantizedArray uint8 [..., k / block * block_bytes]."""
    x = np.ascontiguousarray(array, dtype=np.float32)
    rows, k = _rows_k(x.shape)
    enc = _cstr(encoding.lower(), "encoding")
    size = _sz()
    _check(_lib.edgeq_quantized_size(enc, rows, k, _c.byref(size)))
    out = np.empty(size.value, dtype=np.uint8)
    _check(_lib.edgeq_quantize(enc, x.ctypes.data_as(_fp), rows, k, out.ctypes.data_as(_u8p),
                               size.value))
    return QuantizedArray(out.reshape(x.shape[:-1] + (size.value // rows,)), encoding.lower(),
                          x.shape)


def dequantize(q, encoding=None, logical_shape=None):
    """QuantizedArray (or uint8 array plus encoding and logical shape) -> float32."""
    encoding = encoding or getattr(q, "encoding", None)
    logical_shape = tuple(logical_shape or getattr(q, "logical_shape", None) or ())
    if not encoding or not logical_shape:
        raise ValueError("edgeq.dequantize: needs an encoding and a logical shape")
    b = np.ascontiguousarray(q, dtype=np.uint8)
    rows, k = _rows_k(logical_shape)
    y = np.empty(logical_shape, dtype=np.float32)
    _check(_lib.edgeq_dequantize(_cstr(encoding, "encoding"), b.ctypes.data_as(_u8p), b.nbytes,
                                 rows, k, y.ctypes.data_as(_fp)))
    return y


def qmatmul(x, w):
    """x float32 [m, k] (or [k]) . W^T for a QuantizedArray W of logical shape [n, k]."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    squeeze = x.ndim == 1
    x2 = x.reshape(1, -1) if squeeze else x.reshape(-1, x.shape[-1])
    n, k = w.logical_shape
    if x2.shape[1] != k:
        raise ValueError("edgeq.qmatmul: x has %d columns, W has k = %d" % (x2.shape[1], k))
    b = np.ascontiguousarray(w, dtype=np.uint8)
    y = np.empty((x2.shape[0], n), dtype=np.float32)
    _check(_lib.edgeq_qmatmul(_cstr(w.encoding, "encoding"), b.ctypes.data_as(_u8p), b.nbytes, n, k,
                              x2.ctypes.data_as(_fp), x2.shape[0], y.ctypes.data_as(_fp)))
    return y[0] if squeeze else y.reshape(x.shape[:-1] + (n,))


_DTYPES = {"f32": np.float32, "f16": np.float16, "u8": np.uint8, "i8": np.int8,
           "i32": np.int32, "i64": np.int64, "bf16": np.uint16}


class Checkpoint(dict):
    """name -> read-only array views of a memory-mapped checkpoint (.max, GGUF, ...).
    Quantized tensors are QuantizedArrays; the file stays mapped while any view is alive."""

    def __init__(self, path):
        super().__init__()
        handle = _c.c_void_p()
        _check(_lib.edgeq_checkpoint_open(_cpath(path), _c.byref(handle)))
        self._handle = handle
        self.format = _lib.edgeq_checkpoint_format(handle).decode()
        for i in range(_lib.edgeq_checkpoint_tensor_count(handle)):
            info = _TensorInfo()
            _check(_lib.edgeq_checkpoint_tensor_at(handle, i, _c.byref(info)))
            shape = tuple(info.shape[d] for d in range(info.rank))
            dtype = info.dtype.decode()
            if info.data_bytes:
                raw = (_c.c_uint8 * info.data_bytes).from_address(info.data)
                raw._edgeq_owner = self  # the mapping lives as long as any view of it
                flat = np.frombuffer(raw, dtype=np.uint8)
            else:
                flat = np.empty(0, np.uint8)
            encoding = info.encoding.decode()
            if encoding:
                rows, _ = _rows_k(shape)
                arr = QuantizedArray(flat.reshape(shape[:-1] + (info.data_bytes // rows,)),
                                     encoding, shape)
            else:
                arr = flat.view(_DTYPES.get(dtype, np.uint8)).reshape(shape)
            arr.flags.writeable = False
            self[info.name.decode()] = arr

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.edgeq_checkpoint_close(self._handle)
            self._handle = None


def load(path):
    """Opens a checkpoint: a mapping of tensor names to array views (see Checkpoint)."""
    return Checkpoint(path)


class _LlmOptions(_c.Structure):
    _fields_ = [("num_threads", _i32), ("context_length", _i32), ("ubatch_size", _i32)]


class _Llm:
    class Model:
        """A language model with its tokenizer: Model(path).generate(prompt, max_tokens=...).

        num_threads (0: 1), context_length (0: the model's) and ubatch_size (prompt tokens per
        prefill graph run; 0: edgeq's one default, 512) are edgeq_llm_options' fields."""

        def __init__(self, path, num_threads=0, context_length=0, ubatch_size=0,
                     progress=None):
            """progress(fraction) is called during the load (0 first, 1 last); returning False
            cancels it (edgeq.Cancelled), and an exception it raises cancels it and is raised
            here."""
            options = _LlmOptions(_int_arg(num_threads, "num_threads"),
                                  _int_arg(context_length, "context_length"),
                                  _int_arg(ubatch_size, "ubatch_size"))
            h = _c.c_void_p()
            raised = []

            def report(fraction, _user):
                try:
                    return 0 if progress(fraction) is False else 1
                except BaseException as e:  # KeyboardInterrupt too
                    raised.append(e)
                    return 0

            callback = _PROGRESS_CALLBACK(report) if progress is not None else _PROGRESS_CALLBACK()
            status = _lib.edgeq_llm_load_with_progress(_cpath(path), _c.byref(options), callback,
                                                       None, _c.byref(h))
            if raised:
                raise raised[0]
            _check(status)
            self._h = h
            self.vocab_size = _lib.edgeq_llm_vocab_size(h)
            # The ubatch in use (ubatch_size or the default, capped at the context).
            self.ubatch_size = _lib.edgeq_llm_ubatch_size(h)

        def __del__(self):
            if getattr(self, "_h", None):
                _lib.edgeq_llm_free(self._h)
                self._h = None

        def tokenize(self, text, add_special=True):
            """ValueError if `text` holds a NUL (C would drop what follows it)."""
            data = _cstr(text, "text")
            n = _sz()
            buf = (_i32 * (len(data) + 8))()
            _check(_lib.edgeq_llm_tokenize(self._h, data, int(add_special), buf,
                                           len(buf), _c.byref(n)))
            return list(buf[:n.value])

        def detokenize(self, ids):
            arr = _i32_array(ids, "ids")
            length = _sz()
            status = _lib.edgeq_llm_detokenize(self._h, arr, len(ids), None, 0, _c.byref(length))
            if status != _BUFFER_TOO_SMALL:
                _check(status)
            buf = _c.create_string_buffer(length.value + 1)
            _check(_lib.edgeq_llm_detokenize(self._h, arr, len(ids), buf, len(buf),
                                             _c.byref(length)))
            return buf.raw[:length.value].decode("utf-8", "replace")

        def logits(self, ids):
            arr = _i32_array(ids, "ids")
            out = np.empty(self.vocab_size, dtype=np.float32)
            _check(_lib.edgeq_llm_eval(self._h, arr, len(ids), out.ctypes.data_as(_fp),
                                       out.size))
            return out

        def reset(self):
            _lib.edgeq_llm_reset(self._h)

        def embed(self, text, pooling="mean", normalize=2):
            """The embedding of `text` (str, or a list of token ids) as llama-embedding computes
            it: a float32 array [embedding size] (pooling "mean", "last", "cls"), or [tokens,
            embedding size] for "none"; normalize as --embd-normalize (2 euclidean, -1 none).
            A list of str embeds each text as its own sequence: [texts, embedding size].
            Forgets the context (as logits())."""
            if isinstance(text, (list, tuple)) and text and all(
                    isinstance(t, (str, bytes)) for t in text):
                return np.stack([self.embed(t, pooling, normalize) for t in text])
            ids = self.tokenize(text) if isinstance(text, (str, bytes)) else list(text)
            arr = _i32_array(ids, "ids")
            normalize = _int_arg(normalize, "normalize")
            p = _cstr(pooling, "pooling")
            n = _sz()
            status = _lib.edgeq_llm_embed(self._h, arr, len(ids), p, normalize, None, 0,
                                          _c.byref(n))
            if status != _BUFFER_TOO_SMALL:
                _check(status)
            out = np.empty(n.value, dtype=np.float32)
            _check(_lib.edgeq_llm_embed(self._h, arr, len(ids), p, normalize,
                                        out.ctypes.data_as(_fp), out.size, _c.byref(n)))
            return out.reshape(len(ids), -1) if pooling == "none" else out

        def chat_render(self, messages, tools=None, template=None, add_generation_prompt=True):
            """The prompt text a chat template renders for `messages` (a list of dicts as
            Hugging Face passes them, tool_calls and tool results included) and `tools` (tool
            definitions). template: None for the model's own, a preset name or Jinja text."""
            return _chat.render(self._h, messages, tools, template, add_generation_prompt)

        def chat_tokenize(self, messages, tools=None, template=None, add_generation_prompt=True):
            """chat_render's prompt as ids (control tokens matched, BOS as the vocabulary asks)."""
            return _chat.tokenize(self._h, messages, tools, template, add_generation_prompt)

        def parse_tool_calls(self, reply, template=None):
            """The tool calls in a reply, in the call format of the model's template (or of
            `template`'s text): edgeq.chat.ParsedReply(content, tool_calls, message, format)."""
            return _chat.parse(self._h, reply, template)

        def generate(self, prompt, max_tokens=32, temperature=0.0, top_k=40, top_p=0.95,
                     min_p=0.05, seed=None, on_token=None, grammar=None, json_schema=None):
            """Generates after `prompt` (a fresh context); returns the generated text.
            temperature 0 is greedy. on_token(id, piece) may return False to stop; an exception
            it raises stops generation and is raised here. max_tokens (< 0: until the end) and
            top_k are 32-bit, seed in [0, 2**32 - 1]: ValueError naming the argument otherwise.
            grammar (GBNF text, llama.cpp's format) or json_schema (a JSON schema as text, or a
            dict/list that json.dumps serializes) constrains the output of this call; EdgeqError
            with the grammar's line and column (or the schema's place) for a bad one, ValueError
            when both are given."""
            if grammar is not None and json_schema is not None:
                raise ValueError("edgeq: grammar and json_schema both given; expected at most one")
            if json_schema is not None and not isinstance(json_schema, (str, bytes)):
                json_schema = _json.dumps(json_schema)
            max_tokens = _int_arg(max_tokens, "max_tokens")
            top_k = _int_arg(top_k, "top_k")
            if seed is not None:
                seed = _int_arg(seed, "seed", 0, 2 ** 32 - 1)
            self.reset()
            ids = self.tokenize(prompt)
            return _generate(self, ids, max_tokens, temperature, top_k, top_p, min_p, seed,
                             on_token, grammar, json_schema)

        def session(self):
            """The model's sequence as a Session (generate appends, save_state/load_state)."""
            return _Llm.Session(self)

    class Embedder:
        """An encoder model (bert, nomic-bert: bge, MiniLM, nomic-embed-text) for embeddings as
        llama-embedding computes them: Embedder(path).embed(["a dog", "a cat"]) runs the texts
        as one batch, each its own sequence."""

        def __init__(self, path, num_threads=0):
            h = _c.c_void_p()
            _check(_lib.edgeq_embedder_load(_cpath(path), _int_arg(num_threads, "num_threads"),
                                            _c.byref(h)))
            self._h = h
            self.dim = _lib.edgeq_embedder_dim(h)

        def __del__(self):
            if getattr(self, "_h", None):
                _lib.edgeq_embedder_free(self._h)
                self._h = None

        def embed(self, texts, pooling=None, normalize=2):
            """float32 [len(texts), dim] for a list of str, [dim] for one str. pooling "mean",
            "cls", "last" or None (the file's pooling_type); normalize as --embd-normalize."""
            one = isinstance(texts, (str, bytes))
            items = [texts] if one else list(texts)
            if not items:
                return np.empty((0, self.dim), dtype=np.float32)
            arr = (_c.c_char_p * len(items))(
                *[_cstr(t, "text") for t in items])
            p = None if pooling is None else _cstr(pooling, "pooling")
            out = np.empty(len(items) * self.dim, dtype=np.float32)
            n = _sz()
            _check(_lib.edgeq_embedder_embed_batch(self._h, arr, len(items), p,
                                                   _int_arg(normalize, "normalize"),
                                                   out.ctypes.data_as(_fp), out.size,
                                                   _c.byref(n)))
            out = out.reshape(len(items), self.dim)
            return out[0] if one else out

    class Session:
        """The sequence a Model holds (one per Model; Model.generate starts it afresh):
        generate() appends to it, save_state()/load_state() keep it across processes, cancel()
        stops a generate() running in another thread (it raises edgeq.Cancelled; the session
        keeps what was run and goes on from there)."""

        def __init__(self, model):
            self.model = model
            self._abort = None
            self._raised = []

        @property
        def n_past(self):
            """Tokens in the context."""
            return _lib.edgeq_llm_n_past(self.model._h)

        def reset(self):
            self.model.reset()

        def generate(self, prompt=None, max_tokens=32, temperature=0.0, top_k=40, top_p=0.95,
                     min_p=0.05, seed=None, on_token=None):
            """Appends `prompt` (text, a list of ids, or None to continue) and generates after
            it; returns the generated text. Arguments as Model.generate's. After load_state the
            sampler goes on where the saved one stopped (same seed: the tokens of one
            uninterrupted run)."""
            if prompt is None:
                ids = []
            elif isinstance(prompt, (str, bytes)):
                ids = self.model.tokenize(prompt, add_special=self.n_past == 0)
            else:
                ids = [int(t) for t in prompt]
            self._raised = []
            try:
                return _generate(self.model, ids, _int_arg(max_tokens, "max_tokens"),
                                 temperature, _int_arg(top_k, "top_k"), top_p, min_p,
                                 None if seed is None else _int_arg(seed, "seed", 0, 2 ** 32 - 1),
                                 on_token, None, None)
            except Cancelled:
                if self._raised:
                    raise self._raised[0]
                raise

        def save_state(self, path=None):
            """The session's state as bytes, or written to `path` (atomically) when given."""
            if path is not None:
                _check(_lib.edgeq_llm_state_save_file(self.model._h, _cpath(path)))
                return None
            size = _sz()
            status = _lib.edgeq_llm_state_save(self.model._h, None, 0, _c.byref(size))
            if status != _BUFFER_TOO_SMALL:
                _check(status)
            buf = (_c.c_uint8 * size.value)()
            _check(_lib.edgeq_llm_state_save(self.model._h, buf, size.value, _c.byref(size)))
            return bytes(buf)

        def load_state(self, state):
            """Restores bytes from save_state(), or a file when given a path (str/PathLike).
            EdgeqError for a truncated, corrupted or another model's state (the session is then
            unchanged)."""
            if isinstance(state, (bytes, bytearray, memoryview)):
                data = bytes(state)
                buf = (_c.c_uint8 * len(data)).from_buffer_copy(data)
                _check(_lib.edgeq_llm_state_load(self.model._h, buf, len(data)))
            else:
                _check(_lib.edgeq_llm_state_load_file(self.model._h, _cpath(state)))

        def cancel(self):
            """Stops the generate() running on this session (any thread) at its next block."""
            _lib.edgeq_llm_cancel(self.model._h)

        def set_abort_callback(self, should_abort):
            """should_abort() is called before each prompt block and generated token; True
            cancels (edgeq.Cancelled); an exception it raises cancels and is raised by
            generate(). None removes it."""
            if should_abort is None:
                self._abort = None
                _lib.edgeq_llm_set_abort_callback(self.model._h, _ABORT_CALLBACK(), None)
                return
            def check(_user):
                try:
                    return 1 if should_abort() else 0
                except BaseException as e:  # cancels; generate() raises it
                    self._raised.append(e)
                    return 1

            self._abort = _ABORT_CALLBACK(check)
            _lib.edgeq_llm_set_abort_callback(self.model._h, self._abort, None)


def _generate(model, ids, max_tokens, temperature, top_k, top_p, min_p, seed, on_token, grammar,
              json_schema):
    """edgeq_llm_generate after what the model's session holds; the generated text."""
    arr = (_i32 * len(ids))(*ids)
    params = _lib.edgeq_sampling_default()
    params.temperature, params.top_k, params.top_p, params.min_p = (
        temperature, top_k, top_p, min_p)
    if seed is not None:
        params.seed = seed
    pieces = []
    raised = []

    def cb(token, piece, _user):
        # ctypes would print and drop an exception raised here: keep it, stop, re-raise.
        try:
            p = piece.decode("utf-8", "replace")
            pieces.append(p)
            if on_token is not None and on_token(token, p) is False:
                return 0
            return 1
        except BaseException as e:  # KeyboardInterrupt too
            raised.append(e)
            return 0

    callback = _TOKEN_CALLBACK(cb)
    n = _sz()
    h = model._h
    if grammar is not None:
        _check(_lib.edgeq_llm_set_grammar(h, _cstr(grammar, "grammar")))
    elif json_schema is not None:
        _check(_lib.edgeq_llm_set_json_schema(h, _cstr(json_schema, "json_schema")))
    try:
        status = _lib.edgeq_llm_generate(h, arr, len(ids), max_tokens, _c.byref(params),
                                         callback, None, None, 0, _c.byref(n))
    finally:
        if grammar is not None or json_schema is not None:
            _lib.edgeq_llm_set_grammar(h, None)
    if raised:
        raise raised[0]
    _check(status)
    return "".join(pieces)


llm = _Llm()

# Chat with tools (edgeq/chat.py uses the helpers above).
from . import chat as _chat  # noqa: E402
from .chat import ToolCall, ParsedReply, parse_tool_calls, tool_call_format  # noqa: E402,F401


# ---- Saving ------------------------------------------------------------------------------------

_NP_TO_DTYPE = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
                np.dtype(np.int8): "i8", np.dtype(np.uint8): "u8", np.dtype(np.int32): "i32",
                np.dtype(np.int64): "i64"}


def _shape_array(shape):
    dims = (_i64 * 8)()
    if len(shape) > 8:
        raise ValueError("edgeq: rank %d is above 8" % len(shape))
    for i, d in enumerate(shape):
        dims[i] = int(d)
    return dims


def save(tensors, path, overwrite=False):
    """Writes a mapping of names to arrays (float32, float16, int8, uint8, int32, int64, or
    QuantizedArray) to `path`, in the format its extension names (.max, .gguf, .safetensors),
    atomically. An existing file is kept (EdgeqError) unless overwrite=True."""
    handle = _c.c_void_p()
    _check(_lib.edgeq_tensor_dict_create(_c.byref(handle)))
    try:
        for name, array in tensors.items():
            encoding = getattr(array, "encoding", None)
            if encoding:
                data = np.ascontiguousarray(array, dtype=np.uint8)
                dtype, shape = "u8", array.logical_shape
            else:
                data = np.ascontiguousarray(array)
                dtype = _NP_TO_DTYPE.get(data.dtype)
                if dtype is None:
                    raise TypeError("edgeq.save: tensor '%s' has dtype %s; expected one of %s" % (
                        name, data.dtype, ", ".join(str(d) for d in _NP_TO_DTYPE)))
                shape = data.shape
            _check(_lib.edgeq_tensor_dict_set(
                handle, _cstr(name, "tensor name"), dtype.encode(),
                _cstr(encoding, "encoding") if encoding else None, len(shape),
                _shape_array(shape),
                data.ctypes.data_as(_c.c_void_p), data.nbytes))
        _check(_lib.edgeq_save(handle, _cpath(path), 1 if overwrite else 0))
    finally:
        _lib.edgeq_tensor_dict_free(handle)


# ---- Graphs, sessions and models (the seeds' Graph / ops / InferenceSession) ------------------

class DType:
    """Element types of graph inputs and values (their edgeq names)."""
    float32 = "f32"
    float16 = "f16"
    bfloat16 = "bf16"
    int8 = "i8"
    uint8 = "u8"
    int32 = "i32"
    int64 = "i64"


_DTYPE_TO_NP = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "u8": np.uint8,
                "i32": np.int32, "i64": np.int64, "bf16": np.uint16}


class TensorType:
    """A dtype and a shape: TensorType(DType.float32, (32, 64))."""

    def __init__(self, dtype, shape):
        self.dtype = dtype if isinstance(dtype, str) else _NP_TO_DTYPE[np.dtype(dtype)]
        self.shape = tuple(int(d) for d in shape)

    def _c(self):
        t = _TensorType()
        t.dtype = _cstr(self.dtype, "dtype")
        t.rank = len(self.shape)
        t.shape = _shape_array(self.shape)
        return t

    def __eq__(self, other):
        return (isinstance(other, TensorType) and self.dtype == other.dtype
                and self.shape == other.shape)

    def __repr__(self):
        return "TensorType(%s, %s)" % (self.dtype, self.shape)


def _from_c_type(t):
    return TensorType(t.dtype.decode(), tuple(t.shape[i] for i in range(t.rank)))


class Encoding:
    """A registered quantization encoding: .name, .elements_per_block, .block_size."""

    def __init__(self, name):
        epb, size = _i64(), _i64()
        _check(_lib.edgeq_encoding_block(_cstr(name, "encoding name"), _c.byref(epb),
                                         _c.byref(size)))
        self.name = name
        self.elements_per_block = epb.value
        self.block_size = size.value

    def __repr__(self):
        return "Encoding(%s)" % self.name

    def __str__(self):
        return self.name

    def __eq__(self, other):
        return _encoding_name(other) == self.name

    def __hash__(self):
        return hash(self.name)


def _encoding_name(encoding):
    return (encoding.name if isinstance(encoding, Encoding) else str(encoding)).lower()


class QuantizationEncoding:
    """Every registered encoding by upper-case name: QuantizationEncoding.Q4_0, .Q4_K, ..."""


for _name in encodings():
    _enc = Encoding(_name)
    setattr(QuantizationEncoding, _name.upper(), _enc)
    # The seeds' spelling: Q4_0Encoding, Q4_KEncoding, BF16Encoding, ...
    globals()[_name.upper() + "Encoding"] = _enc
    __all__.append(_name.upper() + "Encoding")
del _name, _enc


class Value:
    """A value of a Graph: an input, a constant or an op's output."""

    def __init__(self, graph, vid):
        self.graph = graph
        self.id = vid

    def _type(self):
        t = _TensorType()
        enc = _c.c_char_p()
        _check(_lib.edgeq_graph_value_type(self.graph._h, self.id, _c.byref(t), _c.byref(enc)))
        return _from_c_type(t), enc.value.decode()

    @property
    def dtype(self):
        return self._type()[0].dtype

    @property
    def shape(self):
        """The logical shape (for a quantized value, the decoded one)."""
        return self._type()[0].shape

    @property
    def encoding(self):
        """'' for a plain value, else the encoding's name."""
        return self._type()[1]

    def __repr__(self):
        t, enc = self._type()
        return "Value(%%%d: %s%s%s)" % (self.id, t.dtype, list(t.shape),
                                       " " + enc if enc else "")

    def __add__(self, other):
        return ops.add(self, other)

    def __radd__(self, other):
        return ops.add(other, self)

    def __sub__(self, other):
        return ops.sub(self, other)

    def __rsub__(self, other):
        return ops.sub(other, self)

    def __mul__(self, other):
        return ops.mul(self, other)

    def __rmul__(self, other):
        return ops.mul(other, self)

    def __truediv__(self, other):
        return ops.div(self, other)

    def __rtruediv__(self, other):
        return ops.div(other, self)

    def __matmul__(self, other):
        return ops.matmul(self, other)

    def __rmatmul__(self, other):
        return ops.matmul(other, self)


class Graph:
    """A computation graph: Graph("name", [TensorType, ...]) or Graph(TensorType) (the seeds'
    form). graph[i] (or graph.inputs[i]) is input i; constants are numpy arrays (copied).
    A call that fails raises EdgeqError and leaves the graph as it was."""

    def __init__(self, name="graph", input_types=None):
        if isinstance(name, TensorType):
            name, input_types = "graph", [name]
        input_types = list(input_types or [])
        arr = (_TensorType * max(1, len(input_types)))()
        for i, t in enumerate(input_types):
            arr[i] = t._c()
        h = _c.c_void_p()
        _check(_lib.edgeq_graph_create(_cstr(name, "graph name"), arr, len(input_types),
                                       _c.byref(h)))
        self._h = h
        self.name = str(name)
        self.input_types = input_types
        self.inputs = []
        for i in range(len(input_types)):
            v = _i32()
            _check(_lib.edgeq_graph_input(h, i, _c.byref(v)))
            self.inputs.append(Value(self, v.value))
        self.outputs = []

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.edgeq_graph_free(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __getitem__(self, i):
        return self.inputs[i]

    def constant(self, array):
        """A constant: a float32 array, or a QuantizedArray (kept quantized)."""
        out = _i32()
        encoding = getattr(array, "encoding", None)
        if encoding:
            b = np.ascontiguousarray(array, dtype=np.uint8)
            shape = array.logical_shape
            _check(_lib.edgeq_graph_quantized_constant(
                self._h, _cstr(encoding, "encoding"), b.ctypes.data_as(_u8p), b.nbytes, len(shape),
                _shape_array(shape), _c.byref(out)))
        else:
            x = np.ascontiguousarray(array, dtype=np.float32)
            _check(_lib.edgeq_graph_constant(self._h, x.ctypes.data_as(_fp), x.ndim,
                                             _shape_array(x.shape), _c.byref(out)))
        return Value(self, out.value)

    def quantize(self, encoding, array):
        """Quantizes a float32 array with `encoding` into a constant (Graph::Quantize)."""
        if isinstance(encoding, np.ndarray) and not isinstance(array, np.ndarray):
            encoding, array = array, encoding  # graph.quantize(array, encoding) also works
        x = np.ascontiguousarray(array, dtype=np.float32)
        out = _i32()
        _check(_lib.edgeq_graph_quantize(self._h, _cstr(_encoding_name(encoding), "encoding"),
                                         x.ctypes.data_as(_fp), x.ndim, _shape_array(x.shape),
                                         _c.byref(out)))
        return Value(self, out.value)

    def output(self, *values):
        """Marks values as the next outputs ("output0", "output1", ...)."""
        for v in values:
            v = self._value(v)
            _check(_lib.edgeq_graph_output(self._h, v.id))
            self.outputs.append(v)

    def _value(self, v):
        if isinstance(v, Value):
            if v.graph is not self:
                raise ValueError("edgeq: value %r belongs to graph '%s', not '%s'" % (
                    v, v.graph.name, self.name))
            return v
        return self.constant(np.asarray(v, dtype=np.float32))

    def __str__(self):
        n = _sz()
        _lib.edgeq_graph_to_string(self._h, None, 0, _c.byref(n))
        buf = _c.create_string_buffer(n.value + 1)
        _check(_lib.edgeq_graph_to_string(self._h, buf, len(buf), _c.byref(n)))
        return buf.value.decode()


def _graph_of(*values):
    for v in values:
        if isinstance(v, Value):
            return v.graph
    raise ValueError("edgeq.ops: at least one argument must be a graph Value")


class _Ops:
    """Graph ops, from the library's op registry: ops.op(name, *inputs, **attributes) builds any
    of them, and every registered op is also a method, ops.<name>(*inputs, **attributes)
    (ops.rms_norm(x, w, epsilon=1e-6), ops.rope(x, positions, mode="neox"),
    ops.reshape(x, shape=[4, -1]), ...); ops.qmatmul(encoding, lhs, rhs) takes the encoding
    first. ops.names() lists the ops, ops.info(name) one op's inputs and attribute keys."""

    @staticmethod
    def registry():
        """{name: (min_inputs, max_inputs (-1: any), [attribute keys])} of every registered op."""
        info, out = _OpInfo(), {}
        for i in range(_lib.edgeq_op_count()):
            _check(_lib.edgeq_op_get(i, _c.byref(info)))
            keys = info.attributes.decode()
            out[info.name.decode()] = (info.min_inputs, info.max_inputs,
                                       keys.split(",") if keys else [])
        return out

    def names(self):
        return sorted(self.registry())

    def info(self, name):
        return self.registry()[name]

    @staticmethod
    def op(name, *args, **attributes):
        graph = _graph_of(*args)
        ids = (_i32 * len(args))(*[graph._value(a).id for a in args])
        out = _i32()
        text = _json.dumps(attributes).encode() if attributes else None
        _check(_lib.edgeq_graph_op_with_attributes(graph._h, _cstr(name, "op name"), ids,
                                                   len(args), text, _c.byref(out)))
        return Value(graph, out.value)

    _op = op

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.registry():
            raise AttributeError(f"edgeq.ops has no op {name!r} (ops: {', '.join(self.names())})")
        return lambda *args, **attributes: self.op(name, *args, **attributes)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.names()))

    @staticmethod
    def qmatmul(encoding, lhs, rhs):
        """lhs float32 [..., k] . rhs^T, rhs a quantized constant [n, k] -> [..., n]."""
        graph = _graph_of(lhs, rhs)
        if isinstance(rhs, np.ndarray) and getattr(rhs, "encoding", None):
            rhs = graph.constant(rhs)
        lhs = graph._value(lhs)
        out = _i32()
        _check(_lib.edgeq_graph_qmatmul(graph._h, _cstr(_encoding_name(encoding), "encoding"),
                                        lhs.id, graph._value(rhs).id, _c.byref(out)))
        return Value(graph, out.value)

    def rms_norm(self, x, weight, epsilon=1e-5):
        return self.op("rms_norm", x, weight, epsilon=epsilon)


ops = _Ops()


class TensorMap(dict):
    """The outputs of one execute, by name ("output0", ...): numpy arrays owned by the caller."""


class Model:
    """A loaded graph. execute(x0, x1, ...), execute(input0=x0, ...) or the seeds'
    execute("input0", x0, ...) returns a TensorMap of fresh numpy arrays."""

    def __init__(self, handle):
        self._h = handle
        self.input_types, self.output_types = [], []
        t = _TensorType()
        for i in range(_lib.edgeq_model_input_count(handle)):
            _check(_lib.edgeq_model_input_type(handle, i, _c.byref(t)))
            self.input_types.append(_from_c_type(t))
        for i in range(_lib.edgeq_model_output_count(handle)):
            _check(_lib.edgeq_model_output_type(handle, i, _c.byref(t)))
            self.output_types.append(_from_c_type(t))

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.edgeq_model_free(self._h)
            self._h = None

    def execute(self, *args, **named):
        if args and isinstance(args[0], str):
            if len(args) % 2:
                raise ValueError("edgeq: execute('input0', x0, 'input1', x1, ...) takes pairs")
            named.update({args[i]: args[i + 1] for i in range(0, len(args), 2)})
            args = ()
        n = len(self.input_types)
        given = list(args) + [None] * (n - len(args))
        if len(args) > n:
            raise ValueError("edgeq: the model takes %d inputs, got %d" % (n, len(args)))
        for key, value in named.items():
            if not key.startswith("input") or not key[5:].isdigit() or int(key[5:]) >= n:
                raise ValueError("edgeq: no input named '%s' (inputs: %s)" % (
                    key, ", ".join("input%d" % i for i in range(n))))
            if given[int(key[5:])] is not None:
                raise ValueError("edgeq: input '%s' given twice" % key)
            given[int(key[5:])] = value
        arrays = []
        for i, (value, t) in enumerate(zip(given, self.input_types)):
            if value is None:
                raise ValueError("edgeq: input%d (%r) is missing" % (i, t))
            a = np.ascontiguousarray(value, dtype=_DTYPE_TO_NP[t.dtype])
            if a.shape != t.shape:
                raise ValueError("edgeq: input%d has shape %s, the graph declared %s" % (
                    i, a.shape, t.shape))
            arrays.append(a)
        outs = [np.empty(t.shape, dtype=_DTYPE_TO_NP[t.dtype]) for t in self.output_types]
        in_ptrs = (_c.c_void_p * max(1, n))(*[a.ctypes.data for a in arrays])
        out_ptrs = (_c.c_void_p * max(1, len(outs)))(*[o.ctypes.data for o in outs])
        _check(_lib.edgeq_model_execute(self._h, in_ptrs, n, out_ptrs, len(outs)))
        return TensorMap(("output%d" % i, o) for i, o in enumerate(outs))


class InferenceSession:
    """Loads graphs into models: InferenceSession(num_threads=2).load(graph)."""

    def __init__(self, num_threads=1):
        h = _c.c_void_p()
        _check(_lib.edgeq_session_create(_int_arg(num_threads, "num_threads"), _c.byref(h)))
        self._h = h

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.edgeq_session_free(self._h)
            self._h = None

    def load(self, graph):
        h = _c.c_void_p()
        _check(_lib.edgeq_session_load(self._h, graph._h, _c.byref(h)))
        return Model(h)
