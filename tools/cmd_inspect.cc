// `edgeq inspect FILE [--verify] [--values]` and `edgeq convert IN OUT [--rules=FILE]`.
#include "absl/strings/str_format.h"
#include "tools/checkpoint_report.h"
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
  absl::Status s = args.CheckFlags({"rules"});
  if (s.ok()) s = args.CheckPositional(2, "IN OUT [--rules=FILE]");
  if (!s.ok()) return Fail(args.command, s);
  absl::StatusOr<std::string> summary =
      ConvertCheckpoint(args.positional[0], args.positional[1], args.Get("rules"));
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
EDGEQ_REGISTER_COMMAND(convert, "convert", "IN OUT [--rules=FILE]",
                       "Convert a checkpoint between .max, .gguf, .safetensors and llama2.c .bin "
                       "(format from OUT's extension); IN may be a Hugging Face directory "
                       "(config.json, *.safetensors, tokenizer.json) of a Llama, Qwen2, Qwen3, "
                       "Gemma 3 or Phi-3 model; --rules quantizes by a rules file on the way",
                       RunConvert);

}  // namespace tools
}  // namespace edgeq
