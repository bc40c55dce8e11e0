// Test helper: random strings of a grammar's language, made by walking its rules (choosing
// alternatives and characters at random), to check that the matcher accepts what the grammar
// describes and that JSON grammars only describe JSON.
#ifndef EDGEQ_GRAMMAR_GRAMMAR_WALK_H_
#define EDGEQ_GRAMMAR_GRAMMAR_WALK_H_

#include <cstddef>
#include <random>
#include <string>

#include "grammar/gbnf.h"

namespace edgeq {
namespace grammar {

// One random string matching `g`'s root. Alternatives are chosen uniformly until the output
// passes `soft_max_chars`; from then on each rule takes its shallowest alternative, so the walk
// always ends. Characters favour printable ASCII when a class allows it; surrogates never appear.
std::string RandomWalk(const Grammar& g, std::mt19937* rng, size_t soft_max_chars);

}  // namespace grammar
}  // namespace edgeq

#endif  // EDGEQ_GRAMMAR_GRAMMAR_WALK_H_
