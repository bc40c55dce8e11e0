// Model::SequenceTensors: the per-sequence state tensors, listed by name for llm/state_file.h.
// Kept apart from model.cc so that a new kind of state (recurrent layers) adds its rows here.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llm/model.h"

namespace edgeq {
namespace llm {

std::vector<Model::SequenceTensor> Model::SequenceTensors() {
  std::vector<SequenceTensor> list;
  for (size_t l = 0; l < k_cache_.size(); ++l) {
    list.push_back({absl::StrCat("k_cache.", l), &k_cache_[l], 1});
    list.push_back({absl::StrCat("v_cache.", l), &v_cache_[l], 1});
  }
  // The recurrent states (conv windows, delta-rule matrices): whole tensors, after n_past.
  for (size_t s = 0; s < states_.size(); ++s) {
    list.push_back({absl::StrCat("state.", s), &states_[s], -1});
  }
  return list;
}

}  // namespace llm
}  // namespace edgeq
