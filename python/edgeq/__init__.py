"""edgeq from Python: ctypes over the C API (libedgeq.so), NumPy arrays in and out.

    import numpy as np, edgeq
    w = np.random.randn(64, 256).astype(np.float32)
    q = edgeq.quantize(w, "Q4_0")          # uint8 [64, 144], q.encoding, q.logical_shape
    y = edgeq.qmatmul(x, q)                # x [m, 256] . W^T -> [m, 64]
    tensors = edgeq.load("model.gguf")     # name -> read-only array views of the mapped file
    text = edgeq.llm.Model("stories260K.gguf").generate("Once upon a time", max_tokens=32)

libedgeq.so is found through $EDGEQ_LIBRARY, next to this package, or the loader's path.
"""
import ctypes
import os

import numpy as np

__all__ = ["EdgeqError", "QuantizedArray", "encodings", "quantize", "dequantize", "qmatmul",
           "load", "Checkpoint", "llm", "version", "best_isa"]


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
_sig("edgeq_llm_tokenize", _c.c_int, _c.c_void_p, _c.c_char_p, _c.c_int, _i32p, _sz,
     _c.POINTER(_sz))
_sig("edgeq_llm_detokenize", _c.c_int, _c.c_void_p, _i32p, _sz, _c.c_char_p, _sz,
     _c.POINTER(_sz))
_sig("edgeq_llm_generate", _c.c_int, _c.c_void_p, _i32p, _sz, _i32,
     _c.POINTER(_SamplingParams), _TOKEN_CALLBACK, _c.c_void_p, _i32p, _sz, _c.POINTER(_sz))
_sig("edgeq_llm_eval", _c.c_int, _c.c_void_p, _i32p, _sz, _fp, _sz)
_sig("edgeq_llm_reset", None, _c.c_void_p)

_BUFFER_TOO_SMALL = 5


class EdgeqError(RuntimeError):
    """A failed edgeq call: .status (the C status code) and the message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _check(status):
    if status != 0:
        raise EdgeqError(status, _lib.edgeq_last_error().decode("utf-8", "replace"))


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
    enc = encoding.lower().encode()
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
    _check(_lib.edgeq_dequantize(encoding.encode(), b.ctypes.data_as(_u8p), b.nbytes, rows, k,
                                 y.ctypes.data_as(_fp)))
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
    _check(_lib.edgeq_qmatmul(w.encoding.encode(), b.ctypes.data_as(_u8p), b.nbytes, n, k,
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
        _check(_lib.edgeq_checkpoint_open(os.fsencode(path), _c.byref(handle)))
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


class _Llm:
    class Model:
        """A language model with its tokenizer: Model(path).generate(prompt, max_tokens=...)."""

        def __init__(self, path):
            h = _c.c_void_p()
            _check(_lib.edgeq_llm_load(os.fsencode(path), None, _c.byref(h)))
            self._h = h
            self.vocab_size = _lib.edgeq_llm_vocab_size(h)

        def __del__(self):
            if getattr(self, "_h", None):
                _lib.edgeq_llm_free(self._h)
                self._h = None

        def tokenize(self, text, add_special=True):
            n = _sz()
            buf = (_i32 * (len(text.encode()) + 8))()
            _check(_lib.edgeq_llm_tokenize(self._h, text.encode(), int(add_special), buf,
                                           len(buf), _c.byref(n)))
            return list(buf[:n.value])

        def detokenize(self, ids):
            arr = (_i32 * len(ids))(*ids)
            length = _sz()
            status = _lib.edgeq_llm_detokenize(self._h, arr, len(ids), None, 0, _c.byref(length))
            if status != _BUFFER_TOO_SMALL:
                _check(status)
            buf = _c.create_string_buffer(length.value + 1)
            _check(_lib.edgeq_llm_detokenize(self._h, arr, len(ids), buf, len(buf),
                                             _c.byref(length)))
            return buf.raw[:length.value].decode("utf-8", "replace")

        def logits(self, ids):
            arr = (_i32 * len(ids))(*ids)
            out = np.empty(self.vocab_size, dtype=np.float32)
            _check(_lib.edgeq_llm_eval(self._h, arr, len(ids), out.ctypes.data_as(_fp),
                                       out.size))
            return out

        def reset(self):
            _lib.edgeq_llm_reset(self._h)

        def generate(self, prompt, max_tokens=32, temperature=0.0, top_k=40, top_p=0.95,
                     min_p=0.05, seed=None, on_token=None):
            """Generates after `prompt` (a fresh context); returns the generated text.
            temperature 0 is greedy. on_token(id, piece) may return False to stop."""
            self.reset()
            ids = self.tokenize(prompt)
            arr = (_i32 * len(ids))(*ids)
            params = _lib.edgeq_sampling_default()
            params.temperature, params.top_k, params.top_p, params.min_p = (
                temperature, top_k, top_p, min_p)
            if seed is not None:
                params.seed = seed
            pieces = []

            def cb(token, piece, _user):
                p = piece.decode("utf-8", "replace")
                pieces.append(p)
                if on_token is not None and on_token(token, p) is False:
                    return 0
                return 1

            callback = _TOKEN_CALLBACK(cb)
            n = _sz()
            _check(_lib.edgeq_llm_generate(self._h, arr, len(ids), max_tokens,
                                           _c.byref(params), callback, None, None, 0,
                                           _c.byref(n)))
            return "".join(pieces)


llm = _Llm()
