// Test helper: whether worker threads can start in this environment.
//
// Dynamically linked aarch64 binaries hang in pthread_create under this machine's qemu-user
// (7.2); on real hardware and on the host threads work. Tests ask UsableThreads(n) for a thread
// count: n where threads start, 1 otherwise (with a note on stderr), so the 2-thread paths are
// covered on the host and the same tests still run (single-threaded) under qemu.
#ifndef EDGEQ_RUNTIME_INTERNAL_TEST_THREADS_H_
#define EDGEQ_RUNTIME_INTERNAL_TEST_THREADS_H_

namespace edgeq {
namespace testing {

// Probes once per process (a forked child starts a 2-thread pthreadpool; 3 s limit).
bool ThreadsWork();

// `threads` if ThreadsWork(), else 1.
int UsableThreads(int threads);

}  // namespace testing
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_INTERNAL_TEST_THREADS_H_
