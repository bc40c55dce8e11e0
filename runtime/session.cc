#include "runtime/session.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "pthreadpool.h"
#include "runtime/custom_op.h"
#include "runtime/internal/aliasing.h"
#include "runtime/internal/op_kernels.h"
#include "runtime/internal/planner.h"

namespace edgeq {

// ---- TensorMap ----

absl::StatusOr<Tensor> TensorMap::Get(absl::string_view name) const {
  if (entries_ != nullptr) {
    for (const auto& entry : *entries_) {
      if (entry.first == name) return entry.second;
    }
  }
  std::vector<std::string> names;
  if (entries_ != nullptr) {
    for (const auto& entry : *entries_) names.push_back(entry.first);
  }
  return absl::NotFoundError(
      absl::StrCat("no output named \"", name,
                   "\" (outputs: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
}

const TensorMap::Entries& TensorMap::entries() const {
  static const Entries* empty = new Entries();
  return entries_ == nullptr ? *empty : *entries_;
}

// ---- ActivationArena ----

ActivationArena::~ActivationArena() {
  for (Region* r : {&activations_, &scratch_}) {
    if (r->data != nullptr) munmap(r->data, r->bytes);
  }
}

absl::Status ActivationArena::Grow(Region* r, size_t bytes) {
  if (r->data != nullptr && bytes <= r->bytes) return absl::OkStatus();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t rounded = std::max<size_t>(page, (bytes + page - 1) / page * page);
  // The old buffer goes first: nothing in it is live between runs, and the two never coexist.
  if (r->data != nullptr) munmap(r->data, r->bytes);
  r->data = nullptr;
  r->bytes = 0;
  void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "activation arena: cannot map %d bytes (%s)", rounded, std::strerror(errno)));
  }
  r->data = p;
  r->bytes = rounded;
  return absl::OkStatus();
}

absl::Status ActivationArena::Reserve(size_t activation_bytes, size_t scratch_bytes) {
  const Region before_a = activations_, before_s = scratch_;
  EDGEQ_RETURN_IF_ERROR(Grow(&activations_, activation_bytes));
  EDGEQ_RETURN_IF_ERROR(Grow(&scratch_, scratch_bytes));
  if (activations_.bytes != before_a.bytes || scratch_.bytes != before_s.bytes ||
      activations_.data != before_a.data || scratch_.data != before_s.data) {
    ++generation_;
  }
  return absl::OkStatus();
}

// ---- CompiledGraph ----

struct CompiledGraph::Impl {
  std::string graph_name;
  std::shared_ptr<void> pool;              // keeps the session's pthreadpool alive
  std::vector<Tensor> constants;           // keeps the weights alive
  std::shared_ptr<ActivationArena> arena;  // intermediates, outputs and scratch (maybe shared)
  uint64_t bound_generation = 0;           // the arena's generation the slots point into
  std::vector<size_t> buffer_offsets;      // per planned buffer, in the arena
  // Per value computed into the arena (views included) and per output copy: (slot, buffer, byte
  // offset in the buffer).
  std::vector<std::tuple<int, int, size_t>> places;
  std::vector<int> output_slots;          // per graph output, its slot
  std::vector<TensorType> output_types;   // per graph output
  std::vector<std::string> output_names;  // per graph output
  std::vector<void*> slots;
  std::vector<std::unique_ptr<internal::OpKernel>> kernels;
  std::vector<std::string> kernel_labels;                 // "%2 = qmatmul"
  std::vector<CompiledGraph::ConstantUse> constant_uses;  // one per constant a kernel reads
  void RecordConstantUse(const Tensor& t, bool copied);
  // RecordConstantUse for each constant input of `node` (its kernel `kernel`), and
  // options.on_constant_copied for those the kernel copies.
  void RecordConstantInputs(const Graph& graph, const Node& node, const internal::OpKernel& kernel,
                            const SessionOptions& options);
  // Load's last step: the arena (planned over `uses`, one per buffer; `places` as above), the
  // constants' slots, the scratch and the output views (output i in slot output_slots[i]).
  absl::Status AllocateMemory(const Graph& graph, const std::vector<internal::BufferUse>& uses,
                              int num_slots, const std::vector<int>& output_slots);
  // Points the planned slots and the output views into the arena's current buffer (at Load, and
  // at Execute after a Load of another CompiledGraph grew the shared arena).
  absl::Status Bind();
  bool profiling = false;
  std::vector<int64_t> profile_calls;   // per kernel, while profiling
  std::vector<double> profile_seconds;  // per kernel, while profiling
  std::vector<std::string> input_names;
  std::vector<TensorType> input_types;
  std::vector<int> input_ids;
  std::vector<char> input_written;  // per input: a kernel writes it in place
  std::vector<char> given;          // per input, reused by Execute
  std::shared_ptr<TensorMap::Entries> outputs;
  size_t arena_bytes = 0;
  size_t scratch_bytes = 0;
  size_t unplanned_bytes = 0;
  size_t constant_bytes = 0;
};

absl::Status CompiledGraph::Impl::AllocateMemory(const Graph& graph,
                                                 const std::vector<internal::BufferUse>& uses,
                                                 int num_slots,
                                                 const std::vector<int>& output_slots_of) {
  const std::vector<Node>& nodes = graph.nodes();
  // The plan: buffers with disjoint lifetimes share bytes.
  const internal::ArenaPlan plan = internal::PlanArena(uses, kTensorAlignment);
  for (const internal::BufferUse& u : uses) unplanned_bytes += u.size;
  arena_bytes = plan.total_bytes;
  buffer_offsets = plan.offsets;
  output_slots = output_slots_of;
  // Scratch (shared by all kernels: they run one after another).
  for (const auto& kernel : kernels) {
    scratch_bytes = std::max(scratch_bytes, kernel->ScratchBytes());
  }
  EDGEQ_RETURN_IF_ERROR(arena->Reserve(arena_bytes, scratch_bytes));
  slots.assign(num_slots, nullptr);
  for (const Node& node : nodes) {
    if (node.kind == NodeKind::kConstant) {
      slots[node.outputs[0]] = const_cast<void*>(node.constant.raw_data());
    }
  }
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    output_types.push_back(graph.value_type(graph.outputs()[i]).type);
    output_names.push_back(graph.output_name(static_cast<int>(i)));
  }
  return Bind();
}

absl::Status CompiledGraph::Impl::Bind() {
  uint8_t* base = static_cast<uint8_t*>(arena->activations_.data);
  for (const auto& [slot, b, offset] : places) slots[slot] = base + buffer_offsets[b] + offset;
  // Output tensors: views of the arena, built once per arena buffer; they keep the arena alive.
  auto entries = std::make_shared<TensorMap::Entries>();
  const std::shared_ptr<const void> owner = arena;
  for (size_t i = 0; i < output_types.size(); ++i) {
    const TensorType& t = output_types[i];
    const size_t bytes = t.shape.num_elements() * DTypeSize(t.dtype);
    EDGEQ_ASSIGN_OR_RETURN(
        Tensor view, Tensor::View(t.dtype, t.shape, slots[output_slots[i]], bytes, owner, true));
    entries->emplace_back(output_names[i], std::move(view));
  }
  outputs = std::move(entries);
  bound_generation = arena->generation_;
  return absl::OkStatus();
}

CompiledGraph::CompiledGraph(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledGraph::CompiledGraph(CompiledGraph&&) noexcept = default;
CompiledGraph& CompiledGraph::operator=(CompiledGraph&&) noexcept = default;
CompiledGraph::~CompiledGraph() = default;

size_t CompiledGraph::arena_bytes() const { return impl_->arena_bytes; }
size_t CompiledGraph::scratch_bytes() const { return impl_->scratch_bytes; }
size_t CompiledGraph::unplanned_bytes() const { return impl_->unplanned_bytes; }
size_t CompiledGraph::constant_bytes() const { return impl_->constant_bytes; }

std::string CompiledGraph::DebugString() const {
  std::string out = absl::StrFormat(
      "model \"%s\": %d kernels, arena %d bytes (%d without reuse), scratch %d bytes, "
      "constants %d bytes\n",
      impl_->graph_name, impl_->kernels.size(), impl_->arena_bytes, impl_->unplanned_bytes,
      impl_->scratch_bytes, impl_->constant_bytes);
  for (size_t i = 0; i < impl_->kernels.size(); ++i) {
    absl::StrAppendFormat(&out, "  %s -> %s\n", impl_->kernel_labels[i], impl_->kernels[i]->name());
  }
  return out;
}

absl::StatusOr<TensorMap> CompiledGraph::Execute(absl::Span<const NamedTensor> inputs) {
  Impl& m = *impl_;
  const size_t num_inputs = m.input_ids.size();
  if (inputs.size() != num_inputs) {
    std::vector<std::string> expected;
    for (size_t i = 0; i < num_inputs; ++i) {
      expected.push_back(absl::StrCat(m.input_names[i], ": ", m.input_types[i].ToString()));
    }
    return absl::InvalidArgumentError(
        absl::StrFormat("Execute: %d inputs given, but graph \"%s\" takes %d (%s)", inputs.size(),
                        m.graph_name, num_inputs, absl::StrJoin(expected, ", ")));
  }
  std::fill(m.given.begin(), m.given.end(), 0);
  for (const NamedTensor& in : inputs) {
    size_t i = 0;
    while (i < num_inputs && m.input_names[i] != in.name) ++i;
    if (i == num_inputs) {
      return absl::InvalidArgumentError(
          absl::StrFormat("Execute: graph \"%s\" has no input named \"%s\" (inputs: %s)",
                          m.graph_name, in.name, absl::StrJoin(m.input_names, ", ")));
    }
    if (m.given[i]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("Execute: input \"%s\" is given twice", in.name));
    }
    m.given[i] = 1;
    const Tensor& t = *in.tensor;
    const TensorType& want = m.input_types[i];
    if (t.dtype() != want.dtype || t.shape() != want.shape || t.is_quantized()) {
      return absl::InvalidArgumentError(absl::StrFormat("Execute: input \"%s\" must be %s, got %s",
                                                        in.name, want.ToString(), t.DebugString()));
    }
    if (m.input_written[i] && !t.writable()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "Execute: input \"%s\" is written in place by the graph and must be a writable tensor, "
          "got a read-only view",
          in.name));
    }
    m.slots[m.input_ids[i]] = const_cast<void*>(t.raw_data());
  }
  if (m.bound_generation != m.arena->generation_) {
    EDGEQ_RETURN_IF_ERROR(m.Bind());  // another CompiledGraph's Load grew the shared arena
  }
  const internal::ExecContext ctx{m.slots.data(), static_cast<pthreadpool_t>(m.pool.get()),
                                  m.arena->scratch_.data};
  if (!m.profiling) {
    for (const auto& kernel : m.kernels) {
      EDGEQ_RETURN_IF_ERROR(kernel->Run(ctx));
    }
    return TensorMap(m.outputs);
  }
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    EDGEQ_RETURN_IF_ERROR(m.kernels[i]->Run(ctx));
    m.profile_seconds[i] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++m.profile_calls[i];
  }
  return TensorMap(m.outputs);
}

void CompiledGraph::Impl::RecordConstantUse(const Tensor& t, bool copied) {
  for (ConstantUse& u : constant_uses) {
    if (u.data == t.raw_data() && u.bytes == t.size_bytes()) {
      u.copied = u.copied && copied;
      return;
    }
  }
  constant_uses.push_back({t.raw_data(), t.size_bytes(), copied});
}

void CompiledGraph::Impl::RecordConstantInputs(const Graph& graph, const Node& node,
                                               const internal::OpKernel& kernel,
                                               const SessionOptions& options) {
  for (size_t p = 0; p < node.inputs.size(); ++p) {
    const Node& producer = graph.nodes()[graph.producer(node.inputs[p])];
    if (producer.kind != NodeKind::kConstant) continue;
    const bool copied = kernel.CopiesConstantInput(static_cast<int>(p));
    RecordConstantUse(producer.constant, copied);
    if (copied && options.on_constant_copied) {
      options.on_constant_copied(producer.constant.raw_data(), producer.constant.size_bytes());
    }
  }
}

std::vector<CompiledGraph::ConstantUse> CompiledGraph::ConstantUses() const {
  return impl_->constant_uses;
}

void CompiledGraph::EnableProfiling(bool on) {
  impl_->profiling = on;
  impl_->profile_calls.resize(impl_->kernels.size(), 0);
  impl_->profile_seconds.resize(impl_->kernels.size(), 0.0);
}

std::vector<CompiledGraph::KernelTime> CompiledGraph::Profile() const {
  std::vector<KernelTime> rows;
  for (size_t i = 0; i < impl_->kernels.size(); ++i) {
    KernelTime r;
    r.label = impl_->kernel_labels[i];
    r.kernel = impl_->kernels[i]->name();
    if (i < impl_->profile_calls.size()) {
      r.calls = impl_->profile_calls[i];
      r.seconds = impl_->profile_seconds[i];
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

void CompiledGraph::ResetProfile() {
  std::fill(impl_->profile_calls.begin(), impl_->profile_calls.end(), 0);
  std::fill(impl_->profile_seconds.begin(), impl_->profile_seconds.end(), 0.0);
}

// ---- InferenceSession ----

namespace {

// OkStatus if this process can create `n` more threads (with default attributes, as
// pthreadpool does) right now: they are created, wait until all exist, and are joined.
// pthreadpool_create ignores a failed pthread_create and then waits forever for the missing
// worker (Debian's pthreadpool 0.0~git20210507), so a thread count the address space or the
// process limits cannot hold must be refused before it is called.
absl::Status ProbeThreads(int n) {
  struct Gate {
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
    bool open = false;
  } gate;
  auto wait = [](void* arg) -> void* {
    Gate* g = static_cast<Gate*>(arg);
    pthread_mutex_lock(&g->mu);
    while (!g->open) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    return nullptr;
  };
  std::vector<pthread_t> threads;
  threads.reserve(static_cast<size_t>(n));
  int err = 0;
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    err = pthread_create(&t, nullptr, wait, &gate);
    if (err != 0) break;
    threads.push_back(t);
  }
  pthread_mutex_lock(&gate.mu);
  gate.open = true;
  pthread_cond_broadcast(&gate.cv);
  pthread_mutex_unlock(&gate.mu);
  for (pthread_t t : threads) pthread_join(t, nullptr);
  if (err != 0) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "SessionOptions.num_threads = %d: cannot create %d worker threads (pthread_create failed "
        "after %d: %s); ask for fewer threads",
        n + 1, n, threads.size(), std::strerror(err)));
  }
  return absl::OkStatus();
}

// OkStatus if every input `kernel` writes in place is a graph input (recorded in `written`);
// InvalidArgument naming the op and the input otherwise (a constant, e.g. mapped weights, or a
// computed value must not be overwritten).
absl::Status CheckInPlaceInputs(const Graph& graph, const Node& node,
                                const internal::OpKernel& kernel, std::set<int>* written) {
  for (int p : kernel.InPlaceInputs()) {
    const int id = node.inputs[static_cast<size_t>(p)];
    if (graph.nodes()[graph.producer(id)].kind != NodeKind::kInput) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "graph \"%s\": %s writes its input %d (%%%d) in place; it must be a graph input, not a "
          "constant or a computed value",
          graph.name(), node.op, p, id));
    }
    written->insert(id);
  }
  return absl::OkStatus();
}

// The bytes of value `id`.
size_t ValueBytes(const Graph& graph, int id) {
  const TensorType& t = graph.value_type(id).type;
  return static_cast<size_t>(t.shape.num_elements()) * DTypeSize(t.dtype);
}

// True if `node` is a reshape of a value computed by an earlier step (computed[input]): a view of
// that value's bytes, with no kernel (a reshape of a graph input or a constant copies it).
bool IsReshapeView(const Node& node, const std::vector<char>& computed) {
  return node.kind == NodeKind::kOp && node.op == "reshape" && node.inputs.size() == 1 &&
         node.outputs.size() == 1 && computed[node.inputs[0]] && node.def != nullptr &&
         !node.def->custom;
}

// What `kernel` lets its output share (OpKernel::ViewOffset, JoinsInputs, OverwritableInput).
void DescribeSharing(const internal::OpKernel& kernel, internal::StepDesc* step) {
  if (step->outputs.size() != 1) return;
  if (kernel.ViewOffset() >= 0) {
    step->view = internal::StepDesc::View::kSlice;
    step->view_offset = static_cast<size_t>(kernel.ViewOffset());
  } else if (kernel.JoinsInputs()) {
    step->view = internal::StepDesc::View::kJoin;
  }
  step->overwritable = kernel.OverwritableInput();
}

// The environment the kernels of a session's graphs are created in.
internal::KernelEnv MakeKernelEnv(const SessionOptions& options, void* pool, bool xnnpack,
                                  internal::PreparedWeightCache* weight_cache) {
  internal::KernelEnv env;
  env.pool = static_cast<pthreadpool_t>(pool);
  env.isa_cap = options.isa_cap;
  env.on_constant_bytes_read = options.on_constant_bytes_read;
  env.on_constant_row_read = options.on_constant_row_read;
  env.use_xnnpack = xnnpack;
  env.weight_cache = weight_cache;
  return env;
}

}  // namespace

InferenceSession::InferenceSession(SessionOptions options)
    : options_(options), weight_cache_(std::make_shared<internal::PreparedWeightCache>()) {
  if (options_.num_threads > kMaxSessionThreads) {
    pool_status_ = absl::InvalidArgumentError(
        absl::StrFormat("SessionOptions.num_threads must be in [1, %d], got %d", kMaxSessionThreads,
                        options_.num_threads));
  } else if (options_.num_threads > 1) {
    pool_status_ = ProbeThreads(options_.num_threads - 1);
    pthreadpool_t pool =
        pool_status_.ok() ? pthreadpool_create(static_cast<size_t>(options_.num_threads)) : nullptr;
    if (pool_status_.ok() && pool == nullptr) {
      pool_status_ = absl::ResourceExhaustedError(absl::StrFormat(
          "SessionOptions.num_threads = %d: pthreadpool_create failed", options_.num_threads));
    } else if (pool != nullptr) {
      pool_ = std::shared_ptr<void>(
          pool, [](void* p) { pthreadpool_destroy(static_cast<pthreadpool_t>(p)); });
    }
  }
  if (options_.use_xnnpack) {
    absl::Status xnn = internal::InitializeXnnpack();
    xnnpack_enabled_ = xnn.ok();
    if (!xnn.ok()) {
      log_.push_back(absl::StrCat("XNNPACK unavailable (", xnn.message(),
                                  "): f32 matmul uses the portable loop"));
    }
  } else {
    log_.push_back("XNNPACK disabled by SessionOptions: f32 matmul uses the portable loop");
  }
}

InferenceSession::~InferenceSession() = default;

int64_t InferenceSession::prepared_weight_reuses() const { return weight_cache_->reuses(); }

uint64_t InferenceSession::prepared_weight_bytes() const { return weight_cache_->copy_bytes(); }

absl::StatusOr<CompiledGraph> InferenceSession::Load(const Graph& graph) {
  return Load(graph, nullptr);
}

absl::StatusOr<CompiledGraph> InferenceSession::Load(const Graph& graph,
                                                     std::shared_ptr<ActivationArena> arena) {
  EDGEQ_RETURN_IF_ERROR(graph.status());
  if (options_.num_threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("SessionOptions.num_threads must be >= 1, got %d", options_.num_threads));
  }
  EDGEQ_RETURN_IF_ERROR(pool_status_);
  if (graph.outputs().empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("graph \"%s\" has no outputs (call Graph::Output)", graph.name()));
  }
  const std::vector<Node>& nodes = graph.nodes();
  const int num_values = graph.num_values();

  // Every custom op must be registered, also in parts of the graph no output needs (one not
  // registered when the graph was built has no OpDef yet).
  for (const Node& node : nodes) {
    if (node.kind == NodeKind::kOp && node.def == nullptr) {
      EDGEQ_RETURN_IF_ERROR(CustomOpRegistry::Global().Find(node.op).status());
    }
  }

  // Nodes that some output depends on.
  std::vector<char> live(nodes.size(), 0);
  for (int id : graph.outputs()) live[graph.producer(id)] = 1;
  for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) {
    if (!live[i]) continue;
    for (int id : nodes[i].inputs) live[graph.producer(id)] = 1;
  }

  auto impl = std::make_unique<CompiledGraph::Impl>();
  impl->graph_name = graph.name();
  impl->pool = pool_;
  impl->arena = arena != nullptr ? std::move(arena) : std::make_shared<ActivationArena>();
  const internal::KernelEnv env =
      MakeKernelEnv(options_, pool_.get(), xnnpack_enabled_, weight_cache_.get());

  // Steps: one per live op in order, with its kernel (none for a reshape view); then their
  // buffers (views and overwriting outputs share them: internal::AssignBuffers), plus one per
  // output that is a graph input or a constant (copied at the end so that outputs always live in
  // the arena).
  std::vector<internal::StepDesc> steps;
  std::vector<std::unique_ptr<internal::OpKernel>> step_kernels;
  std::vector<char> computed(num_values, 0);
  std::vector<size_t> value_bytes(num_values, 0);
  std::set<int> written;  // graph inputs some kernel writes in place
  for (const Node& node : nodes) {
    if (node.kind == NodeKind::kInput) {
      impl->input_ids.push_back(node.outputs[0]);
      impl->input_names.push_back(graph.input_name(node.input_index));
      impl->input_types.push_back(graph.value_type(node.outputs[0]).type);
      continue;
    }
    const bool constant = node.kind == NodeKind::kConstant;
    if (constant || !live[&node - nodes.data()]) {
      if (constant && live[&node - nodes.data()]) {
        impl->constants.push_back(node.constant);
        impl->constant_bytes += node.constant.size_bytes();
      }
      continue;
    }
    internal::StepDesc step{node.inputs, node.outputs};
    for (int id : node.inputs) value_bytes[id] = ValueBytes(graph, id);
    for (int id : node.outputs) value_bytes[id] = ValueBytes(graph, id);
    std::unique_ptr<internal::OpKernel> kernel;
    if (IsReshapeView(node, computed)) {
      step.view = internal::StepDesc::View::kReshape;
    } else {
      EDGEQ_ASSIGN_OR_RETURN(kernel, internal::CreateOpKernel(graph, node, env));
      EDGEQ_RETURN_IF_ERROR(CheckInPlaceInputs(graph, node, *kernel, &written));
      impl->RecordConstantInputs(graph, node, *kernel, options_);
      DescribeSharing(*kernel, &step);
    }
    for (int id : node.outputs) computed[id] = 1;
    steps.push_back(std::move(step));
    step_kernels.push_back(std::move(kernel));
  }
  impl->given.assign(impl->input_ids.size(), 0);
  for (int id : impl->input_ids) impl->input_written.push_back(written.count(id) > 0 ? 1 : 0);
  for (int id : graph.outputs()) value_bytes[id] = ValueBytes(graph, id);
  internal::BufferAssignment assigned =
      internal::AssignBuffers(steps, value_bytes, graph.outputs(), kTensorAlignment);
  for (int id = 0; id < num_values; ++id) {
    if (assigned.buffer_of[id] >= 0) {
      impl->places.emplace_back(id, assigned.buffer_of[id], assigned.offset_of[id]);
    }
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    if (!assigned.runs[s] || step_kernels[s] == nullptr) continue;
    std::vector<std::string> outs;
    for (int id : steps[s].outputs) outs.push_back(absl::StrCat("%", id));
    impl->kernel_labels.push_back(absl::StrCat(absl::StrJoin(outs, ", "), " = ",
                                               nodes[graph.producer(steps[s].outputs[0])].op));
    impl->kernels.push_back(std::move(step_kernels[s]));
  }

  // Outputs: values in the arena live to the end; inputs/constants are copied.
  std::vector<internal::BufferUse>& uses = assigned.uses;
  std::vector<int> output_slots;
  int num_slots = num_values;
  for (int id : graph.outputs()) {
    if (assigned.buffer_of[id] >= 0) {
      uses[assigned.buffer_of[id]].last = INT_MAX;
      output_slots.push_back(id);
      continue;
    }
    const Node& producer = nodes[graph.producer(id)];
    if (producer.kind == NodeKind::kConstant) impl->RecordConstantUse(producer.constant, false);
    const int slot = num_slots++;
    impl->places.emplace_back(slot, static_cast<int>(uses.size()), 0);
    uses.push_back({value_bytes[id], static_cast<int>(steps.size()), INT_MAX});
    impl->kernels.push_back(internal::CreateCopyKernel(id, slot, value_bytes[id]));
    impl->kernel_labels.push_back(absl::StrCat("output = copy(%", id, ")"));
    output_slots.push_back(slot);
  }

  EDGEQ_RETURN_IF_ERROR(impl->AllocateMemory(graph, uses, num_slots, output_slots));
  return CompiledGraph(std::move(impl));
}

}  // namespace edgeq
