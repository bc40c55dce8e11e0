#include "runtime/internal/test_threads.h"

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <thread>

#include "pthreadpool.h"

namespace edgeq {
namespace testing {

bool ThreadsWork() {
  static const bool works = [] {
    const pid_t pid = fork();
    if (pid == 0) {
      pthreadpool_t pool = pthreadpool_create(2);
      int hits[4] = {0, 0, 0, 0};
      pthreadpool_parallelize_1d(
          pool, [](void* c, size_t i) { static_cast<int*>(c)[i] = 1; }, hits, 4, 0);
      pthreadpool_destroy(pool);
      _exit(hits[0] + hits[1] + hits[2] + hits[3] == 4 ? 0 : 1);
    }
    if (pid < 0) return false;
    for (int i = 0; i < 60; ++i) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    std::fprintf(stderr,
                 "NOTE: threads cannot start here (qemu-user); multi-thread runs use 1 thread\n");
    return false;
  }();
  return works;
}

int UsableThreads(int threads) { return ThreadsWork() ? threads : 1; }

}  // namespace testing
}  // namespace edgeq
