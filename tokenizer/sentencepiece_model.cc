#include "tokenizer/sentencepiece_model.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"

namespace edgeq {
namespace tokenizer {
namespace {

// One field of a protobuf message (wire types 0, 1, 2 and 5; groups are refused).
struct Field {
  uint32_t number = 0;
  uint32_t wire = 0;
  uint64_t varint = 0;     // wire 0
  uint32_t fixed32 = 0;    // wire 5
  absl::string_view data;  // wire 2
  size_t offset = 0;       // of the tag, from the start of the file
};

// Reads the fields of one message, in order, never past its end.
class ProtoReader {
 public:
  ProtoReader(absl::string_view message, size_t base, absl::string_view what)
      : msg_(message), base_(base), what_(what) {}
  bool done() const { return pos_ >= msg_.size(); }

  absl::Status Next(Field* f) {
    f->offset = base_ + pos_;
    uint64_t tag = 0;
    EDGEQ_RETURN_IF_ERROR(Varint(&tag));
    f->number = static_cast<uint32_t>(tag >> 3);
    f->wire = static_cast<uint32_t>(tag & 7);
    if (f->number == 0 || tag >> 32 != 0) return Error(f->offset, "field number 0 or above 2^29");
    switch (f->wire) {
      case 0:
        return Varint(&f->varint);
      case 1:
        return Skip(8, f->offset);
      case 2: {
        uint64_t len = 0;
        EDGEQ_RETURN_IF_ERROR(Varint(&len));
        if (len > msg_.size() - pos_) {
          return Error(f->offset, absl::StrCat("a length of ", len, " bytes runs past the end"));
        }
        f->data = msg_.substr(pos_, len);
        pos_ += len;
        return absl::OkStatus();
      }
      case 5: {
        if (msg_.size() - pos_ < 4) return Error(f->offset, "truncated 32-bit field");
        uint8_t b[4];
        std::memcpy(b, msg_.data() + pos_, 4);
        f->fixed32 = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
        pos_ += 4;
        return absl::OkStatus();
      }
      default:
        return Error(f->offset, absl::StrCat("wire type ", f->wire,
                                             " (expected 0, 1, 2 or 5: groups are not read)"));
    }
  }

  absl::Status Error(size_t offset, absl::string_view why) const {
    return absl::InvalidArgumentError(
        absl::StrCat(what_, ": malformed protobuf at byte ", offset, ": ", why));
  }

 private:
  absl::Status Varint(uint64_t* out) {
    const size_t start = base_ + pos_;
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= msg_.size()) return Error(start, "truncated varint");
      const uint8_t b = static_cast<uint8_t>(msg_[pos_++]);
      if (shift == 63 && b > 1) return Error(start, "varint above 2^64");
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return absl::OkStatus();
      }
    }
    return Error(start, "varint longer than 10 bytes");
  }
  absl::Status Skip(size_t n, size_t offset) {
    if (msg_.size() - pos_ < n) return Error(offset, "truncated 64-bit field");
    pos_ += n;
    return absl::OkStatus();
  }

  absl::string_view msg_;
  size_t base_;
  size_t pos_ = 0;
  absl::string_view what_;
};

// The field must have wire type `wire`.
absl::Status Expect(const ProtoReader& r, const Field& f, uint32_t wire, const char* name) {
  if (f.wire == wire) return absl::OkStatus();
  return r.Error(f.offset, absl::StrCat(name, " (field ", f.number, ") has wire type ", f.wire,
                                        ", expected ", wire));
}

size_t OffsetOf(absl::string_view part, absl::string_view whole) {
  return static_cast<size_t>(part.data() - whole.data());
}

absl::Status ParsePiece(absl::string_view file, absl::string_view msg, absl::string_view what,
                        SentencePieceModel::Piece* p) {
  ProtoReader r(msg, OffsetOf(msg, file), what);
  while (!r.done()) {
    Field f;
    EDGEQ_RETURN_IF_ERROR(r.Next(&f));
    if (f.number == 1) {
      EDGEQ_RETURN_IF_ERROR(Expect(r, f, 2, "piece"));
      p->text = std::string(f.data);
    } else if (f.number == 2) {
      EDGEQ_RETURN_IF_ERROR(Expect(r, f, 5, "score"));
      std::memcpy(&p->score, &f.fixed32, 4);
    } else if (f.number == 3) {
      EDGEQ_RETURN_IF_ERROR(Expect(r, f, 0, "type"));
      if (f.varint < 1 || f.varint > 6) {
        return r.Error(f.offset, absl::StrCat("piece type ", f.varint, " (expected 1..6)"));
      }
      p->type = static_cast<int32_t>(f.varint);
    }
  }
  return absl::OkStatus();
}

absl::Status ParseTrainerSpec(absl::string_view file, absl::string_view msg, absl::string_view what,
                              SentencePieceModel* m) {
  ProtoReader r(msg, OffsetOf(msg, file), what);
  while (!r.done()) {
    Field f;
    EDGEQ_RETURN_IF_ERROR(r.Next(&f));
    int32_t* id = nullptr;
    switch (f.number) {
      case 3:
        EDGEQ_RETURN_IF_ERROR(Expect(r, f, 0, "model_type"));
        m->model_type = static_cast<int32_t>(f.varint);
        break;
      case 35:
        EDGEQ_RETURN_IF_ERROR(Expect(r, f, 0, "byte_fallback"));
        m->byte_fallback = f.varint != 0;
        break;
      case 40:
        id = &m->unk_id;
        break;
      case 41:
        id = &m->bos_id;
        break;
      case 42:
        id = &m->eos_id;
        break;
      case 43:
        id = &m->pad_id;
        break;
      default:
        break;
    }
    if (id != nullptr) {
      EDGEQ_RETURN_IF_ERROR(Expect(r, f, 0, "a special token id"));
      // int32 fields: negative values are 10-byte two's complement varints.
      *id = static_cast<int32_t>(static_cast<uint32_t>(f.varint));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseNormalizerSpec(absl::string_view file, absl::string_view msg,
                                 absl::string_view what, SentencePieceModel* m) {
  ProtoReader r(msg, OffsetOf(msg, file), what);
  while (!r.done()) {
    Field f;
    EDGEQ_RETURN_IF_ERROR(r.Next(&f));
    switch (f.number) {
      case 1:
        EDGEQ_RETURN_IF_ERROR(Expect(r, f, 2, "name"));
        m->normalizer_name = std::string(f.data);
        break;
      case 2:
        EDGEQ_RETURN_IF_ERROR(Expect(r, f, 2, "precompiled_charsmap"));
        m->charsmap_bytes = f.data.size();
        break;
      case 3:
      case 4:
      case 5: {
        EDGEQ_RETURN_IF_ERROR(Expect(r, f, 0, "a normalizer flag"));
        bool* flag = f.number == 3   ? &m->add_dummy_prefix
                     : f.number == 4 ? &m->remove_extra_whitespaces
                                     : &m->escape_whitespaces;
        *flag = f.varint != 0;
        break;
      }
      default:
        break;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SentencePieceModel> ParseSentencePieceModel(absl::string_view bytes,
                                                           absl::string_view what) {
  SentencePieceModel m;
  ProtoReader r(bytes, 0, what);
  while (!r.done()) {
    Field f;
    EDGEQ_RETURN_IF_ERROR(r.Next(&f));
    if (f.number == 1) {
      EDGEQ_RETURN_IF_ERROR(Expect(r, f, 2, "pieces"));
      if (m.pieces.size() >= kMaxSentencePiecePieces) {
        return r.Error(f.offset, absl::StrCat("more than ", kMaxSentencePiecePieces, " pieces"));
      }
      m.pieces.emplace_back();
      EDGEQ_RETURN_IF_ERROR(ParsePiece(bytes, f.data, what, &m.pieces.back()));
    } else if (f.number == 2) {
      EDGEQ_RETURN_IF_ERROR(Expect(r, f, 2, "trainer_spec"));
      EDGEQ_RETURN_IF_ERROR(ParseTrainerSpec(bytes, f.data, what, &m));
    } else if (f.number == 3) {
      EDGEQ_RETURN_IF_ERROR(Expect(r, f, 2, "normalizer_spec"));
      EDGEQ_RETURN_IF_ERROR(ParseNormalizerSpec(bytes, f.data, what, &m));
    }
  }
  if (m.pieces.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": no pieces (expected a SentencePiece ModelProto with a vocabulary)"));
  }
  return m;
}

absl::StatusOr<SentencePieceModel> ReadSentencePieceModelFile(const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::string bytes,
                         ReadFileBounded(path, kMaxSentencePieceModelBytes, "tokenizer.model"));
  return ParseSentencePieceModel(bytes, path);
}

}  // namespace tokenizer
}  // namespace edgeq
