#include "tokenizer/sentencepiece_testing.h"

#include <cstring>

namespace edgeq {
namespace tokenizer {
namespace {

void Varint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
void Tag(uint32_t field, uint32_t wire, std::string* out) { Varint((field << 3) | wire, out); }
void Bytes(uint32_t field, const std::string& data, std::string* out) {
  Tag(field, 2, out);
  Varint(data.size(), out);
  *out += data;
}
void Int(uint32_t field, int64_t v, std::string* out) {
  Tag(field, 0, out);
  Varint(static_cast<uint64_t>(v), out);
}
void Float(uint32_t field, float f, std::string* out) {
  Tag(field, 5, out);
  char b[4];
  std::memcpy(b, &f, 4);  // little-endian host
  out->append(b, 4);
}

}  // namespace

std::string SentencePieceModelProto(const std::vector<std::string>& pieces,
                                    const std::vector<double>& scores,
                                    const std::vector<int64_t>& types,
                                    const SentencePieceSpec& spec) {
  std::string out;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string p;
    Bytes(1, pieces[i], &p);
    Float(2, static_cast<float>(scores[i]), &p);
    if (types[i] != 1) Int(3, types[i], &p);
    Bytes(1, p, &out);
  }
  std::string trainer;
  Int(3, spec.model_type, &trainer);
  Int(35, 1, &trainer);   // byte_fallback
  Int(40, 0, &trainer);   // unk_id
  Int(41, 1, &trainer);   // bos_id
  Int(42, 2, &trainer);   // eos_id
  Int(43, -1, &trainer);  // pad_id: a 10-byte varint
  Bytes(2, trainer, &out);
  std::string norm;
  Bytes(1, spec.normalizer, &norm);
  Int(3, 1, &norm);  // add_dummy_prefix
  Int(4, spec.remove_extra_whitespaces, &norm);
  Int(5, 1, &norm);  // escape_whitespaces
  Bytes(3, norm, &out);
  return out;
}

}  // namespace tokenizer
}  // namespace edgeq
