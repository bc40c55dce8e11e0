#include "examples/tinystories/llama.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "examples/tinystories/internal/quant.h"
#include "pthreadpool.h"

namespace edgeq {
namespace tinystories {

// ---------------------------------------------------------------- config and names

absl::Status LlamaConfig::Validate() const {
  auto bad = [](const char* field, int value, const std::string& want) {
    return absl::InvalidArgumentError(
        absl::StrFormat("llama config: %s = %d, expected %s", field, value, want));
  };
  if (dim <= 0 || dim > (1 << 16)) return bad("dim", dim, "in [1, 65536]");
  if (hidden_dim <= 0 || hidden_dim > (1 << 18))
    return bad("hidden_dim", hidden_dim, "in [1, 262144]");
  if (n_layers <= 0 || n_layers > 1024) return bad("n_layers", n_layers, "in [1, 1024]");
  if (n_heads <= 0 || dim % n_heads != 0) return bad("n_heads", n_heads, "a divisor of dim");
  if (head_size() % 2 != 0) return bad("head_size", head_size(), "even (RoPE rotates pairs)");
  if (n_kv_heads <= 0 || n_heads % n_kv_heads != 0) {
    return bad("n_kv_heads", n_kv_heads, absl::StrCat("a divisor of n_heads ", n_heads));
  }
  if (vocab_size < 3 || vocab_size > (1 << 24))
    return bad("vocab_size", vocab_size, "in [3, 2^24]");
  if (seq_len <= 0 || seq_len > (1 << 20)) return bad("seq_len", seq_len, "in [1, 2^20]");
  return absl::OkStatus();
}

std::string LlamaConfig::ToString() const {
  return absl::StrFormat(
      "dim %d, hidden %d, %d layers, %d heads, %d kv heads, vocab %d, seq %d, %s classifier", dim,
      hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len,
      shared_classifier ? "shared" : "separate");
}

std::string TokenEmbeddingName() { return "tok_embeddings.weight"; }
std::string AttentionNormName(int l) {
  return absl::StrCat("layers.", l, ".attention_norm.weight");
}
std::string WqName(int l) { return absl::StrCat("layers.", l, ".attention.wq.weight"); }
std::string WkName(int l) { return absl::StrCat("layers.", l, ".attention.wk.weight"); }
std::string WvName(int l) { return absl::StrCat("layers.", l, ".attention.wv.weight"); }
std::string WoName(int l) { return absl::StrCat("layers.", l, ".attention.wo.weight"); }
std::string FfnNormName(int l) { return absl::StrCat("layers.", l, ".ffn_norm.weight"); }
std::string W1Name(int l) { return absl::StrCat("layers.", l, ".feed_forward.w1.weight"); }
std::string W2Name(int l) { return absl::StrCat("layers.", l, ".feed_forward.w2.weight"); }
std::string W3Name(int l) { return absl::StrCat("layers.", l, ".feed_forward.w3.weight"); }
std::string FinalNormName() { return "norm.weight"; }
std::string ClassifierName() { return "output.weight"; }

std::vector<std::pair<std::string, Shape>> LlamaWeightShapes(const LlamaConfig& c) {
  const int64_t d = c.dim, h = c.hidden_dim, kv = c.kv_dim(), v = c.vocab_size;
  std::vector<std::pair<std::string, Shape>> out;
  out.push_back({TokenEmbeddingName(), Shape({v, d})});
  // llama2.c file order: all layers of one kind, then the next kind.
  for (int l = 0; l < c.n_layers; ++l) out.push_back({AttentionNormName(l), Shape({d})});
  for (int l = 0; l < c.n_layers; ++l) out.push_back({WqName(l), Shape({d, d})});
  for (int l = 0; l < c.n_layers; ++l) out.push_back({WkName(l), Shape({kv, d})});
  for (int l = 0; l < c.n_layers; ++l) out.push_back({WvName(l), Shape({kv, d})});
  for (int l = 0; l < c.n_layers; ++l) out.push_back({WoName(l), Shape({d, d})});
  for (int l = 0; l < c.n_layers; ++l) out.push_back({FfnNormName(l), Shape({d})});
  for (int l = 0; l < c.n_layers; ++l) out.push_back({W1Name(l), Shape({h, d})});
  for (int l = 0; l < c.n_layers; ++l) out.push_back({W2Name(l), Shape({d, h})});
  for (int l = 0; l < c.n_layers; ++l) out.push_back({W3Name(l), Shape({h, d})});
  out.push_back({FinalNormName(), Shape({d})});
  if (!c.shared_classifier) out.push_back({ClassifierName(), Shape({v, d})});
  return out;
}

absl::Status LlamaWeights::Validate() const {
  EDGEQ_RETURN_IF_ERROR(config.Validate());
  for (const auto& [name, shape] : LlamaWeightShapes(config)) {
    auto it = tensors.find(name);
    if (it == tensors.end()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("weight '%s' is missing (expected shape %s for %s)", name,
                          shape.ToString(), config.ToString()));
    }
    if (it->second.logical_shape() != shape) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "weight '%s' has shape %s, but the model header (%s) implies %s", name,
          it->second.logical_shape().ToString(), config.ToString(), shape.ToString()));
    }
    if (shape.rank() == 1 && (it->second.is_quantized() || it->second.dtype() != DType::kFloat32)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("norm weight '%s' must be f32, got %s", name, it->second.DebugString()));
    }
  }
  return absl::OkStatus();
}

int64_t LlamaWeights::SizeBytes() const {
  int64_t total = 0;
  for (const auto& [name, t] : tensors) total += static_cast<int64_t>(t.size_bytes());
  return total;
}

// ---------------------------------------------------------------- llama2.c .bin

namespace {

struct Mapping {
  void* data = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (data != nullptr) munmap(data, size);
  }
};

absl::StatusOr<std::shared_ptr<Mapping>> MapFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrFormat("model file '%s' cannot be opened: %s", path, std::strerror(errno)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return absl::InternalError(absl::StrFormat("cannot stat '%s'", path));
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<size_t>(st.st_size);
  if (mapping->size > 0) {
    void* data = mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      close(fd);
      return absl::InternalError(absl::StrFormat("cannot mmap '%s'", path));
    }
    mapping->data = data;
  }
  close(fd);
  return mapping;
}

}  // namespace

absl::StatusOr<LlamaWeights> LoadLlama2cBin(const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<Mapping> map, MapFile(path));
  if (map->size < 28) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "'%s' is %d bytes, too small for a llama2.c checkpoint (28-byte header)", path, map->size));
  }
  int32_t h[7];
  std::memcpy(h, map->data, sizeof(h));
  LlamaWeights w;
  LlamaConfig& c = w.config;
  c.dim = h[0];
  c.hidden_dim = h[1];
  c.n_layers = h[2];
  c.n_heads = h[3];
  c.n_kv_heads = h[4];
  c.shared_classifier = h[5] > 0;
  c.vocab_size = h[5] > 0 ? h[5] : -h[5];
  c.seq_len = h[6];
  absl::Status valid = c.Validate();
  if (!valid.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "'%s' does not start with a valid llama2.c header: %s", path, valid.message()));
  }
  const auto shapes = LlamaWeightShapes(c);
  // Expected size: header, weights, and the two legacy RoPE tables (seq_len * head_size / 2
  // floats each) between the final norm and the classifier.
  int64_t floats = 0;
  for (const auto& [name, shape] : shapes) floats += shape.num_elements();
  floats += static_cast<int64_t>(c.seq_len) * c.head_size();
  const int64_t expected = 28 + 4 * floats;
  if (static_cast<int64_t>(map->size) != expected) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "'%s' is %d bytes, but its header (%s) implies %d bytes: the shapes do not match the "
        "header",
        path, map->size, c.ToString(), expected));
  }
  const char* p = static_cast<const char*>(map->data) + 28;
  for (const auto& [name, shape] : shapes) {
    if (name == ClassifierName()) p += 4 * static_cast<int64_t>(c.seq_len) * c.head_size();
    const size_t bytes = 4 * shape.num_elements();
    EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::View(DType::kFloat32, shape, p, bytes, map));
    w.tensors[name] = std::move(t);
    p += bytes;
  }
  return w;
}

absl::Status SaveLlama2cBin(const LlamaWeights& w, const std::string& path) {
  EDGEQ_RETURN_IF_ERROR(w.Validate());
  const LlamaConfig& c = w.config;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return absl::PermissionDeniedError(absl::StrFormat("cannot write '%s'", path));
  }
  const int32_t header[7] = {c.dim,        c.hidden_dim,
                             c.n_layers,   c.n_heads,
                             c.n_kv_heads, c.shared_classifier ? c.vocab_size : -c.vocab_size,
                             c.seq_len};
  bool ok = std::fwrite(header, sizeof(header), 1, f) == 1;
  for (const auto& [name, shape] : LlamaWeightShapes(c)) {
    if (name == ClassifierName()) {
      std::vector<float> zeros(static_cast<size_t>(c.seq_len) * c.head_size(), 0.0f);
      ok = ok && std::fwrite(zeros.data(), 4, zeros.size(), f) == zeros.size();
    }
    const Tensor& t = w.tensors.at(name);
    if (t.is_quantized() || t.dtype() != DType::kFloat32) {
      std::fclose(f);
      return absl::InvalidArgumentError(
          absl::StrFormat("llama2.c .bin holds f32 only; '%s' is %s", name, t.DebugString()));
    }
    ok = ok && std::fwrite(t.raw_data(), 1, t.size_bytes(), f) == t.size_bytes();
  }
  if (c.shared_classifier) {
    std::vector<float> zeros(static_cast<size_t>(c.seq_len) * c.head_size(), 0.0f);
    ok = ok && std::fwrite(zeros.data(), 4, zeros.size(), f) == zeros.size();
  }
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) return absl::DataLossError(absl::StrFormat("short write to '%s'", path));
  return absl::OkStatus();
}

// ---------------------------------------------------------------- the forward pass

namespace {

// y = W x, W row-major [n, k] f32. Each output is a float sum in index order, as run.c's matmul.
class Linear {
 public:
  virtual ~Linear() = default;
  virtual void Run(const float* x, float* y, pthreadpool_t pool) const = 0;
  virtual std::string kernel_name() const = 0;
};

class F32Linear : public Linear {
 public:
  F32Linear(const float* w, int64_t n, int64_t k) : w_(w), n_(n), k_(k) {}
  void Run(const float* x, float* y, pthreadpool_t pool) const override {
    struct Ctx {
      const float* w;
      const float* x;
      float* y;
      int64_t k;
      int64_t rows_per_task;
      int64_t n;
    } ctx{w_, x, y, k_, 16, n_};
    auto task = [](void* arg, size_t t) {
      const Ctx* c = static_cast<const Ctx*>(arg);
      const int64_t begin = static_cast<int64_t>(t) * c->rows_per_task;
      const int64_t end = std::min(c->n, begin + c->rows_per_task);
      for (int64_t i = begin; i < end; ++i) {
        const float* row = c->w + i * c->k;
        float val = 0.0f;
        for (int64_t j = 0; j < c->k; ++j) val += row[j] * c->x[j];
        c->y[i] = val;
      }
    };
    const size_t tasks = static_cast<size_t>((n_ + ctx.rows_per_task - 1) / ctx.rows_per_task);
    pthreadpool_parallelize_1d(pool, task, &ctx, tasks, 0);
  }
  std::string kernel_name() const override { return "f32"; }

 private:
  const float* w_;
  int64_t n_, k_;
};

// y = W x for a quantized W (q4_0, q8_0: against the Q8_0 form of x; bf16: against x).
class QuantLinear : public Linear {
 public:
  QuantLinear(const Tensor& w, std::string encoding)
      : w_(static_cast<const uint8_t*>(w.raw_data())),
        encoding_(std::move(encoding)),
        n_(w.logical_shape().dim(0)),
        k_(w.logical_shape().dim(1)),
        row_bytes_(w.shape().dim(1)),
        xq_(static_cast<size_t>(k_ / 32 + 1) * 34) {}
  void Run(const float* x, float* y, pthreadpool_t pool) const override {
    const bool blocks = encoding_ != "bf16";
    if (blocks) internal::QuantizeActivationQ8(x, k_, xq_.data());
    struct Ctx {
      const QuantLinear* self;
      const float* x;
      float* y;
    } ctx{this, x, y};
    auto task = [](void* arg, size_t t) {
      const Ctx* c = static_cast<const Ctx*>(arg);
      const QuantLinear& L = *c->self;
      const int64_t begin = static_cast<int64_t>(t) * 16, end = std::min(L.n_, begin + 16);
      for (int64_t i = begin; i < end; ++i) {
        const uint8_t* row = L.w_ + i * L.row_bytes_;
        if (L.encoding_ == "q4_0") {
          c->y[i] = internal::DotRowQ4_0(row, L.xq_.data(), L.k_);
        } else if (L.encoding_ == "q8_0") {
          c->y[i] = internal::DotRowQ8_0(row, L.xq_.data(), L.k_);
        } else {
          c->y[i] = internal::DotRowBf16(row, c->x, L.k_);
        }
      }
    };
    pthreadpool_parallelize_1d(pool, task, &ctx, static_cast<size_t>((n_ + 15) / 16), 0);
  }
  std::string kernel_name() const override { return encoding_ + "_scalar"; }

 private:
  const uint8_t* w_;
  std::string encoding_;
  int64_t n_, k_, row_bytes_;
  mutable std::vector<uint8_t> xq_;
};

void RmsNorm(float* o, const float* x, const float* weight, int size, float eps) {
  float ss = 0.0f;
  for (int j = 0; j < size; ++j) ss += x[j] * x[j];
  ss /= size;
  ss += eps;
  ss = 1.0f / std::sqrt(ss);
  for (int j = 0; j < size; ++j) o[j] = weight[j] * (ss * x[j]);
}

void SoftmaxInPlace(float* x, int size) {
  float max_val = x[0];
  for (int i = 1; i < size; ++i) max_val = std::max(max_val, x[i]);
  float sum = 0.0f;
  for (int i = 0; i < size; ++i) {
    x[i] = std::exp(x[i] - max_val);
    sum += x[i];
  }
  for (int i = 0; i < size; ++i) x[i] /= sum;
}

absl::StatusOr<std::unique_ptr<Linear>> MakeLinear(const Tensor& t, const std::string& name) {
  const Shape& shape = t.logical_shape();
  if (!t.is_quantized() && t.dtype() == DType::kFloat32) {
    return std::unique_ptr<Linear>(
        new F32Linear(static_cast<const float*>(t.raw_data()), shape.dim(0), shape.dim(1)));
  }
  if (t.is_quantized() && internal::IsKnownEncoding(t.encoding()) && t.dtype() == DType::kUInt8) {
    return std::unique_ptr<Linear>(new QuantLinear(t, t.encoding()));
  }
  return absl::UnimplementedError(absl::StrFormat(
      "weight '%s' is %s: no matmul kernel for it in this build", name, t.DebugString()));
}

}  // namespace

struct LlamaModel::Impl {
  struct Layer {
    const float* attention_norm;
    const float* ffn_norm;
    std::unique_ptr<Linear> wq, wk, wv, wo, w1, w2, w3;
  };
  LlamaWeights weights;  // keeps the tensors (and their mappings) alive
  std::vector<Layer> layers;
  const float* final_norm = nullptr;
  Tensor embedding;  // f32 [vocab, dim], or quantized rows
  std::unique_ptr<Linear> classifier;
  pthreadpool_t pool = nullptr;
  // State.
  std::vector<float> x, xb, xb2, hb, hb2, q, att, logits, key_cache, value_cache;
  int next_pos = 0;

  ~Impl() {
    if (pool != nullptr) pthreadpool_destroy(pool);
  }
};

LlamaModel::LlamaModel(const LlamaConfig& config, std::unique_ptr<Impl> impl)
    : config_(config), impl_(std::move(impl)) {}
LlamaModel::~LlamaModel() = default;

absl::StatusOr<std::unique_ptr<LlamaModel>> LlamaModel::Create(const LlamaWeights& weights,
                                                               const LlamaOptions& options) {
  EDGEQ_RETURN_IF_ERROR(weights.Validate());
  if (options.num_threads < 1 || options.num_threads > 256) {
    return absl::InvalidArgumentError(
        absl::StrFormat("num_threads must be in [1, 256], got %d", options.num_threads));
  }
  const LlamaConfig& c = weights.config;
  auto impl = std::make_unique<Impl>();
  impl->weights = weights;
  const auto& T = impl->weights.tensors;
  auto f32 = [&](const std::string& name) {
    return static_cast<const float*>(T.at(name).raw_data());
  };
  for (int l = 0; l < c.n_layers; ++l) {
    Impl::Layer layer;
    layer.attention_norm = f32(AttentionNormName(l));
    layer.ffn_norm = f32(FfnNormName(l));
    EDGEQ_ASSIGN_OR_RETURN(layer.wq, MakeLinear(T.at(WqName(l)), WqName(l)));
    EDGEQ_ASSIGN_OR_RETURN(layer.wk, MakeLinear(T.at(WkName(l)), WkName(l)));
    EDGEQ_ASSIGN_OR_RETURN(layer.wv, MakeLinear(T.at(WvName(l)), WvName(l)));
    EDGEQ_ASSIGN_OR_RETURN(layer.wo, MakeLinear(T.at(WoName(l)), WoName(l)));
    EDGEQ_ASSIGN_OR_RETURN(layer.w1, MakeLinear(T.at(W1Name(l)), W1Name(l)));
    EDGEQ_ASSIGN_OR_RETURN(layer.w2, MakeLinear(T.at(W2Name(l)), W2Name(l)));
    EDGEQ_ASSIGN_OR_RETURN(layer.w3, MakeLinear(T.at(W3Name(l)), W3Name(l)));
    impl->layers.push_back(std::move(layer));
  }
  impl->final_norm = f32(FinalNormName());
  impl->embedding = T.at(TokenEmbeddingName());
  const bool emb_f32 =
      !impl->embedding.is_quantized() && impl->embedding.dtype() == DType::kFloat32;
  if (!emb_f32 && !internal::IsKnownEncoding(impl->embedding.encoding())) {
    return absl::UnimplementedError(absl::StrFormat(
        "token embedding is %s: no decoder for it in this build", impl->embedding.DebugString()));
  }
  const std::string cls = c.shared_classifier ? TokenEmbeddingName() : ClassifierName();
  EDGEQ_ASSIGN_OR_RETURN(impl->classifier, MakeLinear(T.at(cls), cls));
  if (options.num_threads > 1) {
    impl->pool = pthreadpool_create(static_cast<size_t>(options.num_threads));
    if (impl->pool == nullptr) return absl::InternalError("pthreadpool_create failed");
  }
  const size_t kv = static_cast<size_t>(c.n_layers) * c.seq_len * c.kv_dim();
  impl->x.assign(c.dim, 0.0f);
  impl->xb.assign(c.dim, 0.0f);
  impl->xb2.assign(c.dim, 0.0f);
  impl->hb.assign(c.hidden_dim, 0.0f);
  impl->hb2.assign(c.hidden_dim, 0.0f);
  impl->q.assign(c.dim, 0.0f);
  impl->att.assign(static_cast<size_t>(c.n_heads) * c.seq_len, 0.0f);
  impl->logits.assign(c.vocab_size, 0.0f);
  impl->key_cache.assign(kv, 0.0f);
  impl->value_cache.assign(kv, 0.0f);
  return std::unique_ptr<LlamaModel>(new LlamaModel(c, std::move(impl)));
}

std::vector<std::string> LlamaModel::KernelNames() const {
  std::vector<std::string> names;
  auto add = [&](const Linear& l) {
    const std::string n = l.kernel_name();
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  for (const auto& layer : impl_->layers) {
    for (const Linear* l : {layer.wq.get(), layer.wk.get(), layer.wv.get(), layer.wo.get(),
                            layer.w1.get(), layer.w2.get(), layer.w3.get()}) {
      add(*l);
    }
  }
  add(*impl_->classifier);
  return names;
}

absl::StatusOr<absl::Span<float>> LlamaModel::Forward(int token, int pos) {
  const LlamaConfig& c = config_;
  if (token < 0 || token >= c.vocab_size) {
    return absl::InvalidArgumentError(
        absl::StrFormat("token %d is outside the vocabulary [0, %d)", token, c.vocab_size));
  }
  if (pos < 0 || pos >= c.seq_len) {
    return absl::InvalidArgumentError(
        absl::StrFormat("position %d is outside the model's context [0, %d)", pos, c.seq_len));
  }
  Impl& s = *impl_;
  const int dim = c.dim, kv_dim = c.kv_dim(), head_size = c.head_size();
  const int kv_mul = c.n_heads / c.n_kv_heads, hidden = c.hidden_dim;
  float* x = s.x.data();
  if (s.embedding.is_quantized()) {
    const int64_t row_bytes = s.embedding.shape().dim(1);
    internal::DequantizeRow(s.embedding.encoding(),
                            static_cast<const uint8_t*>(s.embedding.raw_data()) + token * row_bytes,
                            x, dim);
  } else {
    std::memcpy(
        x, static_cast<const float*>(s.embedding.raw_data()) + static_cast<int64_t>(token) * dim,
        dim * sizeof(float));
  }
  for (int l = 0; l < c.n_layers; ++l) {
    const Impl::Layer& L = s.layers[l];
    RmsNorm(s.xb.data(), x, L.attention_norm, dim, c.norm_eps);
    const size_t loff = static_cast<size_t>(l) * c.seq_len * kv_dim;
    float* k = s.key_cache.data() + loff + static_cast<size_t>(pos) * kv_dim;
    float* v = s.value_cache.data() + loff + static_cast<size_t>(pos) * kv_dim;
    L.wq->Run(s.xb.data(), s.q.data(), s.pool);
    L.wk->Run(s.xb.data(), k, s.pool);
    L.wv->Run(s.xb.data(), v, s.pool);
    // RoPE on adjacent pairs (q everywhere, k within kv_dim).
    for (int i = 0; i < dim; i += 2) {
      const int head_dim = i % head_size;
      const float freq = 1.0f / std::pow(c.rope_theta, head_dim / static_cast<float>(head_size));
      const float val = pos * freq;
      const float fcr = std::cos(val), fci = std::sin(val);
      const int rotn = i < kv_dim ? 2 : 1;
      for (int r = 0; r < rotn; ++r) {
        float* vec = r == 0 ? s.q.data() : k;
        const float v0 = vec[i], v1 = vec[i + 1];
        vec[i] = v0 * fcr - v1 * fci;
        vec[i + 1] = v0 * fci + v1 * fcr;
      }
    }
    // Grouped-query attention over positions 0..pos.
    const float scale = std::sqrt(static_cast<float>(head_size));
    for (int h = 0; h < c.n_heads; ++h) {
      const float* q = s.q.data() + h * head_size;
      float* att = s.att.data() + static_cast<size_t>(h) * c.seq_len;
      const size_t hoff = static_cast<size_t>(h / kv_mul) * head_size;
      for (int t = 0; t <= pos; ++t) {
        const float* kt = s.key_cache.data() + loff + static_cast<size_t>(t) * kv_dim + hoff;
        float score = 0.0f;
        for (int i = 0; i < head_size; ++i) score += q[i] * kt[i];
        att[t] = score / scale;
      }
      SoftmaxInPlace(att, pos + 1);
      float* xb = s.xb.data() + h * head_size;
      std::memset(xb, 0, head_size * sizeof(float));
      for (int t = 0; t <= pos; ++t) {
        const float* vt = s.value_cache.data() + loff + static_cast<size_t>(t) * kv_dim + hoff;
        const float a = att[t];
        for (int i = 0; i < head_size; ++i) xb[i] += a * vt[i];
      }
    }
    L.wo->Run(s.xb.data(), s.xb2.data(), s.pool);
    for (int i = 0; i < dim; ++i) x[i] += s.xb2[i];
    RmsNorm(s.xb.data(), x, L.ffn_norm, dim, c.norm_eps);
    L.w1->Run(s.xb.data(), s.hb.data(), s.pool);
    L.w3->Run(s.xb.data(), s.hb2.data(), s.pool);
    for (int i = 0; i < hidden; ++i) {
      float val = s.hb[i];
      val *= (1.0f / (1.0f + std::exp(-val)));
      val *= s.hb2[i];
      s.hb[i] = val;
    }
    L.w2->Run(s.hb.data(), s.xb.data(), s.pool);
    for (int i = 0; i < dim; ++i) x[i] += s.xb[i];
  }
  RmsNorm(x, x, s.final_norm, dim, c.norm_eps);
  s.classifier->Run(x, s.logits.data(), s.pool);
  return absl::MakeSpan(s.logits);
}

}  // namespace tinystories
}  // namespace edgeq
