"""Bytes a decode step reads from a GGUF model: every weight matrix once (the token embedding:
one row), plus the KV cache rows attention reads, for whole_model.py's memory bound.

Reads only the GGUF header (metadata and tensor infos), not the tensor data.
"""

import struct

# GGML type id -> (values per block, bytes per block).
TYPE_SIZES = {
    0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
    9: (32, 36), 10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210),
    15: (256, 292), 20: (32, 18), 23: (256, 136), 30: (1, 2),
}
# GGUF metadata value type -> struct format of a scalar (8: string, 9: array).
SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
           11: "<q", 12: "<d"}
MAX_HEADER = 64 << 20


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ValueError("GGUF header: truncated at byte %d (expected %d more)" %
                             (self.pos, size))
        value = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += size
        return value

    def string(self):
        n = self.take("<Q")
        if self.pos + n > len(self.data):
            raise ValueError("GGUF header: string of %d bytes past the end" % n)
        s = self.data[self.pos:self.pos + n].decode("utf-8", "replace")
        self.pos += n
        return s

    def value(self, vtype):
        if vtype in SCALARS:
            return self.take(SCALARS[vtype])
        if vtype == 8:
            return self.string()
        if vtype == 9:
            etype, n = self.take("<I"), self.take("<Q")
            return [self.value(etype) for _ in range(n)]
        raise ValueError("GGUF header: unknown value type %d (expected 0-12)" % vtype)


def read_header(path):
    """(metadata dict, [(name, dims, type id)])."""
    with open(path, "rb") as f:
        data = f.read(MAX_HEADER)
    r = Reader(data)
    if data[:4] != b"GGUF":
        raise ValueError("%s: not a GGUF file (expected magic 'GGUF')" % path)
    r.pos = 4
    version = r.take("<I")
    if version < 2:
        raise ValueError("%s: GGUF version %d (expected 2 or 3)" % (path, version))
    n_tensors, n_kv = r.take("<Q"), r.take("<Q")
    meta = {}
    for _ in range(n_kv):
        key = r.string()
        meta[key] = r.value(r.take("<I"))
    tensors = []
    for _ in range(n_tensors):
        name = r.string()
        dims = [r.take("<Q") for _ in range(r.take("<I"))]
        ttype = r.take("<I")
        r.take("<Q")  # offset
        tensors.append((name, dims, ttype))
    return meta, tensors


def tensor_bytes(dims, ttype):
    if ttype not in TYPE_SIZES:
        raise ValueError("GGML type %d has no size here (expected one of %s)" %
                         (ttype, sorted(TYPE_SIZES)))
    per_block, block_bytes = TYPE_SIZES[ttype]
    n = 1
    for d in dims:
        n *= d
    return n // per_block * block_bytes


def decode_bytes(path, decode_tokens):
    """Bytes per decode token: weights (token_embd one row, or all of it when there is no
    output.weight: a tied classifier reads the whole matrix every token) + K and V rows read at
    the mean position of the tokens between the two decode runs (both programs' default f16
    cache; edgeq's default was f32 before 2026-11-27's 5fdb0d5, and records made before then
    count 4 bytes a value for edgeq). Returns {"weights", "edgeq", "llama.cpp"}."""
    meta, tensors = read_header(path)
    arch = meta.get("general.architecture", "llama")
    tied = not any(name == "output.weight" for name, _, _ in tensors)
    weights = 0
    for name, dims, ttype in tensors:
        size = tensor_bytes(dims, ttype)
        one_row = name == "token_embd.weight" and len(dims) == 2 and not tied
        weights += size // dims[-1] if one_row else size
    layers = int(meta["%s.block_count" % arch])
    heads = int(meta["%s.attention.head_count" % arch])
    kv_heads = int(meta.get("%s.attention.head_count_kv" % arch, heads))
    head_dim = int(meta.get("%s.attention.key_length" % arch,
                            int(meta["%s.embedding_length" % arch]) // heads))
    small, large = decode_tokens
    rows = (small + large - 1) / 2.0 + 1  # mean number of cached rows a step reads
    kv_values = layers * 2 * kv_heads * head_dim * rows
    return {"weights": weights, "edgeq": weights + kv_values * 2,
            "llama.cpp": weights + kv_values * 2}
