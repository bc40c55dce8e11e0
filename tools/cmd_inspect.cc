// `edgeq inspect FILE [--verify] [--values]` and
// `edgeq convert IN OUT [--rules=FILE | --repack=ISA]`.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/checkpoint_report.h"
#include "tools/cmd_convert_repack.h"
#include "tools/command.h"

namespace edgeq {
namespace tools {
namespace {

int RunInspect(const Args& args) {
  absl::Status s = args.CheckFlags({"verify", "values"});
  if (s.ok()) s = args.CheckPositional(1, "FILE [--verify] [--values]");
  if (!s.ok()) return Fail(args.command, s);
  absl::StatusOr<std::string> report = InspectCheckpoint(
      args.positional[0], args.Get("verify") == "true", args.Get("values") == "true");
  if (!report.ok()) return Fail(args.command, report.status());
  absl::FPrintF(stdout, "%s", *report);
  return 0;
}

int RunConvert(const Args& args) {
  absl::Status s = args.CheckFlags({"rules", "repack", "repack-tied"});
  if (s.ok()) s = args.CheckPositional(2, "IN OUT [--rules=FILE | --repack=ISA]");
  if (s.ok() && args.Has("repack") && args.Has("rules")) {
    s = absl::InvalidArgumentError("--repack and --rules: expected one of them");
  }
  const std::string tied = args.Get("repack-tied", "copy");
  if (s.ok() && tied != "copy" && tied != "rows") {
    s = absl::InvalidArgumentError(absl::StrCat("--repack-tied=", tied, ": expected copy or rows"));
  }
  if (!s.ok()) return Fail(args.command, s);
  absl::StatusOr<std::string> summary =
      args.Has("repack")
          ? ConvertRepacked(args.positional[0], args.positional[1], args.Get("repack"),
                            tied == "copy")
          : ConvertCheckpoint(args.positional[0], args.positional[1], args.Get("rules"));
  if (!summary.ok()) return Fail(args.command, summary.status());
  absl::FPrintF(stdout, "%s\n", *summary);
  return 0;
}

}  // namespace

EDGEQ_REGISTER_COMMAND(inspect, "inspect", "FILE [--verify] [--values]",
                       "List the tensors and metadata of a checkpoint (.max, .gguf, .bin, "
                       ".safetensors); --verify checks .max data checksums; --values decodes "
                       "every tensor and fails on NaN or Inf values",
                       RunInspect);
EDGEQ_REGISTER_COMMAND(convert, "convert", "IN OUT [--rules=FILE | --repack=ISA]",
                       "Convert a checkpoint between .max, .gguf, .safetensors and llama2.c .bin "
                       "(format from OUT's extension); IN may be a Hugging Face directory "
                       "(config.json, *.safetensors, tokenizer.json) of a Llama, Qwen2, Qwen3, "
                       "Gemma 3 or Phi-3 model; --rules quantizes by a rules file on the way; "
                       "--repack=ISA (or native) writes a .max whose matmul weights hold the "
                       "kernels' layouts for that ISA, loaded as a mapping with no repack "
                       "(--repack-tied=rows: a tied classifier stays on the embedding's rows, "
                       "repacked at load; default copy: stored once more in the layout)",
                       RunConvert);

}  // namespace tools
}  // namespace edgeq
