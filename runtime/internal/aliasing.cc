#include "runtime/internal/aliasing.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace edgeq {
namespace internal {
namespace {

// Bytes [begin, end) of a value read at `step`, counted from the value's first byte.
struct Read {
  int step;
  size_t begin, end;
};

bool Overlap(size_t a0, size_t a1, size_t b0, size_t b1) { return a0 < b1 && b0 < a1; }

class Assigner {
 public:
  Assigner(const std::vector<StepDesc>& steps, const std::vector<size_t>& value_bytes,
           const std::vector<int>& outputs, size_t alignment)
      : steps_(steps), bytes_(value_bytes), alignment_(alignment), reads_(value_bytes.size()) {
    r_.buffer_of.assign(value_bytes.size(), -1);
    r_.offset_of.assign(value_bytes.size(), 0);
    r_.runs.assign(steps.size(), 1);
    // Every read, by step: a slice view reads its bytes of input 0 when it is made.
    for (size_t s = 0; s < steps.size(); ++s) {
      const StepDesc& st = steps[s];
      for (size_t i = 0; i < st.inputs.size(); ++i) {
        const int v = st.inputs[i];
        if (st.view == StepDesc::View::kSlice && i == 0 && st.outputs.size() == 1) {
          const size_t b = st.view_offset;
          reads_[v].push_back({static_cast<int>(s), b, b + bytes_[st.outputs[0]]});
        } else {
          reads_[v].push_back({static_cast<int>(s), 0, bytes_[v]});
        }
      }
    }
    for (int v : outputs) reads_[v].push_back({INT_MAX, 0, bytes_[v]});
    FindPlacements();
  }

  BufferAssignment Run() {
    for (size_t s = 0; s < steps_.size(); ++s) {
      const StepDesc& st = steps_[s];
      const int step = static_cast<int>(s);
      for (int v : st.inputs) {
        const int b = r_.buffer_of[v];
        if (b >= 0) r_.uses[b].last = std::max(r_.uses[b].last, step);
      }
      if (st.outputs.size() == 1 && st.view != StepDesc::View::kNone && TryView(st)) {
        r_.runs[s] = 0;
        continue;
      }
      if (st.outputs.size() == 1 && st.overwritable >= 0 && TryOverwrite(st, step)) {
        ++r_.overwrites;
        continue;
      }
      if (st.outputs.size() == 1 && place_[st.outputs[0]].join >= 0) {
        PlaceInJoin(st.outputs[0], step);
        continue;
      }
      for (int v : st.outputs) {
        r_.buffer_of[v] = static_cast<int>(r_.uses.size());
        r_.uses.push_back({bytes_[v], step, step});
        members_.push_back({v});
      }
    }
    return std::move(r_);
  }

 private:
  // Where a part of a join goes: its join's step and its offset there (join -1: nowhere).
  struct Placement {
    int join = -1;
    size_t offset = 0;
  };

  // The parts of each join that may be computed into the join's bytes: every input of the join is
  // the one output of a kernel step and read by the join alone, at an aligned offset.
  void FindPlacements() {
    std::vector<int> producer(bytes_.size(), -1);
    for (size_t s = 0; s < steps_.size(); ++s) {
      for (int v : steps_[s].outputs) producer[v] = static_cast<int>(s);
    }
    place_.assign(bytes_.size(), Placement());
    join_buffer_.assign(steps_.size(), -1);
    for (size_t s = 0; s < steps_.size(); ++s) {
      const StepDesc& st = steps_[s];
      if (st.view != StepDesc::View::kJoin || st.outputs.size() != 1 || st.inputs.size() < 2) {
        continue;
      }
      bool ok = true;
      size_t offset = 0;
      for (int v : st.inputs) {
        const int p = producer[v];
        ok = ok && p >= 0 && steps_[p].view == StepDesc::View::kNone &&
             steps_[p].outputs.size() == 1 && reads_[v].size() == 1 && offset % alignment_ == 0;
        offset += bytes_[v];
      }
      if (!ok || offset != bytes_[st.outputs[0]]) continue;
      offset = 0;
      for (int v : st.inputs) {
        place_[v] = {static_cast<int>(s), offset};
        offset += bytes_[v];
      }
    }
  }

  // Part v at its offset in its join's buffer (made, join-sized, by the first part).
  void PlaceInJoin(int v, int step) {
    const Placement& pl = place_[v];
    int& b = join_buffer_[pl.join];
    if (b < 0) {
      b = static_cast<int>(r_.uses.size());
      r_.uses.push_back({bytes_[steps_[pl.join].outputs[0]], step, step});
      members_.emplace_back();
    }
    Place(v, b, pl.offset);
  }

  void Place(int v, int b, size_t offset) {
    r_.buffer_of[v] = b;
    r_.offset_of[v] = offset;
    members_[b].push_back(v);
  }

  // The view `st` asks for, if its inputs are where it needs them.
  bool TryView(const StepDesc& st) {
    const int in = st.inputs.empty() ? -1 : st.inputs[0], out = st.outputs[0];
    if (in < 0 || r_.buffer_of[in] < 0) return false;
    const int b = r_.buffer_of[in];
    size_t offset = r_.offset_of[in];
    switch (st.view) {
      case StepDesc::View::kReshape:
        break;
      case StepDesc::View::kSlice:
        offset += st.view_offset;
        if (offset % alignment_ != 0) return false;
        break;
      case StepDesc::View::kJoin: {
        size_t next = offset;
        for (int v : st.inputs) {
          if (r_.buffer_of[v] != b || r_.offset_of[v] != next) return false;
          next += bytes_[v];
        }
        if (next - offset != bytes_[out]) return false;
        break;
      }
      case StepDesc::View::kNone:
        return false;
    }
    Place(out, b, offset);
    return true;
  }

  // The output over input st.overwritable's bytes, if no step after `step` reads them and no other
  // input of the step shares them.
  bool TryOverwrite(const StepDesc& st, int step) {
    const int in = st.inputs[static_cast<size_t>(st.overwritable)], out = st.outputs[0];
    const int b = r_.buffer_of[in];
    if (b < 0 || bytes_[in] != bytes_[out]) return false;
    const size_t lo = r_.offset_of[in], hi = lo + bytes_[in];
    for (int v : st.inputs) {
      if (v != in && r_.buffer_of[v] == b &&
          Overlap(r_.offset_of[v], r_.offset_of[v] + bytes_[v], lo, hi)) {
        return false;
      }
    }
    for (int u : members_[b]) {
      const size_t off = r_.offset_of[u];
      if (!Overlap(off, off + bytes_[u], lo, hi)) continue;
      for (const Read& rd : reads_[u]) {
        if (rd.step > step && Overlap(off + rd.begin, off + rd.end, lo, hi)) return false;
      }
    }
    Place(out, b, lo);
    return true;
  }

  const std::vector<StepDesc>& steps_;
  const std::vector<size_t>& bytes_;
  const size_t alignment_;
  std::vector<std::vector<Read>> reads_;   // per value
  std::vector<std::vector<int>> members_;  // per buffer: the values placed in it
  std::vector<Placement> place_;           // per value
  std::vector<int> join_buffer_;           // per step: a join's buffer, once made
  BufferAssignment r_;
};

}  // namespace

BufferAssignment AssignBuffers(const std::vector<StepDesc>& steps,
                               const std::vector<size_t>& value_bytes,
                               const std::vector<int>& outputs, size_t alignment) {
  return Assigner(steps, value_bytes, outputs, alignment).Run();
}

}  // namespace internal
}  // namespace edgeq
