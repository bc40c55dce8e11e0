#include "runtime/internal/op_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/parallel.h"
#include "core/status_macros.h"
#include "quantization/encoding.h"
#include "runtime/custom_op.h"
#include "runtime/kernels/attention/attention.h"
#include "runtime/kernels/vector/activation.h"
#include "xnnpack.h"

namespace edgeq {
namespace internal {
namespace {

template <typename T = float>
T* Data(const ExecContext& ctx, int id) {
  return static_cast<T*>(ctx.slots[id]);
}

size_t ByteSize(const ValueType& t) {
  return static_cast<size_t>(t.type.shape.num_elements()) * DTypeSize(t.type.dtype);
}

// ---------------------------------------------------------------------------------------------
// Element-wise binary ops with numpy broadcasting.

struct AddOp {
  static float Apply(float a, float b) { return a + b; }
};
struct SubOp {
  static float Apply(float a, float b) { return a - b; }
};
struct MulOp {
  static float Apply(float a, float b) { return a * b; }
};
struct DivOp {
  static float Apply(float a, float b) { return a / b; }
};

template <typename Op>
class BinaryKernel : public OpKernel {
 public:
  BinaryKernel(std::string op, int a, int b, int out, const Shape& sa, const Shape& sb,
               const Shape& so)
      : op_(std::move(op)), a_(a), b_(b), out_(out), n_(so.num_elements()) {
    if (sa == so && sb == so) {
      mode_ = kSame;
    } else if (sb.num_elements() == 1 && sa == so) {
      mode_ = kScalarB;
    } else if (sa.num_elements() == 1 && sb == so) {
      mode_ = kScalarA;
    } else {
      mode_ = kGeneral;
      const int rank = so.rank();
      dims_ = so.dims();
      stride_a_ = Strides(sa, so);
      stride_b_ = Strides(sb, so);
      inner_ = rank == 0 ? 1 : so.dim(-1);
      inner_a_ = rank == 0 ? 0 : stride_a_[rank - 1];
      inner_b_ = rank == 0 ? 0 : stride_b_[rank - 1];
    }
  }

  absl::Status Run(const ExecContext& ctx) override {
    const float* a = Data(ctx, a_);
    const float* b = Data(ctx, b_);
    float* y = Data(ctx, out_);
    switch (mode_) {
      case kSame:
        ParallelFor(ctx.pool, n_, 4096, n_, [=](size_t s, size_t c) {
          for (size_t i = s; i < s + c; ++i) y[i] = Op::Apply(a[i], b[i]);
        });
        break;
      case kScalarB: {
        const float bv = b[0];
        ParallelFor(ctx.pool, n_, 4096, n_, [=](size_t s, size_t c) {
          for (size_t i = s; i < s + c; ++i) y[i] = Op::Apply(a[i], bv);
        });
        break;
      }
      case kScalarA: {
        const float av = a[0];
        ParallelFor(ctx.pool, n_, 4096, n_, [=](size_t s, size_t c) {
          for (size_t i = s; i < s + c; ++i) y[i] = Op::Apply(av, b[i]);
        });
        break;
      }
      case kGeneral: {
        const int64_t rows = inner_ == 0 ? 0 : n_ / inner_;
        ParallelFor(ctx.pool, rows, 16, n_, [&](size_t s, size_t c) {
          const int rank = static_cast<int>(dims_.size());
          for (size_t row = s; row < s + c; ++row) {
            int64_t rem = static_cast<int64_t>(row);
            int64_t oa = 0, ob = 0;
            for (int d = rank - 2; d >= 0; --d) {
              const int64_t idx = rem % dims_[d];
              rem /= dims_[d];
              oa += idx * stride_a_[d];
              ob += idx * stride_b_[d];
            }
            float* yr = y + row * inner_;
            for (int64_t i = 0; i < inner_; ++i) {
              yr[i] = Op::Apply(a[oa + i * inner_a_], b[ob + i * inner_b_]);
            }
          }
        });
        break;
      }
    }
    return absl::OkStatus();
  }

  std::string name() const override { return op_; }

 private:
  enum Mode { kSame, kScalarB, kScalarA, kGeneral };

  // Element strides of `s` aligned to the output's dimensions (0 where broadcast).
  static std::vector<int64_t> Strides(const Shape& s, const Shape& out) {
    std::vector<int64_t> strides(out.rank(), 0);
    int64_t stride = 1;
    for (int i = s.rank() - 1; i >= 0; --i) {
      const int o = out.rank() - s.rank() + i;
      strides[o] = s.dim(i) == 1 ? 0 : stride;
      stride *= s.dim(i);
    }
    return strides;
  }

  std::string op_;
  int a_, b_, out_;
  int64_t n_;
  Mode mode_;
  std::vector<int64_t> dims_, stride_a_, stride_b_;
  int64_t inner_ = 0, inner_a_ = 0, inner_b_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Unary and row-wise ops.

class UnaryKernel : public OpKernel {
 public:
  UnaryKernel(std::string op, int x, int out, int64_t n, const kernels::ActivationKernel* act)
      : op_(std::move(op)), silu_(op_ == "silu"), x_(x), out_(out), n_(n), act_(act) {}

  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    float* y = Data(ctx, out_);
    if (silu_) {
      const auto silu = act_->silu;
      ParallelFor(ctx.pool, n_, 4096, 4 * n_,
                  [=](size_t s, size_t c) { silu(x + s, y + s, static_cast<int64_t>(c)); });
    } else {
      ParallelFor(ctx.pool, n_, 4096, 4 * n_, [=](size_t s, size_t c) {
        for (size_t i = s; i < s + c; ++i) {
          y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
        }
      });
    }
    return absl::OkStatus();
  }
  std::string name() const override {
    return silu_ ? absl::StrCat("silu_", SuffixOf(act_->name)) : op_;
  }

  // "activation_avx512" -> "avx512".
  static std::string SuffixOf(const char* name) {
    const std::string n = name;
    const size_t u = n.find('_');
    return u == std::string::npos ? n : n.substr(u + 1);
  }

 private:
  std::string op_;
  bool silu_;
  int x_, out_;
  int64_t n_;
  const kernels::ActivationKernel* act_;
};

// ops::SwiGlu: silu(gate) * up in one pass.
class SwiGluKernel : public OpKernel {
 public:
  SwiGluKernel(int gate, int up, int out, int64_t n, const kernels::ActivationKernel* act)
      : gate_(gate), up_(up), out_(out), n_(n), act_(act) {}

  absl::Status Run(const ExecContext& ctx) override {
    const float* gate = Data(ctx, gate_);
    const float* up = Data(ctx, up_);
    float* y = Data(ctx, out_);
    const auto swiglu = act_->swiglu;
    ParallelFor(ctx.pool, n_, 4096, 4 * n_, [=](size_t s, size_t c) {
      swiglu(gate + s, up + s, y + s, static_cast<int64_t>(c));
    });
    return absl::OkStatus();
  }
  std::string name() const override {
    return absl::StrCat("swiglu_", UnaryKernel::SuffixOf(act_->name));
  }

 private:
  int gate_, up_, out_;
  int64_t n_;
  const kernels::ActivationKernel* act_;
};

class SoftmaxKernel : public OpKernel {
 public:
  SoftmaxKernel(int x, int out, int64_t rows, int64_t d) : x_(x), out_(out), rows_(rows), d_(d) {}
  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    float* y = Data(ctx, out_);
    const int64_t d = d_;
    ParallelFor(ctx.pool, rows_, 1, 4 * rows_ * d, [=](size_t s, size_t c) {
      for (size_t r = s; r < s + c; ++r) {
        const float* xr = x + r * d;
        float* yr = y + r * d;
        float mx = -std::numeric_limits<float>::infinity();
        for (int64_t i = 0; i < d; ++i) mx = std::max(mx, xr[i]);
        float sum = 0.0f;
        for (int64_t i = 0; i < d; ++i) {
          yr[i] = std::exp(xr[i] - mx);
          sum += yr[i];
        }
        for (int64_t i = 0; i < d; ++i) yr[i] /= sum;
      }
    });
    return absl::OkStatus();
  }
  std::string name() const override { return "softmax"; }

 private:
  int x_, out_;
  int64_t rows_, d_;
};

class RmsNormKernel : public OpKernel {
 public:
  RmsNormKernel(int x, int w, int out, int64_t rows, int64_t d, float eps)
      : x_(x), w_(w), out_(out), rows_(rows), d_(d), eps_(eps) {}
  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    const float* w = Data(ctx, w_);
    float* y = Data(ctx, out_);
    const int64_t d = d_;
    const float eps = eps_;
    ParallelFor(ctx.pool, rows_, 1, rows_ * d, [=](size_t s, size_t c) {
      for (size_t r = s; r < s + c; ++r) {
        const float* xr = x + r * d;
        float* yr = y + r * d;
        // 16 partial sums (lanes the compiler keeps in vector registers), added pairwise: the
        // sum does not wait on one add's latency per element.
        float part[16] = {};
        int64_t i = 0;
        for (; i + 16 <= d; i += 16) {
          for (int l = 0; l < 16; ++l) part[l] += xr[i + l] * xr[i + l];
        }
        for (; i < d; ++i) part[i % 16] += xr[i] * xr[i];
        for (int w = 8; w >= 1; w /= 2) {
          for (int l = 0; l < w; ++l) part[l] += part[l + w];
        }
        float ss = part[0] / static_cast<float>(d) + eps;
        ss = 1.0f / std::sqrt(ss);
        for (int64_t i = 0; i < d; ++i) yr[i] = w[i] * (ss * xr[i]);
      }
    });
    return absl::OkStatus();
  }
  std::string name() const override { return "rms_norm"; }

 private:
  int x_, w_, out_;
  int64_t rows_, d_;
  float eps_;
};

class RopeKernel : public OpKernel {
 public:
  RopeKernel(int x, int pos, int out, bool pos64, int64_t s, int64_t inner, int64_t d, float theta)
      : x_(x), pos_(pos), out_(out), pos64_(pos64), s_(s), inner_(inner), d_(d) {
    inv_freq_.resize(d / 2);
    for (int64_t i = 0; i < d / 2; ++i) {
      inv_freq_[i] = 1.0f / std::pow(theta, static_cast<float>(2 * i) / static_cast<float>(d));
    }
  }
  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    float* y = Data(ctx, out_);
    for (int64_t j = 0; j < s_; ++j) {
      const int64_t p =
          pos64_ ? Data<const int64_t>(ctx, pos_)[j] : Data<const int32_t>(ctx, pos_)[j];
      const float pos = static_cast<float>(p);
      const float* xr = x + j * inner_;
      float* yr = y + j * inner_;
      for (int64_t h = 0; h < inner_; h += d_) {
        for (int64_t i = 0; i < d_ / 2; ++i) {
          const float val = pos * inv_freq_[i];
          const float fcr = std::cos(val);
          const float fci = std::sin(val);
          const float v0 = xr[h + 2 * i];
          const float v1 = xr[h + 2 * i + 1];
          yr[h + 2 * i] = v0 * fcr - v1 * fci;
          yr[h + 2 * i + 1] = v0 * fci + v1 * fcr;
        }
      }
    }
    return absl::OkStatus();
  }
  std::string name() const override { return "rope"; }

 private:
  int x_, pos_, out_;
  bool pos64_;
  int64_t s_, inner_, d_;
  std::vector<float> inv_freq_;
};

class GatherKernel : public OpKernel {
 public:
  GatherKernel(int table, int idx, int out, bool idx64, int64_t count, int64_t v, int64_t d,
               int64_t row_bytes, const QuantizationEncoding* encoding)
      : table_(table),
        idx_(idx),
        out_(out),
        idx64_(idx64),
        count_(count),
        v_(v),
        d_(d),
        row_bytes_(row_bytes),
        encoding_(encoding) {}
  absl::Status Run(const ExecContext& ctx) override {
    const uint8_t* table = Data<const uint8_t>(ctx, table_);
    float* y = Data(ctx, out_);
    for (int64_t i = 0; i < count_; ++i) {
      const int64_t r =
          idx64_ ? Data<const int64_t>(ctx, idx_)[i] : Data<const int32_t>(ctx, idx_)[i];
      if (r < 0 || r >= v_) {
        return absl::OutOfRangeError(absl::StrFormat(
            "gather: index %d (element %d of the indices) is outside the table's %d rows", r, i,
            v_));
      }
      const uint8_t* row = table + r * row_bytes_;
      if (encoding_ == nullptr) {
        std::memcpy(y + i * d_, row, d_ * sizeof(float));
      } else {
        encoding_->DequantizeRow(row, y + i * d_, d_);
      }
    }
    return absl::OkStatus();
  }
  std::string name() const override {
    return encoding_ == nullptr ? "gather" : absl::StrCat("gather_", encoding_->name());
  }

 private:
  int table_, idx_, out_;
  bool idx64_;
  int64_t count_, v_, d_, row_bytes_;
  const QuantizationEncoding* encoding_;
};

// ---------------------------------------------------------------------------------------------
// Data movement.

class CopyKernel : public OpKernel {
 public:
  CopyKernel(std::string name, int from, int to, size_t bytes)
      : name_(std::move(name)), from_(from), to_(to), bytes_(bytes) {}
  absl::Status Run(const ExecContext& ctx) override {
    if (bytes_ > 0) std::memcpy(ctx.slots[to_], ctx.slots[from_], bytes_);
    return absl::OkStatus();
  }
  std::string name() const override { return name_; }

 private:
  std::string name_;
  int from_, to_;
  size_t bytes_;
};

class TransposeKernel : public OpKernel {
 public:
  TransposeKernel(int x, int out, const Shape& in, const std::vector<int64_t>& perm, size_t elem)
      : x_(x), out_(out), elem_(elem), n_(in.num_elements()) {
    std::vector<int64_t> in_strides(in.rank(), 1);
    for (int i = in.rank() - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * in.dim(i + 1);
    for (size_t i = 0; i < perm.size(); ++i) {
      out_dims_.push_back(in.dim(static_cast<int>(perm[i])));
      strides_.push_back(in_strides[perm[i]]);
    }
  }
  absl::Status Run(const ExecContext& ctx) override {
    const uint8_t* x = Data<const uint8_t>(ctx, x_);
    uint8_t* y = Data<uint8_t>(ctx, out_);
    const int rank = static_cast<int>(out_dims_.size());
    int64_t index[Shape::kMaxRank] = {0};
    int64_t offset = 0;
    for (int64_t o = 0; o < n_; ++o) {
      std::memcpy(y + o * elem_, x + offset * elem_, elem_);
      for (int d = rank - 1; d >= 0; --d) {
        offset += strides_[d];
        if (++index[d] < out_dims_[d]) break;
        offset -= strides_[d] * out_dims_[d];
        index[d] = 0;
      }
    }
    return absl::OkStatus();
  }
  std::string name() const override { return "transpose"; }

 private:
  int x_, out_;
  size_t elem_;
  int64_t n_;
  std::vector<int64_t> out_dims_, strides_;
};

class SliceKernel : public OpKernel {
 public:
  SliceKernel(int x, int out, const Shape& in, const std::vector<int64_t>& starts,
              const std::vector<int64_t>& ends, size_t elem)
      : x_(x), out_(out) {
    const int rank = in.rank();
    std::vector<int64_t> in_strides(rank, 1);
    for (int i = rank - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * in.dim(i + 1);
    if (rank == 0) {
      row_bytes_ = elem;
      rows_ = 1;
      return;
    }
    row_bytes_ = (ends[rank - 1] - starts[rank - 1]) * elem;
    base_ = 0;
    for (int i = 0; i < rank; ++i) base_ += starts[i] * in_strides[i] * elem;
    rows_ = 1;
    for (int i = 0; i + 1 < rank; ++i) {
      dims_.push_back(ends[i] - starts[i]);
      strides_.push_back(in_strides[i] * elem);
      rows_ *= ends[i] - starts[i];
    }
  }
  absl::Status Run(const ExecContext& ctx) override {
    const uint8_t* x = Data<const uint8_t>(ctx, x_);
    uint8_t* y = Data<uint8_t>(ctx, out_);
    const int rank = static_cast<int>(dims_.size());
    int64_t index[Shape::kMaxRank] = {0};
    int64_t offset = base_;
    for (int64_t r = 0; r < rows_; ++r) {
      if (row_bytes_ > 0) std::memcpy(y + r * row_bytes_, x + offset, row_bytes_);
      for (int d = rank - 1; d >= 0; --d) {
        offset += strides_[d];
        if (++index[d] < dims_[d]) break;
        offset -= strides_[d] * dims_[d];
        index[d] = 0;
      }
    }
    return absl::OkStatus();
  }
  std::string name() const override { return "slice"; }

 private:
  int x_, out_;
  int64_t row_bytes_ = 0, base_ = 0, rows_ = 0;
  std::vector<int64_t> dims_, strides_;
};

class ConcatKernel : public OpKernel {
 public:
  ConcatKernel(std::vector<int> inputs, std::vector<int64_t> chunk_bytes, int out, int64_t outer)
      : inputs_(std::move(inputs)),
        chunk_bytes_(std::move(chunk_bytes)),
        out_(out),
        outer_(outer) {}
  absl::Status Run(const ExecContext& ctx) override {
    uint8_t* y = Data<uint8_t>(ctx, out_);
    for (int64_t o = 0; o < outer_; ++o) {
      for (size_t i = 0; i < inputs_.size(); ++i) {
        const int64_t c = chunk_bytes_[i];
        if (c > 0) std::memcpy(y, Data<const uint8_t>(ctx, inputs_[i]) + o * c, c);
        y += c;
      }
    }
    return absl::OkStatus();
  }
  std::string name() const override { return "concat"; }

 private:
  std::vector<int> inputs_;
  std::vector<int64_t> chunk_bytes_;
  int out_;
  int64_t outer_;
};

// ---------------------------------------------------------------------------------------------
// Matrix products.

// The portable f32 loop: any rhs (constant or not, batched or not, transposed or not).
class MatmulKernel : public OpKernel {
 public:
  MatmulKernel(int a, int b, int out, int64_t batch, int64_t m, int64_t k, int64_t n,
               bool rhs_batched, bool transposed)
      : a_(a),
        b_(b),
        out_(out),
        batch_(batch),
        m_(m),
        k_(k),
        n_(n),
        rhs_batched_(rhs_batched),
        transposed_(transposed) {}
  absl::Status Run(const ExecContext& ctx) override {
    const float* a = Data(ctx, a_);
    const float* b = Data(ctx, b_);
    float* y = Data(ctx, out_);
    const int64_t m = m_, k = k_, n = n_;
    const bool rhs_batched = rhs_batched_, transposed = transposed_;
    const int64_t rows = batch_ * m;
    ParallelFor(ctx.pool, rows, 1, rows * n * k, [=](size_t s, size_t c) {
      for (size_t row = s; row < s + c; ++row) {
        const float* ar = a + row * k;
        const float* bm = b + (rhs_batched ? static_cast<int64_t>(row) / m * k * n : 0);
        float* yr = y + row * n;
        if (transposed) {
          for (int64_t j = 0; j < n; ++j) {
            const float* br = bm + j * k;
            float sum = 0.0f;
            for (int64_t l = 0; l < k; ++l) sum += ar[l] * br[l];
            yr[j] = sum;
          }
        } else {
          for (int64_t j = 0; j < n; ++j) yr[j] = 0.0f;
          for (int64_t l = 0; l < k; ++l) {
            const float al = ar[l];
            const float* br = bm + l * n;
            for (int64_t j = 0; j < n; ++j) yr[j] += al * br[j];
          }
        }
      }
    });
    return absl::OkStatus();
  }
  std::string name() const override { return "matmul_f32_portable"; }

 private:
  int a_, b_, out_;
  int64_t batch_, m_, k_, n_;
  bool rhs_batched_, transposed_;
};

absl::StatusOr<std::shared_ptr<SharedXnnFullyConnected>> CreateXnnFullyConnected(
    const float* weights, int64_t k, int64_t n, bool transposed) {
  auto shared = std::make_shared<SharedXnnFullyConnected>();
  xnn_operator_t op = nullptr;
  const xnn_status s =
      xnn_create_fully_connected_nc_f32(k, n, k, n, weights, /*bias=*/nullptr, -INFINITY, INFINITY,
                                        transposed ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS, &op);
  if (s != xnn_status_success) {
    return absl::InternalError(absl::StrFormat(
        "matmul: xnn_create_fully_connected_nc_f32(k=%d, n=%d) failed with status %d", k, n,
        static_cast<int>(s)));
  }
  shared->op = op;
  return shared;
}

// A constant rank-2 rhs through XNNPACK's fully-connected operator (weights packed at Load, once
// per session: graphs over the same weights share the operator).
class XnnFullyConnectedKernel : public OpKernel {
 public:
  XnnFullyConnectedKernel(int a, int out, int64_t rows, std::shared_ptr<SharedXnnFullyConnected> op)
      : a_(a), out_(out), rows_(rows), op_(std::move(op)) {}
  absl::Status Run(const ExecContext& ctx) override {
    std::lock_guard<std::mutex> lock(op_->mu);
    xnn_operator_t op = static_cast<xnn_operator_t>(op_->op);
    xnn_status s =
        xnn_setup_fully_connected_nc_f32(op, rows_, Data(ctx, a_), Data(ctx, out_), ctx.pool);
    if (s == xnn_status_success) s = xnn_run_operator(op, ctx.pool);
    if (s != xnn_status_success) {
      return absl::InternalError(
          absl::StrFormat("matmul: XNNPACK fully-connected failed with status %d", s));
    }
    return absl::OkStatus();
  }
  std::string name() const override { return "matmul_f32_xnnpack"; }
  // XNNPACK packs the weights into the operator at creation.
  bool CopiesConstantInput(int position) const override { return position == 1; }

 private:
  int a_, out_;
  int64_t rows_;
  std::shared_ptr<SharedXnnFullyConnected> op_;
};

class QMatmulOpKernel : public OpKernel {
 public:
  QMatmulOpKernel(int a, int out, int64_t m, std::shared_ptr<const kernels::QMatmulKernel> kernel)
      : a_(a), out_(out), m_(m), kernel_(std::move(kernel)) {}
  absl::Status Run(const ExecContext& ctx) override {
    kernel_->Run(m_, Data(ctx, a_), kernel_->k(), Data(ctx, out_), kernel_->n(), ctx.scratch,
                 ctx.pool);
    return absl::OkStatus();
  }
  std::string name() const override { return std::string(kernel_->kernel_name(m_)); }
  size_t ScratchBytes() const override { return kernel_->ScratchBytes(m_); }
  bool CopiesConstantInput(int position) const override {
    return position == 1 && kernel_->holds_weight_copy();
  }

 private:
  int a_, out_;
  int64_t m_;
  std::shared_ptr<const kernels::QMatmulKernel> kernel_;
};

// ---------------------------------------------------------------------------------------------
// Custom ops.

class CustomKernelAdapter : public OpKernel {
 public:
  CustomKernelAdapter(const CustomOpDef* def, std::vector<int> in_ids, std::vector<int> out_ids,
                      std::vector<ValueType> in_types, std::vector<ValueType> out_types)
      : def_(def),
        in_ids_(std::move(in_ids)),
        out_ids_(std::move(out_ids)),
        in_types_(std::move(in_types)),
        out_types_(std::move(out_types)),
        in_refs_(in_ids_.size()),
        out_refs_(out_ids_.size()) {
    for (size_t i = 0; i < in_refs_.size(); ++i) in_refs_[i].type = &in_types_[i];
    for (size_t i = 0; i < out_refs_.size(); ++i) out_refs_[i].type = &out_types_[i];
  }
  absl::Status Run(const ExecContext& ctx) override {
    for (size_t i = 0; i < in_refs_.size(); ++i) in_refs_[i].data = ctx.slots[in_ids_[i]];
    for (size_t i = 0; i < out_refs_.size(); ++i) out_refs_[i].data = ctx.slots[out_ids_[i]];
    absl::Status s = def_->kernel(in_refs_, out_refs_, ctx.pool);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("custom op ", def_->name, ": ", s.message()));
    }
    return s;
  }
  std::string name() const override { return absl::StrCat("custom:", def_->name); }

 private:
  const CustomOpDef* def_;
  std::vector<int> in_ids_, out_ids_;
  std::vector<ValueType> in_types_, out_types_;
  std::vector<TensorRef> in_refs_, out_refs_;
};

absl::StatusOr<std::unique_ptr<OpKernel>> CreateCustom(const Graph& graph, const Node& node) {
  EDGEQ_ASSIGN_OR_RETURN(const CustomOpDef* def, CustomOpRegistry::Global().Find(node.op));
  std::vector<ValueType> in_types, out_types;
  for (int id : node.inputs) in_types.push_back(graph.value_type(id));
  for (int id : node.outputs) out_types.push_back(graph.value_type(id));
  absl::StatusOr<std::vector<TensorType>> expected = def->shape_function(in_types);
  if (!expected.ok()) {
    return absl::Status(
        expected.status().code(),
        absl::StrCat("custom op ", node.op,
                     ": shape function rejected the inputs: ", expected.status().message()));
  }
  bool same = expected->size() == out_types.size();
  for (size_t i = 0; same && i < out_types.size(); ++i) same = (*expected)[i] == out_types[i].type;
  if (!same) {
    std::string want, got;
    for (const TensorType& t : *expected)
      absl::StrAppend(&want, want.empty() ? "" : ", ", t.ToString());
    for (const ValueType& t : out_types)
      absl::StrAppend(&got, got.empty() ? "" : ", ", t.ToString());
    return absl::InvalidArgumentError(absl::StrFormat(
        "custom op %s: the graph declares outputs (%s) but its shape function gives (%s)", node.op,
        got, want));
  }
  return std::unique_ptr<OpKernel>(new CustomKernelAdapter(
      def, node.inputs, node.outputs, std::move(in_types), std::move(out_types)));
}

const Tensor* ConstantOf(const Graph& graph, int value_id) {
  const Node& producer = graph.nodes()[graph.producer(value_id)];
  return producer.op == "constant" ? &producer.attrs.constant : nullptr;
}

}  // namespace

absl::Status InitializeXnnpack() {
  static absl::once_flag once;
  static xnn_status status = xnn_status_uninitialized;
  absl::call_once(once, [] { status = xnn_initialize(/*allocator=*/nullptr); });
  if (status != xnn_status_success) {
    return absl::UnavailableError(
        absl::StrFormat("xnn_initialize failed with status %d (CPU not recognized by cpuinfo?)",
                        static_cast<int>(status)));
  }
  return absl::OkStatus();
}

std::unique_ptr<OpKernel> CreateCopyKernel(int from, int to, size_t bytes) {
  return std::make_unique<CopyKernel>("copy", from, to, bytes);
}

// ops::Attention: the work is split into `slots_` tasks over the (kv head, query row) groups, each
// task with its own slice of the scratch buffer for its scores.
class AttentionOpKernel : public OpKernel {
 public:
  AttentionOpKernel(std::vector<int> in, int out, kernels::AttentionArgs shape, bool q8_0,
                    int64_t slots, const kernels::AttentionKernel* kernel)
      : in_(std::move(in)), out_(out), shape_(shape), q8_0_(q8_0), slots_(slots), kernel_(kernel) {}

  absl::Status Run(const ExecContext& ctx) override {
    kernels::AttentionArgs a = shape_;
    const int32_t* positions = Data<int32_t>(ctx, in_[5]);
    a.pos = a.t > 0 ? positions[0] : 0;
    if (a.pos < 0 || a.pos > a.ctx) {
      return absl::OutOfRangeError(
          absl::StrFormat("attention: position %d is outside the cache's [0, %d]", a.pos, a.ctx));
    }
    for (int64_t i = 1; i < a.t; ++i) {
      if (positions[i] != a.pos + i) {
        return absl::OutOfRangeError(absl::StrFormat(
            "attention: positions must be consecutive; positions[%d] is %d, expected %d", i,
            positions[i], a.pos + i));
      }
    }
    a.q = Data(ctx, in_[0]);
    if (q8_0_) {
      a.k_cache_q8_0 = Data<uint8_t>(ctx, in_[1]);
      a.v_cache_q8_0 = Data<uint8_t>(ctx, in_[2]);
    } else {
      a.k_cache = Data(ctx, in_[1]);
      a.v_cache = Data(ctx, in_[2]);
    }
    a.k_new = Data(ctx, in_[3]);
    a.v_new = Data(ctx, in_[4]);
    a.out = Data(ctx, out_);
    // Groups: (kv head, tile of up to kAttentionTileRows consecutive query rows).
    const int64_t tiles = (a.t + kernels::kAttentionTileRows - 1) / kernels::kAttentionTileRows;
    const int64_t groups = a.kv_heads * tiles;
    if (groups == 0) return absl::OkStatus();
    const int64_t slots = std::min(slots_, groups);
    const int64_t per_slot = (groups + slots - 1) / slots;
    const size_t slot_floats = SlotFloats();
    float* scratch = static_cast<float*>(ctx.scratch);
    const kernels::AttentionGroupFn group = kernel_->group;
    const int64_t work = MatmulWork(2 * a.heads * a.t * (a.pos + a.t) * a.head_dim) * 4;
    ParallelFor(ctx.pool, static_cast<size_t>(slots), 1, work, [&](size_t s, size_t c) {
      for (size_t slot = s; slot < s + c; ++slot) {
        float* scores = scratch + slot * slot_floats;
        const int64_t end = std::min(groups, static_cast<int64_t>(slot + 1) * per_slot);
        for (int64_t gi = static_cast<int64_t>(slot) * per_slot; gi < end; ++gi) {
          const int64_t row0 = (gi % tiles) * kernels::kAttentionTileRows;
          group(a, gi / tiles, row0, std::min(kernels::kAttentionTileRows, a.t - row0), scores);
        }
      }
    });
    return absl::OkStatus();
  }
  std::string name() const override {
    return q8_0_ ? absl::StrCat(kernel_->name, "_q8_0_cache") : std::string(kernel_->name);
  }
  size_t ScratchBytes() const override {
    return static_cast<size_t>(slots_) * SlotFloats() * sizeof(float);
  }

 private:
  // Scores of one group at the largest position: heads / kv_heads x (ctx + t), plus one decoded
  // row with a q8_0 cache, rounded to 64 bytes.
  size_t SlotFloats() const {
    const int64_t rep = shape_.heads / shape_.kv_heads;
    const int64_t row = q8_0_ ? shape_.head_dim : 0;
    return static_cast<size_t>(
        (kernels::kAttentionTileRows * rep * (shape_.ctx + shape_.t) + row + 15) / 16 * 16);
  }

  std::vector<int> in_;
  int out_;
  kernels::AttentionArgs shape_;
  bool q8_0_;
  int64_t slots_;
  const kernels::AttentionKernel* kernel_;
};

absl::StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(const Graph& graph, const Node& node,
                                                         const KernelEnv& env) {
  if (node.custom) return CreateCustom(graph, node);
  const std::string& op = node.op;
  const int out = node.outputs[0];
  const ValueType& out_type = graph.value_type(out);
  auto in_type = [&](int i) -> const ValueType& { return graph.value_type(node.inputs[i]); };
  auto in_shape = [&](int i) -> const Shape& { return in_type(i).type.shape; };
  const int in0 = node.inputs.empty() ? -1 : node.inputs[0];
  const int in1 = node.inputs.size() < 2 ? -1 : node.inputs[1];
  auto make = [](OpKernel* k) {
    return absl::StatusOr<std::unique_ptr<OpKernel>>(std::unique_ptr<OpKernel>(k));
  };

  if (op == "add")
    return make(
        new BinaryKernel<AddOp>(op, in0, in1, out, in_shape(0), in_shape(1), out_type.type.shape));
  if (op == "sub")
    return make(
        new BinaryKernel<SubOp>(op, in0, in1, out, in_shape(0), in_shape(1), out_type.type.shape));
  if (op == "mul")
    return make(
        new BinaryKernel<MulOp>(op, in0, in1, out, in_shape(0), in_shape(1), out_type.type.shape));
  if (op == "div")
    return make(
        new BinaryKernel<DivOp>(op, in0, in1, out, in_shape(0), in_shape(1), out_type.type.shape));
  if (op == "silu" || op == "gelu") {
    return make(new UnaryKernel(op, in0, out, out_type.type.shape.num_elements(),
                                &kernels::SelectActivationKernel(env.isa_cap)));
  }
  if (op == "swiglu") {
    return make(new SwiGluKernel(in0, in1, out, out_type.type.shape.num_elements(),
                                 &kernels::SelectActivationKernel(env.isa_cap)));
  }
  if (op == "softmax") {
    const int64_t d = in_shape(0).dim(-1);
    return make(new SoftmaxKernel(in0, out, d == 0 ? 0 : in_shape(0).num_elements() / d, d));
  }
  if (op == "rms_norm") {
    const int64_t d = in_shape(0).dim(-1);
    return make(new RmsNormKernel(in0, in1, out, d == 0 ? 0 : in_shape(0).num_elements() / d, d,
                                  node.attrs.f));
  }
  if (op == "rope") {
    const Shape& x = in_shape(0);
    const int64_t s = x.dim(0);
    return make(new RopeKernel(in0, in1, out, in_type(1).type.dtype == DType::kInt64, s,
                               s == 0 ? 0 : x.num_elements() / s, x.dim(-1), node.attrs.f));
  }
  if (op == "gather") {
    const ValueType& table = in_type(0);
    const QuantizationEncoding* encoding = nullptr;
    if (table.is_quantized()) {
      EDGEQ_ASSIGN_OR_RETURN(encoding, FindEncoding(table.encoding));
      // Rows are decoded straight from the table's bytes: they must match its encoding and
      // logical shape (Graph::Constant checked it; checked again here, before Execute).
      const Tensor* constant = ConstantOf(graph, in0);
      if (constant == nullptr) {
        return absl::InvalidArgumentError("gather: a quantized table must be a constant");
      }
      EDGEQ_RETURN_IF_ERROR(CheckQuantizedTensor("gather table", *constant));
    }
    const int64_t v = table.logical_shape.dim(0);
    const int64_t d = table.logical_shape.dim(1);
    const int64_t row_bytes =
        table.type.shape.dim(1) * static_cast<int64_t>(DTypeSize(table.type.dtype));
    return make(new GatherKernel(in0, in1, out, in_type(1).type.dtype == DType::kInt64,
                                 in_shape(1).num_elements(), v, d, row_bytes, encoding));
  }
  if (op == "attention") {
    kernels::AttentionArgs a;
    a.t = in_shape(0).dim(0);
    a.heads = in_shape(0).dim(1);
    a.head_dim = in_shape(0).dim(2);
    a.kv_heads = in_shape(1).dim(0);
    a.ctx = in_shape(1).dim(1);
    a.scale = node.attrs.f;
    a.window = node.attrs.ints.empty() ? 0 : node.attrs.ints[0];
    const int64_t threads =
        env.pool == nullptr ? 1 : static_cast<int64_t>(pthreadpool_get_threads_count(env.pool));
    // A few tasks per thread balance the causal rows' unequal lengths.
    const int64_t slots = std::max<int64_t>(1, std::min(a.kv_heads * a.t, 4 * threads));
    return make(new AttentionOpKernel(node.inputs, out, a, node.attrs.encoding == "q8_0", slots,
                                      &kernels::SelectAttentionKernel(env.isa_cap)));
  }
  if (op == "reshape") return make(new CopyKernel("reshape", in0, out, ByteSize(out_type)));
  if (op == "transpose") {
    return make(new TransposeKernel(in0, out, in_shape(0), node.attrs.ints,
                                    DTypeSize(out_type.type.dtype)));
  }
  if (op == "slice") {
    return make(new SliceKernel(in0, out, in_shape(0), node.attrs.ints, node.attrs.ints2,
                                DTypeSize(out_type.type.dtype)));
  }
  if (op == "concat") {
    const Shape& o = out_type.type.shape;
    const int axis = static_cast<int>(node.attrs.axis);
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i) outer *= o.dim(i);
    for (int i = axis + 1; i < o.rank(); ++i) inner *= o.dim(i);
    std::vector<int64_t> chunks;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      chunks.push_back(in_shape(static_cast<int>(i)).dim(axis) * inner *
                       static_cast<int64_t>(DTypeSize(out_type.type.dtype)));
    }
    return make(new ConcatKernel(node.inputs, std::move(chunks), out, outer));
  }
  if (op == "matmul") {
    const Shape& a = in_shape(0);
    const Shape& b = in_shape(1);
    const bool transposed = node.attrs.flag;
    const int64_t k = a.dim(-1);
    const int64_t n = out_type.type.shape.dim(-1);
    const int64_t m = a.dim(-2);
    const int64_t batch = m == 0 ? 0 : a.num_elements() / k / m;
    const Tensor* weights = ConstantOf(graph, in1);
    if (env.use_xnnpack && weights != nullptr && b.rank() == 2 && k > 0 && n > 0) {
      const float* w = static_cast<const float*>(weights->raw_data());
      absl::StatusOr<std::shared_ptr<SharedXnnFullyConnected>> op =
          env.weight_cache != nullptr ? env.weight_cache->GetOrCreateXnn(w, k, n, transposed)
                                      : CreateXnnFullyConnected(w, k, n, transposed);
      if (!op.ok()) return op.status();
      return make(new XnnFullyConnectedKernel(in0, out, batch * m, *std::move(op)));
    }
    return make(new MatmulKernel(in0, in1, out, batch, m, k, n, b.rank() > 2, transposed));
  }
  if (op == "qmatmul") {
    const ValueType& w = in_type(1);
    const Tensor* weights = ConstantOf(graph, in1);
    if (weights == nullptr) {
      return absl::InvalidArgumentError("qmatmul: the weights must be a constant");
    }
    const int64_t k = w.logical_shape.dim(1);
    const int64_t n = w.logical_shape.dim(0);
    const int64_t m = k == 0 ? 0 : in_shape(0).num_elements() / k;
    // The constant passed CheckQuantizedTensor at Graph::Constant; the kernel checks the size
    // again against its own (n, k).
    const absl::Span<const uint8_t> data = weights->bytes();
    absl::StatusOr<std::shared_ptr<const kernels::QMatmulKernel>> kernel;
    kernels::QMatmulKernel::WeightsReadFn on_read = nullptr;
    if (env.on_constant_bytes_read) {
      on_read = [&env](const uint8_t* p, size_t bytes) { env.on_constant_bytes_read(p, bytes); };
    }
    if (env.weight_cache != nullptr) {
      kernel = env.weight_cache->GetOrCreate(w.encoding, n, k, data, env.isa_cap, on_read);
    } else {
      kernel = kernels::QMatmulKernel::Create(w.encoding, n, k, data, env.isa_cap, on_read);
    }
    if (!kernel.ok()) {
      return absl::Status(kernel.status().code(),
                          absl::StrFormat("qmatmul(%s, %s): %s", in_type(0).ToString(),
                                          w.ToString(), kernel.status().message()));
    }
    return make(new QMatmulOpKernel(in0, out, m, *std::move(kernel)));
  }
  return absl::UnimplementedError(absl::StrCat("no kernel for op \"", op, "\""));
}

absl::StatusOr<std::shared_ptr<const kernels::QMatmulKernel>> PreparedWeightCache::GetOrCreate(
    const std::string& encoding, int64_t n, int64_t k, absl::Span<const uint8_t> weights,
    kernels::Isa cap, const kernels::QMatmulKernel::WeightsReadFn& on_read) {
  std::lock_guard<std::mutex> lock(mu_);
  const Key key(encoding, n, k, weights.data(), weights.size(), cap);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    if (std::shared_ptr<const kernels::QMatmulKernel> live = it->second.lock()) {
      ++reuses_;
      return live;
    }
  }
  absl::StatusOr<std::unique_ptr<kernels::QMatmulKernel>> created =
      kernels::QMatmulKernel::Create(encoding, n, k, weights, cap, on_read);
  if (!created.ok()) return created.status();
  std::shared_ptr<const kernels::QMatmulKernel> kernel = *std::move(created);
  // Drop expired entries so that the map does not grow with every Model ever loaded.
  for (auto e = entries_.begin(); e != entries_.end();) {
    e = e->second.expired() ? entries_.erase(e) : std::next(e);
  }
  entries_[key] = kernel;
  return kernel;
}

SharedXnnFullyConnected::~SharedXnnFullyConnected() {
  if (op != nullptr) xnn_delete_operator(static_cast<xnn_operator_t>(op));
}

absl::StatusOr<std::shared_ptr<SharedXnnFullyConnected>> PreparedWeightCache::GetOrCreateXnn(
    const float* weights, int64_t k, int64_t n, bool transposed) {
  std::lock_guard<std::mutex> lock(mu_);
  const XnnKey key(weights, k, n, transposed);
  auto it = xnn_entries_.find(key);
  if (it != xnn_entries_.end()) {
    if (std::shared_ptr<SharedXnnFullyConnected> live = it->second.lock()) {
      ++reuses_;
      return live;
    }
  }
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<SharedXnnFullyConnected> op,
                         CreateXnnFullyConnected(weights, k, n, transposed));
  for (auto e = xnn_entries_.begin(); e != xnn_entries_.end();) {
    e = e->second.expired() ? xnn_entries_.erase(e) : std::next(e);
  }
  xnn_entries_[key] = op;
  return op;
}

int64_t PreparedWeightCache::reuses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reuses_;
}

}  // namespace internal
}  // namespace edgeq
