// `edgeq convert IN.gguf OUT.max --repack=NAME` end to end on a tiny random Q4_K model: the .max
// loads with the weights in place and gives the GGUF's logits bit for bit; files that do not fit
// this CPU or this edgeq are refused with one line naming tensor, layout and ISA.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/formats.h"
#include "checkpoint/max_format.h"
#include "checkpoint/stored_layouts.h"
#include "gtest/gtest.h"
#include "llm/open.h"
#include "llm/random_model.h"
#include "runtime/kernels/qmatmul.h"
#include "tools/checkpoint_report.h"
#include "tools/cmd_convert_repack.h"
#include "tools/quantize_model.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kQ[] = "blk.0.attn_q.weight";

// A 1-layer llama of dim 256 (Q4_K rows are 256 values), tied classifier, as a Q4_K GGUF.
std::string TinyGguf() {
  static const std::string* path = [] {
    llm::RandomModelSpec spec;
    spec.name = "repack";
    spec.dim = 256, spec.layers = 1, spec.heads = 4, spec.kv_heads = 2, spec.ffn = 512;
    spec.vocab = 272, spec.context = 64;
    absl::StatusOr<checkpoint::TensorDict> m = llm::RandomModel(spec);
    EXPECT_TRUE(m.ok()) << m.status();
    const std::string f32 = ::testing::TempDir() + "/repack_f32.gguf";
    EXPECT_TRUE(checkpoint::WriteCheckpoint(*m, f32).ok());
    auto* out = new std::string(::testing::TempDir() + "/repack_q4_k.gguf");
    QuantizeModelOptions options;
    options.encoding = "q4_k";
    absl::StatusOr<QuantizeModelResult> q = QuantizeModel(f32, *out, options);
    EXPECT_TRUE(q.ok()) << q.status();
    return out;
  }();
  return *path;
}

// Logits of a 5-token prompt, then of one more token (the GEMM and the GEMV kernels).
absl::StatusOr<std::vector<float>> Logits(const std::string& path) {
  llm::OpenOptions options;
  options.tokenizer = llm::TokenizerUse::kNone;
  options.model.num_threads = 1;
  absl::StatusOr<llm::OpenedModel> m = llm::Open(path, options);
  if (!m.ok()) return m.status();
  std::vector<float> out;
  const std::vector<int> prompt = {1, 17, 99, 200, 3};
  absl::StatusOr<absl::Span<const float>> a = m->model->Prefill(prompt, 0);
  if (!a.ok()) return a.status();
  out.assign(a->begin(), a->end());
  const std::vector<int> next = {42};
  absl::StatusOr<absl::Span<const float>> b = m->model->Prefill(next, 5);
  if (!b.ok()) return b.status();
  out.insert(out.end(), b->begin(), b->end());
  return out;
}

bool NativeRepacks() {
  auto layout = kernels::QMatmulKernel::LayoutFor("q4_k", 256, 256, kernels::BestSupportedIsa());
  return layout.ok() && layout->has_value();
}

TEST(ConvertRepackTest, LoadsAsTheGgufDoes) {
  if (!NativeRepacks()) GTEST_SKIP() << "this CPU's Q4_K kernels read GGML blocks in place";
  const std::string gguf = TinyGguf();
  const std::string max = ::testing::TempDir() + "/repack_native.max";
  absl::StatusOr<std::string> c = ConvertRepacked(gguf, max, "native");
  ASSERT_TRUE(c.ok()) << c.status();
  // 7 matrices of the layer and the tied classifier's copy.
  EXPECT_TRUE(absl::StrContains(*c, "8 in repacked layouts")) << *c;
  absl::StatusOr<checkpoint::TensorDict> d = checkpoint::Load(max);
  ASSERT_TRUE(d.ok()) << d.status();
  const Tensor& q = **d->Get(kQ);
  ASSERT_EQ(q.encoding(), "q4_k");
  std::optional<checkpoint::StoredLayoutTag> tag = checkpoint::FindStoredLayout(q.bytes().data());
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->isa, kernels::IsaName(kernels::BestSupportedIsa()));
  EXPECT_TRUE(d->Contains("output.weight"));
  EXPECT_FALSE(checkpoint::FindStoredLayout((*d->Get("token_embd.weight"))->bytes().data()));
  // inspect names the layout beside the encoding, and --values does not decode the layouts'
  // bytes as GGML blocks.
  absl::StatusOr<std::string> report = InspectCheckpoint(max, /*verify=*/true, /*values=*/true);
  ASSERT_TRUE(report.ok()) << report.status();
  const size_t q_line = report->find(absl::StrCat("\n", kQ, " "));
  ASSERT_NE(q_line, std::string::npos) << *report;
  EXPECT_EQ(report->compare(report->find_first_not_of(' ', q_line + 1 + sizeof(kQ) - 1),
                            5 + tag->layout.size(), absl::StrCat("q4_k@", tag->layout)),
            0)
      << *report;
  EXPECT_TRUE(absl::StrContains(*report, "; 8 in stored kernel layouts not decoded)")) << *report;
  absl::StatusOr<std::vector<float>> want = Logits(gguf);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::vector<float>> got = Logits(max);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u * 272);
  EXPECT_EQ(*got, *want);
  // Without the tied copy: 7 layouts, the classifier on the embedding (repacked at load).
  const std::string rows = ::testing::TempDir() + "/repack_rows.max";
  c = ConvertRepacked(gguf, rows, "native", /*copy_tied=*/false);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(absl::StrContains(*c, "7 in repacked layouts")) << *c;
  got = Logits(rows);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, *want);
}

// The file's tags changed one at a time: each load fails with its one line.
TEST(ConvertRepackTest, RefusesFilesThatDoNotFit) {
  if (!NativeRepacks()) GTEST_SKIP() << "this CPU's Q4_K kernels read GGML blocks in place";
  absl::StatusOr<checkpoint::OpenedCheckpoint> in = checkpoint::OpenCheckpoint(TinyGguf());
  ASSERT_TRUE(in.ok()) << in.status();
  absl::StatusOr<checkpoint::TensorDict> good = RepackCheckpoint(in->dict, "native");
  ASSERT_TRUE(good.ok()) << good.status();
  const std::vector<std::string> names =
      (*good->GetMetadata(checkpoint::kLayoutKeyPrefix + std::string(kQ)))->strings();
  const std::string foreign =
      kernels::BestSupportedIsa() == kernels::Isa::kNeonI8mm ? "avx512vnni" : "i8mm";
  const auto expect_refused = [&](checkpoint::TensorDict d, const std::string& want) {
    const std::string path = ::testing::TempDir() + "/repack_bad.max";
    ASSERT_TRUE(checkpoint::Save(d, path).ok());
    absl::StatusOr<std::vector<float>> r = Logits(path);
    ASSERT_FALSE(r.ok()) << want;
    EXPECT_TRUE(absl::StrContains(r.status().message(), want)) << r.status();
    EXPECT_EQ(r.status().message().find('\n'), absl::string_view::npos);
  };
  checkpoint::TensorDict isa = *good;
  isa.SetMetadata(checkpoint::kLayoutKeyPrefix + std::string(kQ),
                  checkpoint::MetadataValue::StringArray({names[0], names[1], foreign}));
  expect_refused(isa, absl::StrCat(kQ, ": layout ", names[0], " needs ", foreign,
                                   ", which this CPU lacks; reconvert with --repack=native or "
                                   "use the GGUF"));
  checkpoint::TensorDict version = *good;
  version.SetMetadata(checkpoint::kLayoutVersionKeyPrefix + std::string(kQ),
                      checkpoint::MetadataValue::Int(2, checkpoint::MetadataValue::Width::kU32));
  expect_refused(version, absl::StrCat(kQ, ": layout ", names[0],
                                       " is version 2, this edgeq reads version 1"));
  checkpoint::TensorDict cut = *good;
  const Tensor& q = **good->Get(kQ);
  const size_t short_size = q.size_bytes() - 64;
  absl::StatusOr<Tensor> shorter =
      Tensor::View(DType::kUInt8, Shape{static_cast<int64_t>(short_size)}, q.bytes().data(),
                   short_size, nullptr);
  ASSERT_TRUE(shorter.ok());
  ASSERT_TRUE(cut.Set(kQ, *shorter).ok());
  expect_refused(cut, absl::StrCat(kQ, ": layout ", names[0], " [256, 256] needs ", q.size_bytes(),
                                   " bytes, got ", short_size));
}

TEST(ConvertRepackTest, RefusesBadArguments) {
  const std::string gguf = TinyGguf();
  absl::StatusOr<std::string> c =
      ConvertRepacked(gguf, ::testing::TempDir() + "/repack.gguf", "native");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(c.status().message(), "--repack writes .max files")) << c.status();
  c = ConvertRepacked(gguf, ::testing::TempDir() + "/repack.max", "avx9000");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(c.status().message(), "--repack=avx9000: expected an ISA ("))
      << c.status();
  // A .max with stored layouts converts to .max only (its weights are not GGML blocks).
  if (!NativeRepacks()) return;
  const std::string max = ::testing::TempDir() + "/repack_src.max";
  ASSERT_TRUE(ConvertRepacked(gguf, max, "native").ok());
  absl::StatusOr<checkpoint::OpenedCheckpoint> opened = checkpoint::OpenCheckpoint(max);
  ASSERT_TRUE(opened.ok()) << opened.status();
  absl::Status w = checkpoint::WriteCheckpoint(opened->dict, ::testing::TempDir() + "/back.gguf");
  EXPECT_EQ(w.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(w.message(), "only .max keeps; convert the file it was made from"))
      << w;
  EXPECT_TRUE(checkpoint::WriteCheckpoint(opened->dict, ::testing::TempDir() + "/again.max").ok());
}

}  // namespace
}  // namespace tools
}  // namespace edgeq
