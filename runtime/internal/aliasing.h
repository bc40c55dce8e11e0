// Which computed values of a graph share bytes, before the arena plan (planner.h) places the
// buffers: a reshape, a slice of whole rows or a concatenation of adjacent parts is a view of the
// bytes it reads (no kernel runs), an element-wise kernel may write its output over an input
// whose bytes nothing reads afterwards (the residual add of a transformer block into its input),
// and the parts of a concatenation are computed into its bytes.
#ifndef EDGEQ_RUNTIME_INTERNAL_ALIASING_H_
#define EDGEQ_RUNTIME_INTERNAL_ALIASING_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/internal/planner.h"

namespace edgeq {
namespace internal {

// One step of a graph in execution order: what it reads and writes (value ids), and what its
// output may share.
struct StepDesc {
  std::vector<int> inputs;
  std::vector<int> outputs;
  // kReshape: the output is input 0's bytes (the step has no kernel); kSlice: input 0's bytes
  // from view_offset; kJoin: the inputs' bytes back to back. A slice or join whose inputs are not
  // where the view needs them runs its kernel instead.
  enum class View { kNone, kReshape, kSlice, kJoin };
  View view = View::kNone;
  size_t view_offset = 0;
  // An input whose bytes (of the output's size) the kernel may write its one output over when no
  // later step reads them (-1: none).
  int overwritable = -1;
};

struct BufferAssignment {
  std::vector<int> buffer_of;     // per value: its buffer, -1 for graph inputs and constants
  std::vector<size_t> offset_of;  // per value: its first byte in its buffer
  std::vector<BufferUse> uses;    // per buffer: its bytes and the steps it is live
  std::vector<char> runs;         // per step: 0 if its output is a view and no kernel runs
  int overwrites = 0;             // outputs written over an input
};

// Buffers for the values the steps compute (value_bytes: per value id), graph `outputs` read
// after the last step. A view shares its source's buffer; an overwriting output takes its input's
// bytes where no later step reads those bytes as any value placed there (the input itself, a
// reshape, a slice or a join covering them); views are made only at offsets that are multiples
// of `alignment`. A value read only by a concatenation (of kernel outputs read by it alone) that
// does not overwrite an input is computed at its place in the concatenation's buffer, made at the
// first part's step, so that the concatenation is a view. Every other output gets its own buffer,
// live from its step to its last reader.
BufferAssignment AssignBuffers(const std::vector<StepDesc>& steps,
                               const std::vector<size_t>& value_bytes,
                               const std::vector<int>& outputs, size_t alignment);

}  // namespace internal
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_INTERNAL_ALIASING_H_
