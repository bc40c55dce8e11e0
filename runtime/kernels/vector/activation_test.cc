#include "runtime/kernels/vector/activation.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace kernels {
namespace {

double SiluRef(double x) { return x / (1.0 + std::exp(-x)); }

// Every kernel against the definition in double precision, for every length up to 70 (the
// vector tails of 4, 8 and 16 lanes) and for values from -120 to 120 (e^-x beyond f32's range at
// both ends: silu tends to 0 and to x; below 1e-30 a result counts as 0), in place too.
TEST(ActivationTest, EveryKernelMatchesTheDefinition) {
  std::mt19937 rng(5);
  std::normal_distribution<float> g(0.0f, 4.0f);
  const float fixed[] = {0.0f,  -0.0f,  1e-30f, -1e-30f, 1.0f,   -1.0f,   20.0f,   -20.0f,
                         87.0f, -87.0f, 89.0f,  -89.0f,  120.0f, -120.0f, 3.4e38f, -3.4e38f};
  for (const ActivationKernel* k : AllActivationKernels()) {
    if (!IsaSupported(k->isa)) continue;
    for (int64_t n = 1; n <= 70; ++n) {
      SCOPED_TRACE(::testing::Message() << k->name << " n=" << n);
      std::vector<float> x(n), up(n), y(n, -7.0f), z(n, -7.0f);
      for (int64_t i = 0; i < n; ++i) {
        x[i] = i < 16 && n >= 16 ? fixed[i] : g(rng);
        up[i] = g(rng);
      }
      k->silu(x.data(), y.data(), n);
      k->swiglu(x.data(), up.data(), z.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const double want = SiluRef(x[i]);
        ASSERT_NEAR(y[i], want, 1e-6 * std::abs(want) + 1e-30) << "silu(" << x[i] << ")";
        const double want_gated = want * up[i];
        if (std::abs(want_gated) > 3.4028234e38) {  // beyond f32: an infinity of that sign
          ASSERT_TRUE(std::isinf(z[i]) && (z[i] > 0) == (want_gated > 0)) << z[i];
          continue;
        }
        ASSERT_NEAR(z[i], want_gated, 1e-6 * std::abs(want_gated) + 1e-30)
            << "swiglu(" << x[i] << ", " << up[i] << ")";
      }
      std::vector<float> in_place = x;
      k->silu(in_place.data(), in_place.data(), n);
      EXPECT_EQ(in_place, y);
      in_place = x;
      k->swiglu(in_place.data(), up.data(), in_place.data(), n);
      EXPECT_EQ(in_place, z);
    }
  }
}

TEST(ActivationTest, SelectHonoursTheCapAndTheCpu) {
  EXPECT_STREQ(SelectActivationKernel(Isa::kGeneric).name, "activation_generic");
  const ActivationKernel& best = SelectActivationKernel();
  EXPECT_TRUE(IsaSupported(best.isa));
  for (const ActivationKernel* k : AllActivationKernels()) {
    if (IsaSupported(k->isa)) {
      EXPECT_GE(static_cast<int>(best.isa), static_cast<int>(k->isa));
    }
  }
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
