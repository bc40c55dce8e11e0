// Helpers shared by the embedding tests (llm/embed_test, llm/embed_encoder_test,
// tests/parity/encoder_parity_test): golden files written by the reference programs and the
// cosine the bounds are stated in.
#ifndef EDGEQ_LLM_EMBED_TESTING_H_
#define EDGEQ_LLM_EMBED_TESTING_H_

#include <string>
#include <vector>

namespace edgeq {
namespace llm {

// Whitespace-separated token ids of a text file (empty if it cannot be read).
std::vector<int> ReadTokenIds(const std::string& path);

// `n` little-endian f32 values from the start of `path`; a short or missing file is a test
// failure (EXPECT) naming the path, and the vector keeps its zeros.
std::vector<float> ReadF32Golden(const std::string& path, int n);

// Cosine similarity of two vectors of the same length, in double precision.
double Cosine(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_EMBED_TESTING_H_
