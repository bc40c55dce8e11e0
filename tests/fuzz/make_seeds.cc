// Writes the small seed corpora of the checkpoint fuzzers (run once; outputs are committed):
//   bazel run //tests/fuzz:make_seeds -- $PWD/tests/fuzz/corpus
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "checkpoint/gguf.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/max_format.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/stored_layouts.h"

using edgeq::DType;
using edgeq::Shape;
using edgeq::Tensor;
using edgeq::checkpoint::MetadataValue;
using edgeq::checkpoint::TensorDict;

namespace {

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), bytes.size());
  std::printf("%s: %zu bytes\n", path.c_str(), bytes.size());
}

Tensor Tagged(const char* enc, int64_t rows, int64_t k, int64_t epb, int64_t bs) {
  std::vector<uint8_t> b(static_cast<size_t>(rows * k / epb * bs));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 31 + 7);
  Tensor t = *Tensor::FromValues<uint8_t>(Shape{rows, k / epb * bs}, b);
  t.SetQuantization(enc, Shape{rows, k});
  return t;
}

TensorDict Small(bool all_encodings) {
  using W = MetadataValue::Width;
  TensorDict d;
  (void)d.Set("w", *Tensor::FromValues<float>(Shape{2, 3}, {1, 2, 3, -4, 5.5f, 0}));
  (void)d.Set("q", Tagged("q4_0", 1, 32, 32, 18));
  (void)d.Set("b", Tagged("bf16", 1, 4, 1, 2));
  if (all_encodings) {
    (void)d.Set("q8", Tagged("q8_0", 1, 32, 32, 34));
    (void)d.Set("q4k", Tagged("q4_k", 1, 256, 256, 144));
    (void)d.Set("q5k", Tagged("q5_k", 1, 256, 256, 176));
    (void)d.Set("q6k", Tagged("q6_k", 1, 256, 256, 210));
    (void)d.Set("h", *Tensor::Create(DType::kFloat16, Shape{4}));
    (void)d.Set("i", *Tensor::FromValues<int32_t>(Shape{2}, {7, -7}));
  }
  d.SetMetadata("general.architecture", MetadataValue::String("llama"));
  d.SetMetadata("n", MetadataValue::Int(5, W::kU32));
  d.SetMetadata("i8", MetadataValue::Int(-2, W::kI8));
  d.SetMetadata("u16", MetadataValue::Int(9, W::kU16));
  d.SetMetadata("i16", MetadataValue::Int(-9, W::kI16));
  d.SetMetadata("u64", MetadataValue::Int(1, W::kU64));
  d.SetMetadata("f", MetadataValue::Float(0.5, W::kF32));
  d.SetMetadata("d", MetadataValue::Float(0.25));
  d.SetMetadata("t", MetadataValue::Bool(true));
  d.SetMetadata("toks", MetadataValue::StringArray({"a", "bc"}));
  d.SetMetadata("ids", MetadataValue::IntArray({1, 2}, W::kI32));
  d.SetMetadata("fs", MetadataValue::FloatArray({1, 2}, W::kF32));
  return d;
}

// Several rows per quantized tensor (the model fuzzer runs qmatmul and Gather over them).
TensorDict Rows() {
  TensorDict d;
  (void)d.Set("q4_0", Tagged("q4_0", 5, 64, 32, 18));
  (void)d.Set("q8_0", Tagged("q8_0", 3, 64, 32, 34));
  (void)d.Set("q4_k", Tagged("q4_k", 2, 512, 256, 144));
  (void)d.Set("q5_k", Tagged("q5_k", 3, 256, 256, 176));
  (void)d.Set("q6_k", Tagged("q6_k", 2, 256, 256, 210));
  (void)d.Set("bf16", Tagged("bf16", 3, 8, 1, 2));
  return d;
}

std::string TinyLlama2c(bool shared) {
  const int32_t header[7] = {4, 8, 1, 2, 1, shared ? 3 : -3, 2};
  size_t floats = 3 * 4 + 4 + 16 + 8 + 8 + 16 + 4 + 3 * 32 + 4 + 2 * 2 + (shared ? 0 : 12);
  std::string s(reinterpret_cast<const char*>(header), 28);
  for (size_t i = 0; i < floats; ++i) {
    const float v = static_cast<float>(i) * 0.5f;
    s.append(reinterpret_cast<const char*>(&v), 4);
  }
  return s;
}

std::string TinyTokenizer() {
  std::string s;
  const int32_t max_len = 3;
  s.append(reinterpret_cast<const char*>(&max_len), 4);
  for (const char* piece : {"<unk>", "a", " b", "<0x0A>", "cd"}) {
    const float score = -1.5f;
    const int32_t len = static_cast<int32_t>(std::string(piece).size());
    s.append(reinterpret_cast<const char*>(&score), 4);
    s.append(reinterpret_cast<const char*>(&len), 4);
    s += piece;
  }
  return s;
}

}  // namespace

// A weight stored in a kernel layout (`edgeq convert --repack`): q4_0 [16, 32] in the AVX2 X16
// layout, 16 rows x 36 bytes (one block pairs with a zero block).
TensorDict StoredLayout() {
  TensorDict d;
  std::vector<uint8_t> b(576);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 13 + 5);
  (void)d.Set("blk.0.attn_q.weight", *Tensor::FromValues<uint8_t>(Shape{576}, b));
  edgeq::checkpoint::StoredLayoutTag tag;
  tag.tensor = "blk.0.attn_q.weight";
  tag.layout = "q4_0_avx2_gemv";
  tag.encoding = "q4_0";
  tag.isa = "avx2";
  tag.version = 1;
  tag.n = 16;
  tag.k = 32;
  edgeq::checkpoint::TagStoredLayout(tag, &d);
  d.SetMetadata(edgeq::checkpoint::kRepackIsaKey, MetadataValue::String("avx2"));
  return d;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: make_seeds OUT_DIR (with max/ gguf/ llama2c/ safetensors/ model/)\n");
    return 2;
  }
  const std::string dir = argv[1];
  Write(dir + "/max/small.max", *edgeq::checkpoint::SaveToString(Small(true)));
  Write(dir + "/max/empty.max", *edgeq::checkpoint::SaveToString(TensorDict()));
  Write(dir + "/max/stored_layout.max", *edgeq::checkpoint::SaveToString(StoredLayout()));
  Write(dir + "/gguf/small.gguf", *edgeq::checkpoint::WriteGgufToString(Small(true)));
  Write(dir + "/gguf/empty.gguf", *edgeq::checkpoint::WriteGgufToString(TensorDict()));
  Write(dir + "/llama2c/shared.bin", TinyLlama2c(true));
  Write(dir + "/llama2c/unshared.bin", TinyLlama2c(false));
  Write(dir + "/llama2c/tokenizer.bin", TinyTokenizer());
  TensorDict st;
  (void)st.Set("w", *Tensor::FromValues<float>(Shape{2, 3}, {1, 2, 3, -4, 5.5f, 0}));
  (void)st.Set("b", Tagged("bf16", 1, 4, 1, 2));
  (void)st.Set("i", *Tensor::FromValues<int64_t>(Shape{1}, {3}));
  st.SetMetadata("format", MetadataValue::String("pt"));
  Write(dir + "/safetensors/small.safetensors", *edgeq::checkpoint::WriteSafetensorsToString(st));
  Write(dir + "/model/rows.max", *edgeq::checkpoint::SaveToString(Rows()));
  Write(dir + "/model/rows.gguf", *edgeq::checkpoint::WriteGgufToString(Rows()));
  Write(dir + "/model/small.max", *edgeq::checkpoint::SaveToString(Small(true)));
  Write(dir + "/model/stored_layout.max", *edgeq::checkpoint::SaveToString(StoredLayout()));
  // Issue 14's file in small: valid checksums, a q4_0 tensor cut to one block of its [64, 64].
  TensorDict cut;
  Tensor one = Tagged("q4_0", 1, 32, 32, 18);
  one.SetQuantization("q4_0", Shape{64, 64});
  (void)cut.Set("token_embd.weight", one);
  Write(dir + "/model/cut.max", *edgeq::checkpoint::internal::SaveToStringUnchecked(cut));
  return 0;
}
