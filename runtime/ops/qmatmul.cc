// Op "qmatmul": lhs f32 [..., k] · W^T with W a quantized constant of logical shape [n, k] ->
// f32 [..., n]. Attribute encoding (string: any registered encoding with a qmatmul kernel, the 14
// built-ins of runtime/kernels/qmatmul.h). The kernel (per ISA, chosen by
// kernels::QMatmulKernel::Create) repacks the weights at Load, shared by the graphs of a session,
// on the session's thread pool.
#include "runtime/kernels/qmatmul.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/stored_layouts.h"
#include "quantization/encoding.h"
#include "runtime/ops/op_util.h"
#include "sdk/selection.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kQMatmulOpName[] = "qmatmul";

struct QMatmulAttributes : OpAttributes {
  const QuantizationEncoding* encoding = nullptr;
  std::vector<std::string> Describe() const override {
    return {absl::StrCat("encoding=", encoding->name())};
  }
};

class QMatmulKernel : public OpKernel {
 public:
  QMatmulKernel(int a, int out, int64_t m, std::shared_ptr<const kernels::QMatmulKernel> kernel)
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

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"encoding"};
  if (absl::Status s = CheckAttributeKeys(kQMatmulOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<std::string> name = GetStringAttribute(kQMatmulOpName, map, "encoding", "");
  if (!name.ok()) return name.status();
  if (name->empty()) return Invalid("qmatmul: missing attribute encoding (an encoding name)");
  absl::StatusOr<const QuantizationEncoding*> encoding = FindEncoding(*name);
  if (!encoding.ok()) {
    return Invalid(absl::StrCat("qmatmul: attribute encoding: ", encoding.status().message()));
  }
  auto attrs = std::make_shared<QMatmulAttributes>();
  attrs->encoding = *encoding;
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  const std::string enc(static_cast<const QMatmulAttributes&>(attributes).encoding->name());
  const ValueType& lhs = in.types[0];
  const ValueType& rhs = in.types[1];
  if (!IsPlainF32(lhs)) return Invalid("lhs must be plain f32");
  if (lhs.type.shape.rank() < 1) return Invalid("lhs needs rank >= 1");
  if (!rhs.is_quantized() || rhs.type.dtype != DType::kUInt8) {
    return Invalid(absl::StrFormat("rhs must be a uint8 tensor quantized with %s", enc));
  }
  if (rhs.encoding != enc) {
    return Invalid(absl::StrFormat("rhs is encoded with %s, but the op was given encoding %s",
                                   rhs.encoding, enc));
  }
  const Shape& w = rhs.logical_shape;
  if (w.rank() != 2) return Invalid("rhs must have logical shape [n, k]");
  if (w.dim(1) != lhs.type.shape.dim(-1)) {
    return Invalid(absl::StrFormat("lhs k=%d but rhs (logical %s, transposed) has k=%d",
                                   lhs.type.shape.dim(-1), w.ToString(), w.dim(1)));
  }
  if (!in.is_constant[1]) return Invalid("rhs must be a constant (Graph::Quantize or Constant)");
  return One(Plain(DType::kFloat32, lhs.type.shape.WithLastDim(w.dim(0))));
}

// A kernel on a layout stored by `edgeq convert --repack` (checkpoint/stored_layouts.h): the
// mapped bytes in place, or the one-line refusal (no fallback: the bytes are not GGML blocks).
absl::StatusOr<std::shared_ptr<const kernels::QMatmulKernel>> CreateOnStoredLayout(
    const checkpoint::StoredLayoutTag& tag, const std::string& encoding, int64_t n, int64_t k,
    kernels::Isa cap) {
  if (tag.encoding != encoding || tag.n != n || tag.k != k) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: stored layout %s of %s [%d, %d] used as %s [%d, %d]", tag.tensor,
                        tag.layout, tag.encoding, tag.n, tag.k, encoding, n, k));
  }
  absl::StatusOr<kernels::Isa> isa = kernels::IsaFromName(tag.isa);
  if (!isa.ok() || *isa == kernels::Isa::kBest) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: layout %s names ISA \"%s\", which this edgeq does not know; reconvert with "
        "--repack=native or use the GGUF",
        tag.tensor, tag.layout, tag.isa));
  }
  kernels::QMatmulKernel::StoredLayout layout;
  layout.name = tag.layout;
  layout.isa = *isa;
  layout.version = tag.version;
  layout.bytes = tag.bytes.size();
  absl::StatusOr<std::unique_ptr<kernels::QMatmulKernel>> k_or =
      kernels::QMatmulKernel::CreatePrepacked(tag.tensor, encoding, n, k, layout, tag.bytes, cap);
  if (!k_or.ok()) return k_or.status();
  return std::shared_ptr<const kernels::QMatmulKernel>(*std::move(k_or));
}

KernelOr Create(const KernelArgs& a) {
  const ValueType& w = a.in_type(1);
  const Tensor* weights = a.constant(1);
  if (weights == nullptr) {
    return absl::InvalidArgumentError("qmatmul: the weights must be a constant");
  }
  const int64_t k = w.logical_shape.dim(1);
  const int64_t n = w.logical_shape.dim(0);
  const int64_t m = k == 0 ? 0 : a.in_shape(0).num_elements() / k;
  // The constant passed CheckQuantizedTensor at Graph::Constant; the kernel checks the size
  // again against its own (n, k).
  const absl::Span<const uint8_t> data = weights->bytes();
  const internal::KernelEnv& env = a.env;
  kernels::QMatmulKernel::WeightsReadFn on_read = nullptr;
  if (env.on_constant_bytes_read) {
    on_read = [&env](const uint8_t* p, size_t bytes) { env.on_constant_bytes_read(p, bytes); };
  }
  absl::StatusOr<std::shared_ptr<const kernels::QMatmulKernel>> kernel;
  // Stored layouts come only from .max files: a build without that format (sdk/selection.bzl)
  // carries none of their code.
  std::optional<checkpoint::StoredLayoutTag> tag;
  if (selection::Selected(selection::kFormats, "max")) {
    tag = checkpoint::FindStoredLayout(data.data());
  }
  if (tag.has_value()) {
    kernel = CreateOnStoredLayout(*tag, w.encoding, n, k, env.isa_cap);
    if (!kernel.ok()) return kernel.status();  // already one line naming tensor, layout and ISA
  } else if (env.weight_cache != nullptr) {
    kernel = env.weight_cache->GetOrCreate(w.encoding, n, k, data, env.isa_cap, on_read, env.pool);
  } else {
    kernel = kernels::QMatmulKernel::Create(w.encoding, n, k, data, env.isa_cap, on_read, env.pool);
  }
  if (!kernel.ok()) {
    return absl::Status(kernel.status().code(),
                        absl::StrFormat("qmatmul(%s, %s): %s", a.in_type(0).ToString(),
                                        w.ToString(), kernel.status().message()));
  }
  return Make(new QMatmulKernel(a.in(0), a.out(), m, *std::move(kernel)));
}

constexpr const char* kAttributeNames[] = {"encoding"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kQMatmulOpName;
  def.min_inputs = def.max_inputs = 2;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = Create;
  return def;
}

EDGEQ_REGISTER_OP(qmatmul, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
