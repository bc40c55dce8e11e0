#include "runtime/kernels/attention/attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace kernels {
namespace {

struct Case {
  int64_t t, heads, kv_heads, head_dim, pos, window;
};

// softmax(scale q.k) v in double over the visible positions, from the definition.
std::vector<double> Reference(const AttentionArgs& a) {
  const int64_t hs = a.head_dim, rep = a.heads / a.kv_heads;
  std::vector<double> out(static_cast<size_t>(a.t * a.heads * hs), 0.0);
  for (int64_t i = 0; i < a.t; ++i) {
    const int64_t qpos = a.pos + i;
    for (int64_t qh = 0; qh < a.heads; ++qh) {
      const int64_t h = qh / rep;
      const float* q = a.q + (i * a.heads + qh) * hs;
      std::vector<double> s;
      std::vector<const float*> vs;
      for (int64_t p = 0; p <= qpos; ++p) {
        if (a.window > 0 && p <= qpos - a.window) continue;
        const float* k = p < a.pos ? a.k_cache + (h * a.ctx + p) * hs
                                   : a.k_new + ((p - a.pos) * a.kv_heads + h) * hs;
        vs.push_back(p < a.pos ? a.v_cache + (h * a.ctx + p) * hs
                               : a.v_new + ((p - a.pos) * a.kv_heads + h) * hs);
        double d = 0;
        for (int64_t e = 0; e < hs; ++e) d += static_cast<double>(q[e]) * k[e];
        s.push_back(a.scale * d);
      }
      double mx = -1e300, sum = 0;
      for (double x : s) mx = std::max(mx, x);
      for (double& x : s) sum += (x = std::exp(x - mx));
      double* o = out.data() + (i * a.heads + qh) * hs;
      for (size_t j = 0; j < s.size(); ++j) {
        for (int64_t e = 0; e < hs; ++e) o[e] += s[j] / sum * vs[j][e];
      }
    }
  }
  return out;
}

// Tiles of `tile_rows` rows, the last one shorter (as the op runs them: kAttentionTileRows).
void RunAll(const AttentionKernel& kernel, const AttentionArgs& a,
            int64_t tile_rows = kAttentionTileRows) {
  std::vector<float> scores(AttentionScratchFloats(a));
  for (int64_t h = 0; h < a.kv_heads; ++h) {
    for (int64_t i = 0; i < a.t; i += tile_rows) {
      kernel.group(a, h, i, std::min(tile_rows, a.t - i), scores.data());
    }
  }
}

// Kernels whose rows come out with the same bits in a tile of query rows as one at a time (each
// score and each output value summed in one order on every path).
bool TilesEqualRows(const AttentionKernel& k) { return std::string(k.name) == "attention_neon"; }

enum class Cache { kF32, kQ8_0, kF16 };

// An encoded cache (a) gives the bits of an f32 cache holding its decoded rows (kc, vc), whether
// its rows are decoded in chunks or read in place (NEON's f16 decode step), in tiles and row by
// row.
void ExpectBitsOfDecodedRows(const AttentionKernel& k, AttentionArgs a,
                             const std::vector<float>& kc, const std::vector<float>& vc,
                             size_t n_out) {
  AttentionArgs decoded = a;
  decoded.k_cache = kc.data();
  decoded.v_cache = vc.data();
  decoded.k_cache_q8_0 = decoded.v_cache_q8_0 = nullptr;
  decoded.k_cache_f16 = decoded.v_cache_f16 = nullptr;
  for (int64_t tile_rows : {kAttentionTileRows, int64_t{1}}) {
    std::vector<float> encoded(n_out, -1.0f), f32(n_out, -2.0f);
    a.out = encoded.data();
    RunAll(k, a, tile_rows);
    decoded.out = f32.data();
    RunAll(k, decoded, tile_rows);
    for (size_t i = 0; i < n_out; ++i) {
      ASSERT_EQ(encoded[i], f32[i])
          << "element " << i << " (tiles of " << tile_rows << ": against the f32 cache)";
    }
  }
}

// Every kernel on `cases`; with a q8_0 or f16 `cache`, the cache rows are stored as q8_0 blocks or
// halves (the reference then uses their decoded values) and the rows beyond pos are 0xff bytes
// (NaN scales or NaN halves).
void CheckEveryKernel(absl::Span<const Case> cases, Cache cache) {
  const bool q8_0 = cache == Cache::kQ8_0, f16 = cache == Cache::kF16;
  std::mt19937 rng(7);
  std::normal_distribution<float> g(0.0f, 1.0f);
  for (const Case& c : cases) {
    const int64_t ctx = c.pos + 5;  // capacity beyond pos: never read (NaN)
    std::vector<float> q(c.t * c.heads * c.head_dim), kn(c.kv_heads * c.t * c.head_dim),
        vn(kn.size());
    std::vector<float> kc(c.kv_heads * ctx * c.head_dim, std::numeric_limits<float>::quiet_NaN());
    std::vector<float> vc(kc);
    for (float& x : q) x = g(rng);
    for (float& x : kn) x = g(rng);
    for (float& x : vn) x = g(rng);
    for (int64_t h = 0; h < c.kv_heads; ++h) {
      for (int64_t p = 0; p < c.pos * c.head_dim; ++p) {
        kc[h * ctx * c.head_dim + p] = g(rng);
        vc[h * ctx * c.head_dim + p] = g(rng);
      }
    }
    const int64_t row_bytes = q8_0 ? AttentionQ8_0RowBytes(c.head_dim) : 2 * c.head_dim;
    std::vector<uint8_t> kq(q8_0 || f16 ? c.kv_heads * ctx * row_bytes : 0, 0xff), vq(kq);
    if (f16) {
      for (int64_t h = 0; h < c.kv_heads; ++h) {
        for (int64_t p = 0; p < c.pos; ++p) {
          const int64_t r = h * ctx + p;
          for (auto [f, b] : {std::make_pair(&kc, &kq), std::make_pair(&vc, &vq)}) {
            quantization_internal::QuantizeRowF16(f->data() + r * c.head_dim,
                                                  b->data() + r * row_bytes, c.head_dim);
            quantization_internal::DequantizeRowF16(b->data() + r * row_bytes,
                                                    f->data() + r * c.head_dim, c.head_dim);
          }
        }
      }
    }
    if (q8_0) {
      for (int64_t h = 0; h < c.kv_heads; ++h) {
        for (int64_t p = 0; p < c.pos; ++p) {
          const int64_t r = h * ctx + p;
          for (auto [f, b] : {std::make_pair(&kc, &kq), std::make_pair(&vc, &vq)}) {
            quantization_internal::QuantizeRowQ8_0(f->data() + r * c.head_dim,
                                                   b->data() + r * row_bytes, c.head_dim);
            quantization_internal::DequantizeRowQ8_0(b->data() + r * row_bytes,
                                                     f->data() + r * c.head_dim, c.head_dim);
          }
        }
      }
    }
    AttentionArgs a;
    a.q = q.data();
    a.k_cache = kc.data();
    a.v_cache = vc.data();
    a.k_new = kn.data();
    a.v_new = vn.data();
    a.t = c.t;
    a.heads = c.heads;
    a.kv_heads = c.kv_heads;
    a.head_dim = c.head_dim;
    a.ctx = ctx;
    a.pos = c.pos;
    a.window = c.window;
    a.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim)) * 2.0f;  // sharper than usual
    const std::vector<double> want = Reference(a);
    if (q8_0) {
      a.k_cache = a.v_cache = nullptr;
      a.k_cache_q8_0 = kq.data();
      a.v_cache_q8_0 = vq.data();
    }
    std::vector<uint16_t> kh(kq.size() / 2), vh(kh.size());  // aligned copies of the halves
    if (f16) {
      std::memcpy(kh.data(), kq.data(), kq.size());
      std::memcpy(vh.data(), vq.data(), vq.size());
      a.k_cache = a.v_cache = nullptr;
      a.k_cache_f16 = kh.data();
      a.v_cache_f16 = vh.data();
    }
    for (const AttentionKernel* k : AllAttentionKernels()) {
      if (!IsaSupported(k->isa)) continue;
      SCOPED_TRACE(::testing::Message()
                   << k->name
                   << (q8_0  ? " q8_0 cache"
                       : f16 ? " f16 cache"
                             : " f32 cache")
                   << " t=" << c.t << " heads=" << c.heads << "/" << c.kv_heads
                   << " hs=" << c.head_dim << " pos=" << c.pos << " window=" << c.window);
      std::vector<float> out(q.size(), -1.0f);
      a.out = out.data();
      RunAll(*k, a);
      for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_NEAR(out[i], want[i], 2e-6 + 2e-6 * std::abs(want[i])) << "element " << i;
      }
      if (TilesEqualRows(*k)) {
        std::vector<float> by_row(q.size(), -1.0f);
        a.out = by_row.data();
        RunAll(*k, a, /*tile_rows=*/1);
        for (size_t i = 0; i < out.size(); ++i) {
          ASSERT_EQ(out[i], by_row[i]) << "element " << i << " (tiles against one row at a time)";
        }
      }
      if (TilesEqualRows(*k) && (q8_0 || f16)) ExpectBitsOfDecodedRows(*k, a, kc, vc, out.size());
    }
  }
}

TEST(AttentionTest, EveryKernelMatchesTheDefinition) {
  const Case cases[] = {
      {1, 1, 1, 1, 0, 0},
      {1, 1, 1, 7, 3, 0},
      {1, 4, 2, 16, 5, 0},
      {3, 6, 6, 48, 0, 0},
      {3, 9, 3, 64, 40, 0},
      {17, 4, 1, 64, 9, 0},
      {1, 8, 2, 100, 77, 0},
      {5, 2, 1, 128, 31, 0},
      {4, 4, 2, 64, 20, 1},
      {6, 4, 2, 32, 20, 4},
      {9, 2, 2, 48, 3, 5},
      {1, 8, 4, 64, 100, 30},
      {33, 4, 4, 24, 0, 16},
      {2, 12, 4, 80, 257, 0},
      {1, 14, 2, 64, 300, 0},
      // Head dims past one register-resident chunk of the weighted sum (128 / 64 floats).
      {2, 4, 2, 256, 37, 0},
      {3, 2, 1, 136, 21, 0},
      {5, 2, 2, 72, 9, 3},
      // Prefill blocks in tiles of 4 rows (and a shorter last tile): head dims with and without
      // whole vectors, from position 0 and after a cache.
      {8, 4, 2, 48, 13, 0},
      {7, 6, 3, 256, 5, 0},
      {12, 2, 2, 72, 0, 0},
      {9, 8, 2, 100, 3, 0},
      {16, 2, 1, 64, 130, 0},
      {6, 3, 3, 16, 1, 0},
      // NEON's tiles: value chunks of 16 floats per row with a 12-, 8- or 4-float last chunk,
      // the single-row sum's 32-float chunks with a 28- or 12-float one, key counts not a
      // multiple of 4.
      {8, 2, 1, 28, 11, 0},
      {5, 2, 2, 44, 6, 0},
      {12, 1, 1, 60, 2, 0},
  };
  CheckEveryKernel(cases, Cache::kF32);
}

// A q8_0 cache (head_dim a multiple of 32): the same attention over the decoded rows, with
// grouped heads (rep 1..7), windows, blocks and decode steps.
TEST(AttentionTest, Q8_0CacheMatchesTheDefinitionOverItsDecodedRows) {
  const Case cases[] = {
      {1, 1, 1, 32, 1, 0},
      {1, 4, 2, 64, 5, 0},
      {3, 6, 6, 32, 0, 0},
      {3, 9, 3, 64, 40, 0},
      {17, 4, 1, 64, 9, 0},
      {5, 2, 1, 128, 31, 0},
      {6, 4, 2, 32, 20, 4},
      {1, 8, 4, 64, 100, 30},
      {1, 14, 2, 64, 300, 0},
      {2, 7, 1, 96, 65, 0},
      // Prefill tiles over several chunks of decoded cache rows (kAttentionDecodeRows) and
      // a partial last one, a partial last tile.
      {9, 4, 2, 32, 150, 0},
      {6, 12, 2, 64, 64, 0},
      {4, 4, 4, 32, 129, 0},
  };
  CheckEveryKernel(cases, Cache::kQ8_0);
}

// An f16 cache (GGML's fp16 rows, llama.cpp's default): any head dim (tails of the 16-, 8- and
// 4-wide conversions), grouped heads, windows, blocks and decode steps, several chunks of decoded
// rows.
TEST(AttentionTest, F16CacheMatchesTheDefinitionOverItsDecodedRows) {
  const Case cases[] = {
      {1, 1, 1, 1, 1, 0},     {1, 1, 1, 7, 3, 0},    {1, 4, 2, 64, 5, 0},   {3, 9, 3, 64, 40, 0},
      {17, 4, 1, 64, 9, 0},   {1, 8, 2, 100, 77, 0}, {6, 4, 2, 32, 20, 4},  {1, 8, 4, 64, 100, 30},
      {1, 14, 2, 64, 300, 0}, {2, 4, 2, 256, 37, 0}, {3, 2, 1, 136, 21, 0}, {9, 4, 2, 44, 150, 0},
      {4, 4, 4, 28, 129, 0},  {12, 1, 1, 60, 2, 0},
  };
  CheckEveryKernel(cases, Cache::kF16);
}

// Every kernel's f16 row conversions: each float as GGML's fp32-to-fp16 (the f16 codec) rounds it,
// for normal values, ties, subnormals, overflow to infinity and signed zeros, in a row long enough
// for the vector loops and an odd tail; decoding gives the codec's floats back; NaN stays NaN.
TEST(AttentionTest, F16RowConversionsMatchTheCodec) {
  std::vector<float> x;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int i = 0; i < 200; ++i) x.push_back(normal(rng));
  for (float v : {0.0f, -0.0f, 1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65504.0f, 65520.0f, 1e6f,
                  -1e6f, 5.9604645e-8f, 2.9802322e-8f, 8.9406967e-8f, 6.1e-5f, -3.1e-6f,
                  std::numeric_limits<float>::infinity(), 1e-30f}) {
    x.push_back(v);
  }
  const int64_t n = static_cast<int64_t>(x.size());  // 215: vector loops and a tail of 7 / 3
  std::vector<uint8_t> want(2 * n);
  quantization_internal::QuantizeRowF16(x.data(), want.data(), n);
  std::vector<float> want_back(n);
  quantization_internal::DequantizeRowF16(want.data(), want_back.data(), n);
  int checked = 0;
  for (const AttentionKernel* k : AllAttentionKernels()) {
    if (!IsaSupported(k->isa)) continue;
    std::vector<uint16_t> got(n);
    k->encode_f16(x.data(), n, got.data());
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size())) << k->name;
    std::vector<float> back(n);
    k->decode_f16(got.data(), n, back.data());
    EXPECT_EQ(0, std::memcmp(back.data(), want_back.data(), n * sizeof(float))) << k->name;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    uint16_t h;
    k->encode_f16(&nan, 1, &h);
    float f;
    k->decode_f16(&h, 1, &f);
    EXPECT_TRUE(std::isnan(f)) << k->name;
    ++checked;
  }
  EXPECT_GE(checked, 2);  // the generic kernel and this CPU's
}

TEST(AttentionTest, SelectHonoursTheCapAndTheCpu) {
#if defined(__aarch64__)
  // Every AArch64 CPU has NEON: a cap below it still runs the NEON kernel (the library does not
  // carry the generic one, README "Footprint").
  EXPECT_STREQ(SelectAttentionKernel(Isa::kGeneric).name, "attention_neon");
#else
  EXPECT_STREQ(SelectAttentionKernel(Isa::kGeneric).name, "attention_generic");
#endif
  const AttentionKernel& best = SelectAttentionKernel();
  EXPECT_TRUE(IsaSupported(best.isa));
#if defined(__x86_64__)
  if (IsaSupported(Isa::kAvx512Vnni)) {
    EXPECT_STREQ(best.name, "attention_avx512");
  } else if (IsaSupported(Isa::kAvx2)) {
    EXPECT_STREQ(best.name, "attention_avx2");
  }
  if (IsaSupported(Isa::kAvx2)) {
    EXPECT_STREQ(SelectAttentionKernel(Isa::kAvxVnni).name, "attention_avx2");
  }
  EXPECT_EQ(AllAttentionKernels().size(), 3u);
#elif defined(__aarch64__)
  EXPECT_STREQ(best.name, "attention_neon");
  EXPECT_EQ(AllAttentionKernels().size(), 2u);
#endif
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
