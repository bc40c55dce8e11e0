// `edgeq tokenize MODEL TEXT [--ids]`: the token ids of TEXT under the model's own vocabulary
// (or a vocabulary-only GGUF such as llama.cpp's ggml-vocab-*.gguf), as llama.cpp's
// llama-tokenize prints them: one "id -> 'piece'" line per token, or one Python-style list with
// --ids.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checkpoint/formats.h"
#include "core/status_macros.h"
#include "llm/model.h"
#include "tools/command.h"
#include "tools/llm_cli.h"
#include "tools/llm_flags.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kTokenizeUsage[] =
    "MODEL TEXT [--ids] [--no-bos] [--parse-special] [--tokenizer FILE]\n"
    "  --ids             print only the ids, as [1, 15043, 3186]\n"
    "  --no-bos          do not add BOS (default: as the vocabulary says)\n"
    "  --parse-special   control tokens written in TEXT (\"<|im_end|>\") become their ids\n"
    "  --tokenizer FILE  a llama2.c tokenizer file instead of the model's vocabulary\n"
    "MODEL may be a vocabulary-only GGUF. Prints one \"id -> 'piece'\" line per token (stdout).";

absl::Status Tokenize(const Args& raw_args) {
  EDGEQ_ASSIGN_OR_RETURN(const LlmArgs args, ParseTokenizeFlags(raw_args.raw));
  const std::string& path = args.positional[0];
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint file, checkpoint::OpenCheckpoint(path));
  // A llama2.c tokenizer file must match the model's vocabulary size; a vocabulary the file
  // carries is taken as it is (a vocabulary-only GGUF has no model).
  int vocab_size = 0;
  if (args.Has("tokenizer")) {
    EDGEQ_ASSIGN_OR_RETURN(llm::ModelConfig config, llm::ModelConfig::FromMetadata(file.dict));
    vocab_size = config.vocab_size;
  }
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<TextTokenizer> tok,
                         OpenTokenizer(file.dict, path, args.Get("tokenizer"), vocab_size));
  EDGEQ_ASSIGN_OR_RETURN(const std::vector<int> ids,
                         tok->Encode(args.positional[1], tok->add_bos() && !args.Has("no-bos"),
                                     args.Has("parse-special")));
  if (args.Has("ids")) {
    absl::FPrintF(stdout, "[%s]\n", absl::StrJoin(ids, ", "));
    return absl::OkStatus();
  }
  for (int id : ids) absl::FPrintF(stdout, "%6d -> '%s'\n", id, tok->PieceText(id));
  return absl::OkStatus();
}

int TokenizeCommand(const Args& args) {
  absl::Status s = Tokenize(args);
  return s.ok() ? 0 : LlmFail(args.command, s);
}

}  // namespace

EDGEQ_REGISTER_COMMAND(tokenize, "tokenize", kTokenizeUsage,
                       "Token ids of a text under a model's vocabulary (llama-tokenize's output)",
                       TokenizeCommand);

}  // namespace tools
}  // namespace edgeq
