#include "runtime/internal/aliasing.h"

#include <climits>
#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace internal {
namespace {

using View = StepDesc::View;

StepDesc Kernel(std::vector<int> in, int out, int overwritable = -1) {
  StepDesc s{std::move(in), {out}};
  s.overwritable = overwritable;
  return s;
}

StepDesc Viewing(View view, std::vector<int> in, int out, size_t offset = 0) {
  StepDesc s{std::move(in), {out}};
  s.view = view;
  s.view_offset = offset;
  return s;
}

// Value 0 is a graph input; 1 = f(0); 2 = g(1); 3 = 1 + 2, which may overwrite 1 (its last read).
TEST(AliasingTest, AddOverwritesItsDeadInput) {
  const std::vector<StepDesc> steps = {Kernel({0}, 1), Kernel({1}, 2), Kernel({1, 2}, 3, 0)};
  const BufferAssignment a = AssignBuffers(steps, {64, 64, 64, 64}, {3}, 64);
  EXPECT_EQ(a.buffer_of[0], -1);
  EXPECT_EQ(a.uses.size(), 2u);  // 1 (and 3 over it), 2
  EXPECT_EQ(a.buffer_of[3], a.buffer_of[1]);
  EXPECT_EQ(a.overwrites, 1);
  EXPECT_EQ(a.uses[a.buffer_of[1]].first, 0);
  EXPECT_EQ(a.uses[a.buffer_of[1]].last, 2);
}

// As above, but step 3 reads value 1 again: the add gets a buffer of its own.
TEST(AliasingTest, NoOverwriteWhenTheInputIsReadLater) {
  const std::vector<StepDesc> steps = {Kernel({0}, 1), Kernel({1}, 2), Kernel({1, 2}, 3, 0),
                                       Kernel({1, 3}, 4)};
  const BufferAssignment a = AssignBuffers(steps, {64, 64, 64, 64, 64}, {4}, 64);
  EXPECT_NE(a.buffer_of[3], a.buffer_of[1]);
  EXPECT_EQ(a.overwrites, 0);
  // Nor when the input is a graph output, or read through a reshape view later.
  const std::vector<StepDesc> out = {Kernel({0}, 1), Kernel({1}, 2), Kernel({1, 2}, 3, 0)};
  EXPECT_EQ(AssignBuffers(out, {64, 64, 64, 64}, {1, 3}, 64).overwrites, 0);
  const std::vector<StepDesc> reshaped = {Kernel({0}, 1), Viewing(View::kReshape, {1}, 2),
                                          Kernel({1, 0}, 3, 0), Kernel({2, 3}, 4)};
  const BufferAssignment r = AssignBuffers(reshaped, {64, 64, 64, 64, 64}, {4}, 64);
  EXPECT_EQ(r.buffer_of[2], r.buffer_of[1]);
  EXPECT_EQ(r.runs[1], 0);
  EXPECT_EQ(r.overwrites, 0);
}

// x (value 1, 256 bytes) in two row halves (slice views 2, 3); each half + f(half) written over
// the half (5, 7); their concatenation (8) is x's buffer: one buffer of 256 bytes for x, the
// halves, the sums and the result, and the slices and the concatenation run no kernel.
TEST(AliasingTest, RowChunksAddIntoTheirRowsAndJoin) {
  const std::vector<StepDesc> steps = {Kernel({0}, 1),                      // 0: x
                                       Viewing(View::kSlice, {1}, 2, 0),    // 1: rows 0..
                                       Kernel({2}, 4),                      // 2: f(rows 0..)
                                       Kernel({2, 4}, 5, 0),                // 3: rows 0.. + f
                                       Viewing(View::kSlice, {1}, 3, 128),  // 4: rows ..end
                                       Kernel({3}, 6),                      // 5: f(rows ..end)
                                       Kernel({3, 6}, 7, 0),                // 6: rows ..end + f
                                       Viewing(View::kJoin, {5, 7}, 8)};    // 7: concat
  const std::vector<size_t> bytes = {256, 256, 128, 128, 128, 128, 128, 128, 256};
  const BufferAssignment a = AssignBuffers(steps, bytes, {8}, 64);
  const int x = a.buffer_of[1];
  for (int v : {2, 3, 5, 7, 8}) EXPECT_EQ(a.buffer_of[v], x) << v;
  EXPECT_EQ(a.offset_of[3], 128u);
  EXPECT_EQ(a.offset_of[7], 128u);
  EXPECT_EQ(a.offset_of[8], 0u);
  EXPECT_EQ(a.overwrites, 2);
  EXPECT_EQ(a.uses[x].size, 256u);
  EXPECT_EQ(a.uses.size(), 3u);  // x, f of each half
  const std::vector<char> runs = {1, 0, 1, 1, 0, 1, 1, 0};
  EXPECT_EQ(a.runs, runs);
}

// The first half's sum may not overwrite its rows while a later slice still reads them (a second
// slice of rows 0.. made after the add), nor may a slice at an unaligned offset be a view.
TEST(AliasingTest, LaterReadsOfTheRowsAndUnalignedSlices) {
  const std::vector<StepDesc> steps = {
      Kernel({0}, 1),       Viewing(View::kSlice, {1}, 2, 0), Kernel({2}, 4),
      Kernel({2, 4}, 5, 0), Viewing(View::kSlice, {1}, 3, 0), Kernel({3, 5}, 6)};
  const std::vector<size_t> bytes = {256, 256, 128, 128, 128, 128, 128};
  const BufferAssignment a = AssignBuffers(steps, bytes, {6}, 64);
  EXPECT_NE(a.buffer_of[5], a.buffer_of[1]);
  EXPECT_EQ(a.overwrites, 0);
  const std::vector<StepDesc> unaligned = {Kernel({0}, 1), Viewing(View::kSlice, {1}, 2, 32)};
  const BufferAssignment u = AssignBuffers(unaligned, {256, 256, 32}, {2}, 64);
  EXPECT_NE(u.buffer_of[2], u.buffer_of[1]);
  EXPECT_EQ(u.runs[1], 1);
}

// Parts read only by a concatenation are computed into its buffer (made at the first part's
// step), and the concatenation is a view; a part also read elsewhere keeps the copy.
TEST(AliasingTest, PartsAreComputedIntoTheirConcatenation) {
  const std::vector<StepDesc> steps = {Kernel({0}, 1), Kernel({1}, 2), Kernel({0}, 3),
                                       Kernel({3}, 4), Viewing(View::kJoin, {2, 4}, 5)};
  const std::vector<size_t> bytes = {64, 64, 128, 64, 128, 256};
  const BufferAssignment a = AssignBuffers(steps, bytes, {5}, 64);
  const int j = a.buffer_of[5];
  EXPECT_EQ(a.buffer_of[2], j);
  EXPECT_EQ(a.buffer_of[4], j);
  EXPECT_EQ(a.offset_of[4], 128u);
  EXPECT_EQ(a.uses[j].size, 256u);
  EXPECT_EQ(a.uses[j].first, 1);
  EXPECT_EQ(a.runs[4], 0);
  const BufferAssignment copy = AssignBuffers(steps, bytes, {5, 2}, 64);
  EXPECT_EQ(copy.runs[4], 1);
  EXPECT_NE(copy.buffer_of[5], copy.buffer_of[2]);
}

}  // namespace
}  // namespace internal
}  // namespace edgeq
