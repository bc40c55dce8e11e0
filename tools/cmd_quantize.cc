// `edgeq quantize IN OUT [--encoding=NAME|none] [--rules=FILE] [--quiet]`.
#include <cstdio>

#include "absl/strings/str_format.h"
#include "checkpoint/quantize_rules.h"
#include "tools/command.h"
#include "tools/quantize_model.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kUsage[] = "IN OUT [--encoding=NAME|none] [--rules=FILE] [--quiet]";

int RunQuantize(const Args& args) {
  absl::Status s = args.CheckFlags({"encoding", "rules", "quiet"});
  if (s.ok()) s = args.CheckPositional(2, kUsage);
  if (!s.ok()) return Fail(args.command, s);
  if (args.Has("encoding") && args.Has("rules")) {
    return Fail(args.command, absl::InvalidArgumentError(
                                  "give --encoding or --rules, not both (a rules file names "
                                  "every encoding; end it with '* -> ENCODING' for a default)"));
  }
  QuantizeModelOptions options;
  options.encoding = args.Get("encoding", "q4_0");
  options.rules_path = args.Get("rules");
  const bool quiet = args.Get("quiet") == "true";
  if (!quiet) options.progress = checkpoint::PrintQuantizeProgress;
  absl::StatusOr<QuantizeModelResult> r =
      QuantizeModel(args.positional[0], args.positional[1], options);
  if (!r.ok()) {
    if (!quiet) absl::FPrintF(stderr, "\n");
    return Fail(args.command, r.status());
  }
  absl::FPrintF(stdout, "%s%s -> %s\n", QuantizeModelReport(*r), args.positional[0],
                args.positional[1]);
  return 0;
}

}  // namespace

EDGEQ_REGISTER_COMMAND(quantize, "quantize", kUsage,
                       "Quantize a model's weights (any checkpoint format) per --encoding "
                       "(default q4_0; vectors stay f32; a row length that does not fit falls "
                       "back to q8_0, bf16, f32) or a --rules file of 'PATTERN -> ENCODING' "
                       "lines; writes OUT (.max, .gguf, .safetensors) atomically, never over IN",
                       RunQuantize);

}  // namespace tools
}  // namespace edgeq
