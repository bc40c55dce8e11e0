#include "runtime/kernels/vector/delta_rule.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace kernels {
namespace {

struct Case {
  std::vector<float> m, k, q, v;
  float decay, b, scale;
};

Case MakeCase(int64_t s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  Case c;
  c.m.resize(s * s);
  c.k.resize(s);
  c.q.resize(s);
  c.v.resize(s);
  for (float& x : c.m) x = 0.3f * g(rng);
  for (float& x : c.k) x = g(rng) / std::sqrt(static_cast<float>(s));
  for (float& x : c.q) x = g(rng) / std::sqrt(static_cast<float>(s));
  for (float& x : c.v) x = g(rng);
  c.decay = 0.93f;
  c.b = 0.61f;
  c.scale = 1.0f / std::sqrt(static_cast<float>(s));
  return c;
}

// The definition in double precision: m_j *= decay; d = (v_j - m_j . k) b; m_j += k d;
// o_j = m_j . q * scale.
void Reference(const Case& c, int64_t s, std::vector<double>* m, std::vector<double>* o) {
  m->assign(c.m.begin(), c.m.end());
  o->assign(s, 0.0);
  for (int64_t j = 0; j < s; ++j) {
    double* mj = m->data() + j * s;
    double dot = 0.0;
    for (int64_t i = 0; i < s; ++i) {
      mj[i] *= c.decay;
      dot += mj[i] * c.k[i];
    }
    const double d = (c.v[j] - dot) * c.b;
    double out = 0.0;
    for (int64_t i = 0; i < s; ++i) {
      mj[i] += c.k[i] * d;
      out += mj[i] * c.q[i];
    }
    (*o)[j] = out * c.scale;
  }
}

// The generic kernel against the double-precision definition, and every kernel this CPU runs
// bit for bit against the generic one (the same lane order and roundings, delta_rule.h), for
// head sizes that are and are not multiples of 16, over three tokens in a row.
TEST(DeltaRuleTest, EveryKernelGivesTheGenericBits) {
  for (int64_t s : {1, 5, 16, 17, 32, 48, 64, 128}) {
    const Case c = MakeCase(s, static_cast<uint32_t>(s));
    std::vector<double> want_m, want_o;
    Reference(c, s, &want_m, &want_o);
    std::vector<float> gm = c.m, go(s);
    internal::DeltaRuleTokenGeneric(gm.data(), c.k.data(), c.q.data(), c.v.data(), c.decay, c.b,
                                    c.scale, s, go.data());
    for (int64_t i = 0; i < s * s; ++i) ASSERT_NEAR(gm[i], want_m[i], 1e-5) << "s=" << s;
    for (int64_t j = 0; j < s; ++j) ASSERT_NEAR(go[j], want_o[j], 1e-5) << "s=" << s;
    for (int token = 1; token < 3; ++token) {  // two more tokens on the generic state
      internal::DeltaRuleTokenGeneric(gm.data(), c.k.data(), c.q.data(), c.v.data(), c.decay, c.b,
                                      c.scale, s, go.data());
    }
    for (const DeltaRuleKernel* k : AllDeltaRuleKernels()) {
      if (!IsaSupported(k->isa)) continue;
      SCOPED_TRACE(::testing::Message() << k->name << " s=" << s);
      std::vector<float> m = c.m, o(s, -7.0f);
      for (int token = 0; token < 3; ++token) {
        k->token(m.data(), c.k.data(), c.q.data(), c.v.data(), c.decay, c.b, c.scale, s, o.data());
      }
      EXPECT_EQ(m, gm);
      EXPECT_EQ(o, go);
    }
  }
}

TEST(DeltaRuleTest, SelectHonoursTheCapAndTheCpu) {
  EXPECT_STREQ(SelectDeltaRuleKernel(Isa::kGeneric).name, "delta_rule_generic");
  const DeltaRuleKernel& best = SelectDeltaRuleKernel();
  EXPECT_TRUE(IsaSupported(best.isa));
  for (const DeltaRuleKernel* k : AllDeltaRuleKernels()) {
    if (IsaSupported(k->isa)) {
      EXPECT_GE(static_cast<int>(best.isa), static_cast<int>(k->isa));
    }
  }
#if defined(__x86_64__)
  if (IsaSupported(Isa::kAvx512Vnni)) {
    EXPECT_STREQ(best.name, "delta_rule_avx512");
  }
#elif defined(__aarch64__)
  EXPECT_STREQ(best.name, "delta_rule_neon");
#endif
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
