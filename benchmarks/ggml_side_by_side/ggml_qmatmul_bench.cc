// ggml side-by-side harness for edgeq's qmatmul benchmark (NOT built by Bazel; see README.md here).
//
// Times ggml's mul_mat (W[n, k] quantized x X[m, k] f32 -> Y[m, n]) through the CPU backend
// (ggml_backend_graph_compute, i.e. ggml_graph_compute with n_threads 1 and 2) on the shapes of
// benchmarks/qmatmul_benchmark.cc, with the weights in ggml's CPU_REPACK buffer when ggml has a
// repacked layout for the type on this CPU (what llama.cpp does by default) and in the plain CPU
// buffer otherwise (both are timed; the JSON keeps the faster). Prints per-shape lines on stderr
// and writes {"m/n/k/threads/enc": gflops} on stdout, the --ggml input of qmatmul_table.py.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

namespace {

// `repack`: ggml (d99724f, src/ggml-cpu/repack.cpp) has an x86 repacked layout for this type. Its
// repack buffer dereferences a null layout for the other types, so they use the plain buffer.
struct Enc {
  const char* name;
  ggml_type type;
  bool repack;
};
// x86 repacks at d99724f: q4_0, q4_K, iq4_nl (AVX2) and q2_K (AVX-512).
const Enc kEncs[] = {{"q4_0", GGML_TYPE_Q4_0, true},     {"q8_0", GGML_TYPE_Q8_0, false},
                     {"q4_k", GGML_TYPE_Q4_K, true},     {"q5_k", GGML_TYPE_Q5_K, false},
                     {"q6_k", GGML_TYPE_Q6_K, false},    {"q4_1", GGML_TYPE_Q4_1, false},
                     {"q5_0", GGML_TYPE_Q5_0, false},    {"q5_1", GGML_TYPE_Q5_1, false},
                     {"iq4_nl", GGML_TYPE_IQ4_NL, true}, {"q2_k", GGML_TYPE_Q2_K, true},
                     {"q3_k", GGML_TYPE_Q3_K, false},    {"iq4_xs", GGML_TYPE_IQ4_XS, false},
                     {"f16", GGML_TYPE_F16, false}};
struct MatShape {
  int64_t n, k;
};
// The shapes of benchmarks/qmatmul_benchmark.cc (rows of 896 and 640: Qwen2.5-0.5B and
// Gemma-3-270M, whose K-quant files fall back to the 32-value types there).
const MatShape kShapes[] = {{4096, 4096}, {288, 288},     {768, 288},  {288, 768},  {32000, 288},
                            {49152, 576}, {128256, 2048}, {896, 896},  {4864, 896}, {640, 640},
                            {2048, 640},  {1536, 1536},   {2048, 2048}};
const int64_t kMs[] = {1, 8, 64};
const int kThreads[] = {1, 2};

std::vector<float> Gaussian(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(count);
  for (float& f : v) f = dist(rng);
  return v;
}

ggml_backend_buffer_type_t RepackBufferType() {
  ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
  ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(dev);
  auto get = reinterpret_cast<ggml_backend_dev_get_extra_bufts_t>(
      ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts"));
  if (get == nullptr) return nullptr;
  for (ggml_backend_buffer_type_t* b = get(dev); b != nullptr && *b != nullptr; ++b) {
    if (std::strcmp(ggml_backend_buft_name(*b), "CPU_REPACK") == 0) return *b;
  }
  return nullptr;
}

// GFLOP/s of the best of `reps` timed batches (each at least min_seconds long).
double TimeMulMat(ggml_backend_t backend, ggml_backend_buffer_type_t wbuft, ggml_type type,
                  int64_t m, int64_t n, int64_t k, double min_seconds, int reps, bool* supported) {
  ggml_init_params ip = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true};
  ggml_context* ctx_w = ggml_init(ip);
  ggml_context* ctx = ggml_init(ip);
  ggml_tensor* w = ggml_new_tensor_2d(ctx_w, type, k, n);
  ggml_tensor* x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, m);
  ggml_tensor* y = ggml_mul_mat(ctx, w, x);
  ggml_cgraph* graph = ggml_new_graph(ctx);
  ggml_build_forward_expand(graph, y);

  ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(ctx_w, wbuft);
  // Weights: Gaussian, quantized by ggml, uploaded (the repack buffer repacks here).
  const std::vector<float> wf = Gaussian(static_cast<size_t>(n * k), 1);
  std::vector<uint8_t> wq(ggml_row_size(type, k) * n);
  ggml_quantize_chunk(type, wf.data(), wq.data(), 0, n, k, nullptr);
  ggml_backend_tensor_set(w, wq.data(), 0, wq.size());
  *supported = ggml_backend_supports_op(backend, y);

  ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend));
  ggml_gallocr_alloc_graph(galloc, graph);
  const std::vector<float> xf = Gaussian(static_cast<size_t>(m * k), 2);
  ggml_backend_tensor_set(x, xf.data(), 0, xf.size() * sizeof(float));

  double best = 0.0;
  ggml_backend_graph_compute(backend, graph);  // warm-up
  for (int r = 0; r < reps; ++r) {
    int iters = 0;
    const auto t0 = std::chrono::steady_clock::now();
    double dt = 0.0;
    do {
      ggml_backend_graph_compute(backend, graph);
      ++iters;
      dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (dt < min_seconds);
    best = std::max(best, 2.0 * m * n * k * iters / dt * 1e-9);
  }
  ggml_gallocr_free(galloc);
  ggml_backend_buffer_free(wbuf);
  ggml_free(ctx);
  ggml_free(ctx_w);
  return best;
}

// True if `list` (comma-separated, empty = all) holds `item`.
bool Selected(const std::string& list, const std::string& item) {
  if (list.empty()) return true;
  return ("," + list + ",").find("," + item + ",") != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  double min_seconds = 0.1;
  int reps = 3;
  std::string encodings, shapes, ms;  // filters: --encodings=q4_0,q5_0 --shapes=896x896 --m=1,8
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--min_seconds=", 14) == 0) {
      min_seconds = std::atof(argv[i] + 14);
    } else if (std::strncmp(argv[i], "--reps=", 7) == 0) {
      reps = std::atoi(argv[i] + 7);
    } else if (std::strncmp(argv[i], "--encodings=", 12) == 0) {
      encodings = argv[i] + 12;
    } else if (std::strncmp(argv[i], "--shapes=", 9) == 0) {
      shapes = argv[i] + 9;
    } else if (std::strncmp(argv[i], "--m=", 4) == 0) {
      ms = argv[i] + 4;
    } else {
      std::fprintf(stderr,
                   "unknown argument '%s' (expected --min_seconds=S --reps=N --encodings=a,b "
                   "--shapes=NxK,... --m=1,8,64)\n",
                   argv[i]);
      return 2;
    }
  }
  ggml_backend_t backend = ggml_backend_cpu_init();
  ggml_backend_buffer_type_t repack = RepackBufferType();
  ggml_backend_buffer_type_t plain = ggml_backend_cpu_buffer_type();
  std::fprintf(stderr, "ggml %s, repack buffer: %s\n", ggml_version(), repack ? "yes" : "no");
  std::map<std::string, double> out;
  for (const MatShape& s : kShapes) {
    if (!Selected(shapes, std::to_string(s.n) + "x" + std::to_string(s.k))) continue;
    for (int64_t m : kMs) {
      if (!Selected(ms, std::to_string(m))) continue;
      for (int t : kThreads) {
        ggml_backend_cpu_set_n_threads(backend, t);
        for (const Enc& e : kEncs) {
          if (!Selected(encodings, e.name)) continue;
          if (s.k % ggml_blck_size(e.type) != 0) continue;
          bool ok = false;
          const double g_plain =
              TimeMulMat(backend, plain, e.type, m, s.n, s.k, min_seconds, reps, &ok);
          double g_repack = 0.0;
          if (repack != nullptr && e.repack) {
            bool ok_r = false;
            g_repack = TimeMulMat(backend, repack, e.type, m, s.n, s.k, min_seconds, reps, &ok_r);
            if (!ok_r) g_repack = 0.0;
          }
          const std::string key = std::to_string(m) + "/" + std::to_string(s.n) + "/" +
                                  std::to_string(s.k) + "/" + std::to_string(t) + "/" + e.name;
          out[key] = std::max(g_plain, g_repack);
          std::fprintf(stderr, "%-24s plain %7.1f  repack %7.1f GFLOP/s\n", key.c_str(), g_plain,
                       g_repack);
        }
      }
    }
  }
  std::printf("{\n");
  size_t i = 0;
  for (const auto& kv : out) {
    std::printf("  \"%s\": %.3f%s\n", kv.first.c_str(), kv.second, ++i < out.size() ? "," : "");
  }
  std::printf("}\n");
  ggml_backend_free(backend);
  return 0;
}
