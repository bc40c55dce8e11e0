// The attention algorithm once, templated on an ISA's vector operations V (ruy's way: each ISA
// file instantiates it with its own V, defined in that file's anonymous namespace, so no symbol is
// shared between files built with different -m flags). V provides:
//   static float Dot(const float* a, const float* b, int64_t n);
//   static void Axpy(float* y, float a, const float* x, int64_t n);   // y += a x
//   static void Scale(float* y, float a, int64_t n);                  // y *= a
//   static float Max(const float* x, int64_t n);
//   static float ExpSum(float* x, int64_t n, float max);  // x = exp(x - max); returns the sum
//   // s[j] = scale * q.k_j for the n rows k_j = k + j * stride (hs values each):
//   static void Scores(const float* q, const float* k, int64_t stride, int64_t n, int64_t hs,
//                      float scale, float* s);
//   // o (= 0 unless accumulate) += sum_j s[j] v_j, v_j = v + j * stride:
//   static void WeightedSum(const float* s, const float* v, int64_t stride, int64_t n,
//                           int64_t hs, bool accumulate, float* o);
//   // The same for rows (<= kAttentionTileRows) query rows at once (q[i], s[i], o[i]):
//   static void ScoresTile(const float* const* q, int64_t rows, const float* k, int64_t stride,
//                          int64_t n, int64_t hs, float scale, float* const* s);
//   static void WeightedSumTile(float* const* s, int64_t rows, const float* v, int64_t stride,
//                               int64_t n, int64_t hs, bool accumulate, float* const* o);
//   // A cache row decoded to f32 (n values; q8_0: n a multiple of 32, d * q with d the block's
//   // fp16 scale as f32, GGML's dequantize_row_q8_0; f16: each half exactly):
//   static void DecodeQ8_0(const uint8_t* row, int64_t n, float* out);
//   static void DecodeF16(const uint8_t* row, int64_t n, float* out);  // n halves, 2-byte aligned
// (ScoresByDot / WeightedSumByAxpy / *TileByRow below build these from Dot and Axpy;
// DecodeQ8_0ByScalar / DecodeF16ByScalar the decoders.) V may also read an f16 cache's rows in
// place (HasF16Rows), with the bits of Scores / WeightedSum over the decoded rows (k, v: rows back
// to back, hs halves each; hs a multiple of 32); a decode step then reads the cache once:
//   static void ScoresF16(const float* q, const uint16_t* k, int64_t n, int64_t hs, float scale,
//                         float* s);
//   static void WeightedSumF16(const float* s, const uint16_t* v, int64_t n, int64_t hs,
//                              bool accumulate, float* o);
// The KV cache is f32, q8_0 or f16 (AttentionArgs); encoded rows are decoded to f32 once per
// group, kAttentionDecodeRows at a time.
#ifndef EDGEQ_RUNTIME_KERNELS_ATTENTION_ATTENTION_IMPL_H_
#define EDGEQ_RUNTIME_KERNELS_ATTENTION_ATTENTION_IMPL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/attention/attention.h"

namespace edgeq {
namespace kernels {
namespace internal {

// GGML's fp16 (IEEE half) to f32, exactly (subnormals included). A template on V so that each ISA
// file gets its own copy (no inline symbol shared between files built with different flags).
template <class V>
float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {  // subnormal: normalize
    exp = 113;
    while ((man & 0x400u) == 0) {
      man <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((man & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// One q8_0 cache row (n values, n a multiple of 32) decoded to f32, one value at a time: d * q, d
// the block's fp16 scale as f32 (GGML's dequantize_row_q8_0).
template <class V>
void DecodeQ8_0ByScalar(const uint8_t* row, int64_t n, float* out) {
  for (int64_t b = 0; b < n / 32; ++b, row += 34, out += 32) {
    uint16_t h;
    std::memcpy(&h, row, sizeof(h));
    const float d = HalfToFloat<V>(h);
    const int8_t* q = reinterpret_cast<const int8_t*>(row + 2);
    for (int i = 0; i < 32; ++i) out[i] = d * static_cast<float>(q[i]);
  }
}
template <class V>
void DecodeF16ByScalar(const uint8_t* row, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, row + 2 * i, sizeof(h));
    out[i] = HalfToFloat<V>(h);
  }
}

// An encoded (q8_0 or f16) cache: where its rows are, a row's bytes and the ISA's decoder (one
// code path for both types). A head's rows are back to back, so one call decodes a chunk of them
// (an indirect call per 64-value row cost a fifth of a decode step at depth 4096).
struct EncodedRows {
  const uint8_t* k;
  const uint8_t* v;
  int64_t row_bytes;
  void (*decode)(const uint8_t* row, int64_t n, float* out);
};
// The args' encoded cache, or none (k null: an f32 cache).
template <class V>
EncodedRows EncodedCache(const AttentionArgs& a) {
  if (a.k_cache_q8_0 != nullptr) {
    return {a.k_cache_q8_0, a.v_cache_q8_0, AttentionQ8_0RowBytes(a.head_dim), &V::DecodeQ8_0};
  }
  if (a.k_cache_f16 != nullptr) {
    return {reinterpret_cast<const uint8_t*>(a.k_cache_f16),
            reinterpret_cast<const uint8_t*>(a.v_cache_f16), 2 * a.head_dim, &V::DecodeF16};
  }
  return {nullptr, nullptr, 0, nullptr};
}

// Query row `row` of kv head `kv_head`'s group: its visible positions [lo, pos + row] (lo > 0
// only with a window) split into the cache's rows (from cache_lo, n_cache of them) and the block's
// (n_new of them, from kn / vn: the block's rows are [t, kv_heads, hs], one row of this head every
// ns = kv_heads * hs floats), and head r's query and output at q0 / o0 + r * hs.
struct GroupRow {
  int64_t rep, ns, cache_lo, n_cache, n_new;
  const float* kn;
  const float* vn;
  const float* q0;
  float* o0;
};
// A template on V, as everything here: no inline symbol shared between files built with different
// -m flags.
template <class V>
GroupRow VisibleRows(const AttentionArgs& a, int64_t kv_head, int64_t row) {
  const int64_t hs = a.head_dim, rep = a.heads / a.kv_heads, ns = a.kv_heads * hs;
  const int64_t qpos = a.pos + row;
  const int64_t lo = a.window > 0 ? std::max<int64_t>(0, qpos - a.window + 1) : 0;
  const int64_t cache_lo = std::min(lo, a.pos), new_lo = std::max<int64_t>(lo - a.pos, 0);
  return {rep,
          ns,
          cache_lo,
          a.pos - cache_lo,
          row + 1 - new_lo,
          a.k_new + new_lo * ns + kv_head * hs,
          a.v_new + new_lo * ns + kv_head * hs,
          a.q + (row * a.heads + kv_head * rep) * hs,
          a.out + (row * a.heads + kv_head * rep) * hs};
}

// One query row over an encoded cache (AttendGroup's case for a sliding window): each visible
// cache row is decoded once into the scratch after the scores and used by the group's `rep` heads;
// the block's own rows are f32 as always.
template <class V>
void AttendGroupEncoded(const AttentionArgs& a, const EncodedRows& rows, int64_t kv_head,
                        int64_t row, float* scores) {
  const GroupRow g = VisibleRows<V>(a, kv_head, row);
  const int64_t hs = a.head_dim, rep = g.rep, ns = g.ns, cache_lo = g.cache_lo;
  const int64_t n_cache = g.n_cache, n_new = g.n_new, n = n_cache + n_new;
  const float *kn = g.kn, *vn = g.vn, *q0 = g.q0;
  float* o0 = g.o0;
  const int64_t row_bytes = rows.row_bytes;
  const uint8_t* kc = rows.k + (kv_head * a.ctx + cache_lo) * row_bytes;
  const uint8_t* vc = rows.v + (kv_head * a.ctx + cache_lo) * row_bytes;
  float* buf = scores + rep * n;
  for (int64_t j = 0; j < n_cache; ++j) {
    rows.decode(kc + j * row_bytes, hs, buf);
    for (int64_t r = 0; r < rep; ++r) scores[r * n + j] = a.scale * V::Dot(q0 + r * hs, buf, hs);
  }
  for (int64_t r = 0; r < rep; ++r) {
    float* s = scores + r * n;
    for (int64_t j = 0; j < n_new; ++j) {
      s[n_cache + j] = a.scale * V::Dot(q0 + r * hs, kn + j * ns, hs);
    }
  }
  float sums[64];  // rep <= 64 (heads / kv_heads); larger groups take the per-head path
  if (rep <= 64) {
    for (int64_t r = 0; r < rep; ++r) {
      float* s = scores + r * n;
      sums[r] = V::ExpSum(s, n, V::Max(s, n));
      std::memset(o0 + r * hs, 0, static_cast<size_t>(hs) * sizeof(float));
    }
    for (int64_t j = 0; j < n_cache; ++j) {
      rows.decode(vc + j * row_bytes, hs, buf);
      for (int64_t r = 0; r < rep; ++r) V::Axpy(o0 + r * hs, scores[r * n + j], buf, hs);
    }
    for (int64_t r = 0; r < rep; ++r) {
      float* s = scores + r * n;
      float* o = o0 + r * hs;
      for (int64_t j = 0; j < n_new; ++j) V::Axpy(o, s[n_cache + j], vn + j * ns, hs);
      V::Scale(o, 1.0f / sums[r], hs);
    }
    return;
  }
  for (int64_t r = 0; r < rep; ++r) {
    float* s = scores + r * n;
    const float sum = V::ExpSum(s, n, V::Max(s, n));
    float* o = o0 + r * hs;
    std::memset(o, 0, static_cast<size_t>(hs) * sizeof(float));
    for (int64_t j = 0; j < n_cache; ++j) {
      rows.decode(vc + j * row_bytes, hs, buf);
      V::Axpy(o, s[j], buf, hs);
    }
    for (int64_t j = 0; j < n_new; ++j) V::Axpy(o, s[n_cache + j], vn + j * ns, hs);
    V::Scale(o, 1.0f / sum, hs);
  }
}

template <class V>
void AttendGroup(const AttentionArgs& a, int64_t kv_head, int64_t row, float* scores) {
  const EncodedRows encoded = EncodedCache<V>(a);
  if (encoded.k != nullptr) return AttendGroupEncoded<V>(a, encoded, kv_head, row, scores);
  const GroupRow g = VisibleRows<V>(a, kv_head, row);
  const int64_t hs = a.head_dim, rep = g.rep, ns = g.ns, cache_lo = g.cache_lo;
  const int64_t n_cache = g.n_cache, n_new = g.n_new, n = n_cache + n_new;
  const float *kn = g.kn, *vn = g.vn, *q0 = g.q0;
  float* o0 = g.o0;
  const float* kc = a.k_cache + (kv_head * a.ctx + cache_lo) * hs;
  const float* vc = a.v_cache + (kv_head * a.ctx + cache_lo) * hs;
  for (int64_t r = 0; r < rep; ++r) {
    const float* q = q0 + r * hs;
    float* s = scores + r * n;
    V::Scores(q, kc, hs, n_cache, hs, a.scale, s);
    V::Scores(q, kn, ns, n_new, hs, a.scale, s + n_cache);
    const float sum = V::ExpSum(s, n, V::Max(s, n));
    float* o = o0 + r * hs;
    V::WeightedSum(s, vc, hs, n_cache, hs, /*accumulate=*/false, o);
    V::WeightedSum(s + n_cache, vn, ns, n_new, hs, /*accumulate=*/true, o);
    V::Scale(o, 1.0f / sum, hs);
  }
}

// Whether V reads f16 cache rows in place (ScoresF16 and WeightedSumF16).
template <class V, class = void>
struct HasF16Rows : std::false_type {};
template <class V>
struct HasF16Rows<V, std::void_t<decltype(&V::ScoresF16), decltype(&V::WeightedSumF16)>>
    : std::true_type {};

// A tile of `rows` consecutive query rows over an encoded cache (no window; a decode step is a tile
// of one): as AttendRows below, with the cache's rows decoded kAttentionDecodeRows at a time into
// the scratch after the scores and each decoded chunk used by every row and head of the tile (keys
// first, then values; the tile routines accumulate chunk after chunk in the order of the rows). A
// decode step over an f16 cache (hs a multiple of 32) reads each chunk in place if V can
// (HasF16Rows): the same operations on the same values, so the same bits.
template <class V>
void AttendRowsEncoded(const AttentionArgs& a, const EncodedRows& encoded, int64_t kv_head,
                       int64_t row0, int64_t rows, float* scores) {
  const bool in_place =
      HasF16Rows<V>::value && rows == 1 && a.k_cache_f16 != nullptr && a.head_dim % 32 == 0;
  const int64_t hs = a.head_dim, rep = a.heads / a.kv_heads, ns = a.kv_heads * hs;
  const int64_t shared_new = row0 + 1;        // block rows every row of the tile sees
  const int64_t n_max = a.pos + row0 + rows;  // keys of the tile's last row
  const int64_t row_bytes = encoded.row_bytes;
  const uint8_t* kc = encoded.k + kv_head * a.ctx * row_bytes;
  const uint8_t* vc = encoded.v + kv_head * a.ctx * row_bytes;
  const float* kn = a.k_new + kv_head * hs;
  const float* vn = a.v_new + kv_head * hs;
  float* buf = scores + kAttentionTileRows * rep * (a.pos + a.t);
  float* sums = buf + kAttentionDecodeRows * hs;  // [rep][kAttentionTileRows]
  const float* q[kAttentionTileRows];
  float* s[kAttentionTileRows];
  float* o[kAttentionTileRows];
  // Head r's pointers, its scores from key `first` on.
  auto head = [&](int64_t r, int64_t first) {
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t head_row = (row0 + i) * a.heads + kv_head * rep + r;
      q[i] = a.q + head_row * hs;
      o[i] = a.out + head_row * hs;
      s[i] = scores + (r * kAttentionTileRows + i) * n_max + first;
    }
  };
  for (int64_t j0 = 0; j0 < a.pos; j0 += kAttentionDecodeRows) {
    const int64_t nj = std::min(kAttentionDecodeRows, a.pos - j0);
    if (!in_place) encoded.decode(kc + j0 * row_bytes, nj * hs, buf);  // rows back to back
    for (int64_t r = 0; r < rep; ++r) {
      head(r, j0);
      if constexpr (HasF16Rows<V>::value) {
        if (in_place) {
          V::ScoresF16(q[0], reinterpret_cast<const uint16_t*>(kc + j0 * row_bytes), nj, hs,
                       a.scale, s[0]);
          continue;
        }
      }
      V::ScoresTile(q, rows, buf, hs, nj, hs, a.scale, s);
    }
  }
  for (int64_t r = 0; r < rep; ++r) {
    head(r, a.pos);
    V::ScoresTile(q, rows, kn, ns, shared_new, hs, a.scale, s);
    for (int64_t i = 0; i < rows; ++i) {
      V::Scores(q[i], kn + shared_new * ns, ns, i, hs, a.scale, s[i] + shared_new);
      const int64_t n = a.pos + shared_new + i;
      float* si = s[i] - a.pos;
      sums[r * kAttentionTileRows + i] = V::ExpSum(si, n, V::Max(si, n));
    }
  }
  for (int64_t j0 = 0; j0 < a.pos; j0 += kAttentionDecodeRows) {
    const int64_t nj = std::min(kAttentionDecodeRows, a.pos - j0);
    if (!in_place) encoded.decode(vc + j0 * row_bytes, nj * hs, buf);  // rows back to back
    for (int64_t r = 0; r < rep; ++r) {
      head(r, j0);
      if constexpr (HasF16Rows<V>::value) {
        if (in_place) {
          V::WeightedSumF16(s[0], reinterpret_cast<const uint16_t*>(vc + j0 * row_bytes), nj, hs,
                            /*accumulate=*/j0 > 0, o[0]);
          continue;
        }
      }
      V::WeightedSumTile(s, rows, buf, hs, nj, hs, /*accumulate=*/j0 > 0, o);
    }
  }
  for (int64_t r = 0; r < rep; ++r) {
    head(r, a.pos);
    V::WeightedSumTile(s, rows, vn, ns, shared_new, hs, /*accumulate=*/a.pos > 0, o);
    for (int64_t i = 0; i < rows; ++i) {
      V::WeightedSum(s[i] + shared_new, vn + shared_new * ns, ns, i, hs, /*accumulate=*/true, o[i]);
      V::Scale(o[i], 1.0f / sums[r * kAttentionTileRows + i], hs);
    }
  }
}

// A tile of `rows` consecutive query rows (f32 cache, no window): every row sees the cache's
// first pos rows and the block's rows 0..row0 (the shared keys, processed for all rows at once by
// V::ScoresTile and V::WeightedSumTile, which load each key and value row once per tile), then
// row i its own i further block rows. Other cases go row by row (AttendGroup).
template <class V>
void AttendRows(const AttentionArgs& a, int64_t kv_head, int64_t row0, int64_t rows,
                float* scores) {
  const EncodedRows encoded = EncodedCache<V>(a);
  if (a.window == 0 && encoded.k != nullptr) {
    return AttendRowsEncoded<V>(a, encoded, kv_head, row0, rows, scores);
  }
  if (rows == 1 || a.window > 0) {
    for (int64_t i = 0; i < rows; ++i) AttendGroup<V>(a, kv_head, row0 + i, scores);
    return;
  }
  const int64_t hs = a.head_dim, rep = a.heads / a.kv_heads, ns = a.kv_heads * hs;
  const int64_t shared_new = row0 + 1;        // block rows every row of the tile sees
  const int64_t n_max = a.pos + row0 + rows;  // keys of the tile's last row
  const float* kc = a.k_cache + kv_head * a.ctx * hs;
  const float* vc = a.v_cache + kv_head * a.ctx * hs;
  const float* kn = a.k_new + kv_head * hs;
  const float* vn = a.v_new + kv_head * hs;
  for (int64_t r = 0; r < rep; ++r) {
    const float* q[kAttentionTileRows];
    float* s[kAttentionTileRows];
    float* s_new[kAttentionTileRows];
    float* o[kAttentionTileRows];
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t head_row = (row0 + i) * a.heads + kv_head * rep + r;
      q[i] = a.q + head_row * hs;
      o[i] = a.out + head_row * hs;
      s[i] = scores + (r * kAttentionTileRows + i) * n_max;
      s_new[i] = s[i] + a.pos;
    }
    V::ScoresTile(q, rows, kc, hs, a.pos, hs, a.scale, s);
    V::ScoresTile(q, rows, kn, ns, shared_new, hs, a.scale, s_new);
    float sums[kAttentionTileRows];
    for (int64_t i = 0; i < rows; ++i) {
      V::Scores(q[i], kn + shared_new * ns, ns, i, hs, a.scale, s_new[i] + shared_new);
      const int64_t n = a.pos + shared_new + i;
      sums[i] = V::ExpSum(s[i], n, V::Max(s[i], n));
    }
    V::WeightedSumTile(s, rows, vc, hs, a.pos, hs, /*accumulate=*/false, o);
    V::WeightedSumTile(s_new, rows, vn, ns, shared_new, hs, /*accumulate=*/true, o);
    for (int64_t i = 0; i < rows; ++i) {
      V::WeightedSum(s_new[i] + shared_new, vn + shared_new * ns, ns, i, hs, /*accumulate=*/true,
                     o[i]);
      V::Scale(o[i], 1.0f / sums[i], hs);
    }
  }
}

// ScoresTile and WeightedSumTile row by row (ISAs without a tiled version use these).
template <class V>
void ScoresTileByRow(const float* const* q, int64_t rows, const float* k, int64_t stride, int64_t n,
                     int64_t hs, float scale, float* const* s) {
  for (int64_t i = 0; i < rows; ++i) V::Scores(q[i], k, stride, n, hs, scale, s[i]);
}
template <class V>
void WeightedSumTileByRow(float* const* s, int64_t rows, const float* v, int64_t stride, int64_t n,
                          int64_t hs, bool accumulate, float* const* o) {
  for (int64_t i = 0; i < rows; ++i) V::WeightedSum(s[i], v, stride, n, hs, accumulate, o[i]);
}

// Scores and WeightedSum through Dot and Axpy, one row at a time (the generic order; ISAs without
// a blocked version use these).
template <class V>
void ScoresByDot(const float* q, const float* k, int64_t stride, int64_t n, int64_t hs, float scale,
                 float* s) {
  for (int64_t j = 0; j < n; ++j) s[j] = scale * V::Dot(q, k + j * stride, hs);
}
template <class V>
void WeightedSumByAxpy(const float* s, const float* v, int64_t stride, int64_t n, int64_t hs,
                       bool accumulate, float* o) {
  if (!accumulate) std::memset(o, 0, static_cast<size_t>(hs) * sizeof(float));
  for (int64_t j = 0; j < n; ++j) V::Axpy(o, s[j], v + j * stride, hs);
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ATTENTION_ATTENTION_IMPL_H_
