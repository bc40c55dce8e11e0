// Checkpoint load time: checkpoint::Load (mmap, zero-copy views) of a stories15M-shaped Q4_0
// checkpoint (dim 288, hidden 768, 6 layers, vocab 32000; ~8.6 MB of random bytes tagged
// q4_0, norms f32) against reading the same bytes with read().
//
//   bazel run //benchmarks:load_benchmark
//
// BM_ReadFile is the baseline: open + read() of the whole file into a 64-byte aligned buffer.
// BM_ReadFileAndParse: the same, then parsing it into a TensorDict (what a non-mmap loader
// does). BM_Load: Load() to a usable TensorDict (the header/table checksum is verified; data is
// not touched, so pages fault in on first use). BM_LoadAndTouch / BM_LoadVerify: Load, then
// read every byte (page cache hot) / verify every tensor checksum.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "checkpoint/max_format.h"
#include "xxhash.h"

namespace edgeq {
namespace {

using checkpoint::TensorDict;

Tensor Q4_0(int64_t rows, int64_t k, uint32_t* seed) {
  const int64_t bytes_per_row = k / 32 * 18;
  Tensor t = *Tensor::Create(DType::kUInt8, Shape{rows, bytes_per_row});
  uint8_t* p = static_cast<uint8_t*>(t.raw_mutable_data());
  for (size_t i = 0; i < t.size_bytes(); ++i) {
    *seed = *seed * 1664525u + 1013904223u;
    p[i] = static_cast<uint8_t>(*seed >> 24);
  }
  t.SetQuantization("q4_0", Shape{rows, k});
  return t;
}

TensorDict Stories15MQ4_0() {
  const int64_t dim = 288, hidden = 768, layers = 6, vocab = 32000;
  uint32_t seed = 1;
  TensorDict d;
  (void)d.Set("token_embd.weight", Q4_0(vocab, dim, &seed));
  (void)d.Set("output_norm.weight", *Tensor::Full(Shape{dim}, 1.0f));
  for (int64_t l = 0; l < layers; ++l) {
    const std::string b = absl::StrCat("blk.", l, ".");
    (void)d.Set(b + "attn_q.weight", Q4_0(dim, dim, &seed));
    (void)d.Set(b + "attn_k.weight", Q4_0(dim, dim, &seed));
    (void)d.Set(b + "attn_v.weight", Q4_0(dim, dim, &seed));
    (void)d.Set(b + "attn_output.weight", Q4_0(dim, dim, &seed));
    (void)d.Set(b + "attn_norm.weight", *Tensor::Full(Shape{dim}, 1.0f));
    (void)d.Set(b + "ffn_gate.weight", Q4_0(hidden, dim, &seed));
    (void)d.Set(b + "ffn_down.weight", Q4_0(dim, hidden, &seed));
    (void)d.Set(b + "ffn_up.weight", Q4_0(hidden, dim, &seed));
    (void)d.Set(b + "ffn_norm.weight", *Tensor::Full(Shape{dim}, 1.0f));
  }
  return d;
}

const std::string& CheckpointPath() {
  static const std::string* path = [] {
    const char* tmp = std::getenv("TMPDIR");
    auto* p = new std::string(absl::StrCat(tmp ? tmp : "/tmp", "/edgeq_load_benchmark.max"));
    absl::Status s = checkpoint::Save(Stories15MQ4_0(), *p);
    if (!s.ok()) {
      std::fprintf(stderr, "cannot write %s: %s\n", p->c_str(), std::string(s.message()).c_str());
      std::exit(1);
    }
    return p;
  }();
  return *path;
}

size_t FileSize() {
  static const size_t size = [] {
    absl::StatusOr<TensorDict> d = checkpoint::Load(CheckpointPath());
    size_t total = 0;
    for (const std::string& k : d->Keys()) total += (*d->Get(k))->size_bytes();
    return total;
  }();
  return size;
}

std::unique_ptr<uint8_t, void (*)(void*)> ReadAll(const std::string& path, size_t* size) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  const off_t n = ::lseek(fd, 0, SEEK_END);
  ::lseek(fd, 0, SEEK_SET);
  *size = static_cast<size_t>(n);
  std::unique_ptr<uint8_t, void (*)(void*)> buf(
      static_cast<uint8_t*>(std::aligned_alloc(64, (*size + 63) / 64 * 64)), std::free);
  size_t done = 0;
  while (done < *size) {
    const ssize_t r = ::read(fd, buf.get() + done, *size - done);
    if (r <= 0) break;
    done += static_cast<size_t>(r);
  }
  ::close(fd);
  return buf;
}

void BM_ReadFile(benchmark::State& state) {
  const std::string& path = CheckpointPath();
  size_t size = 0;
  for (auto _ : state) {
    auto buf = ReadAll(path, &size);
    benchmark::DoNotOptimize(buf.get());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}
BENCHMARK(BM_ReadFile)->Unit(benchmark::kMillisecond);

void BM_ReadFileAndParse(benchmark::State& state) {
  const std::string& path = CheckpointPath();
  size_t size = 0;
  for (auto _ : state) {
    auto buf = ReadAll(path, &size);
    std::shared_ptr<uint8_t> owner(buf.release(), std::free);
    absl::StatusOr<TensorDict> d =
        checkpoint::LoadFromBuffer(absl::MakeConstSpan(owner.get(), size), owner);
    if (!d.ok()) state.SkipWithError(std::string(d.status().message()).c_str());
    benchmark::DoNotOptimize(d->size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}
BENCHMARK(BM_ReadFileAndParse)->Unit(benchmark::kMillisecond);

void BM_Load(benchmark::State& state) {
  const std::string& path = CheckpointPath();
  for (auto _ : state) {
    absl::StatusOr<TensorDict> d = checkpoint::Load(path);
    if (!d.ok()) state.SkipWithError(std::string(d.status().message()).c_str());
    benchmark::DoNotOptimize(d->size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * FileSize()));
  state.counters["tensors"] = 56;
}
BENCHMARK(BM_Load)->Unit(benchmark::kMillisecond);

void BM_LoadAndTouch(benchmark::State& state) {
  const std::string& path = CheckpointPath();
  for (auto _ : state) {
    absl::StatusOr<TensorDict> d = checkpoint::Load(path);
    uint64_t h = 0;
    for (const std::string& k : d->Keys()) {
      const Tensor& t = **d->Get(k);
      h += XXH3_64bits(t.raw_data(), t.size_bytes());
    }
    benchmark::DoNotOptimize(h);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * FileSize()));
}
BENCHMARK(BM_LoadAndTouch)->Unit(benchmark::kMillisecond);

void BM_LoadVerify(benchmark::State& state) {
  const std::string& path = CheckpointPath();
  checkpoint::LoadOptions options;
  options.verify_data = true;
  for (auto _ : state) {
    absl::StatusOr<TensorDict> d = checkpoint::Load(path, options);
    if (!d.ok()) state.SkipWithError(std::string(d.status().message()).c_str());
    benchmark::DoNotOptimize(d->size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * FileSize()));
}
BENCHMARK(BM_LoadVerify)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace edgeq
