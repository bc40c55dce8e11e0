#include "grammar/grammar_walk.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace edgeq {
namespace grammar {
namespace {

// height[r]: the least derivation depth of rule r (a character has depth 0). Choosing the
// alternative of least height strictly lowers the height, so a walk that does it ends.
std::vector<int> Heights(const Grammar& g) {
  constexpr int kInf = std::numeric_limits<int>::max() / 2;
  std::vector<int> h(g.rule_count(), kInf);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t r = 0; r < g.rule_count(); ++r) {
      for (uint32_t start : g.alternatives(r)) {
        int alt = 0;
        for (uint32_t i = start; g.elements()[i].kind != ElementKind::kEnd; ++i) {
          if (g.elements()[i].kind == ElementKind::kRule) {
            alt = std::max(alt, h[g.elements()[i].value]);
          }
        }
        if (alt < kInf && alt + 1 < h[r]) h[r] = alt + 1, changed = true;
      }
    }
  }
  return h;
}

int AltHeight(const Grammar& g, const std::vector<int>& h, uint32_t start) {
  int alt = 0;
  for (uint32_t i = start; g.elements()[i].kind != ElementKind::kEnd; ++i) {
    if (g.elements()[i].kind == ElementKind::kRule) alt = std::max(alt, h[g.elements()[i].value]);
  }
  return alt;
}

char32_t PickChar(const CharSet& set, std::mt19937* rng) {
  std::uniform_real_distribution<double> coin(0, 1);
  if (coin(*rng) < 0.8) {
    std::vector<char32_t> ascii;
    for (char32_t c = 0x20; c < 0x7F; ++c) {
      if (set.Contains(c)) ascii.push_back(c);
    }
    if (!ascii.empty()) return ascii[(*rng)() % ascii.size()];
  }
  for (int attempt = 0; attempt < 64; ++attempt) {
    const auto& r = set.ranges()[(*rng)() % set.ranges().size()];
    const char32_t c = r.first + static_cast<char32_t>((*rng)() % (r.second - r.first + 1));
    if (c < 0xD800 || c > 0xDFFF) return c;
  }
  return set.ranges()[0].first;
}

}  // namespace

std::string RandomWalk(const Grammar& g, std::mt19937* rng, size_t soft_max_chars) {
  const std::vector<int> heights = Heights(g);
  std::string out;
  // Positions still to produce, the next on top.
  std::vector<uint32_t> todo;
  auto push_alt = [&](uint32_t start) {
    uint32_t end = start;
    while (g.elements()[end].kind != ElementKind::kEnd) ++end;
    for (uint32_t i = end; i > start; --i) todo.push_back(i - 1);
  };
  auto choose = [&](uint32_t rule) {
    const std::vector<uint32_t>& alts = g.alternatives(rule);
    if (out.size() < soft_max_chars) return alts[(*rng)() % alts.size()];
    uint32_t best = alts[0];
    for (uint32_t a : alts) {
      if (AltHeight(g, heights, a) < AltHeight(g, heights, best)) best = a;
    }
    return best;
  };
  push_alt(choose(g.root()));
  while (!todo.empty()) {
    const Element e = g.elements()[todo.back()];
    todo.pop_back();
    if (e.kind == ElementKind::kChars) {
      AppendUtf8(PickChar(g.char_set(e.value), rng), &out);
    } else {
      push_alt(choose(e.value));
    }
  }
  return out;
}

}  // namespace grammar
}  // namespace edgeq
