// A qemu TCG plugin (plugin API v1, qemu 7.2) that counts the guest instructions executed between
// two marker NOPs and prints one count per marked region when the guest exits.
//
//   qemu-aarch64 -plugin file=libcount.so [-d plugin] ./guest
//
// Markers (AArch64 HINT instructions that the architecture defines as NOPs):
//   hint #126  = 0xd5032fdf  start of a region
//   hint #127  = 0xd5032fff  end of a region
// (HINT #imm7 is 0xd503201f | imm7 << 5.) The count of a region is the number of instructions
// executed after its start marker and before its end marker; the markers themselves are not
// counted. Output, one line per region in execution order, then a summary line:
//   arm_sim: region <index> insns <count>
//   arm_sim: regions <n> errors <e>
// Errors (a start inside a region, an end outside one, a region open at exit) are reported as
// "arm_sim: error ..." lines and counted.
//
// Method: every translated block adds its instruction count to one counter when it starts
// executing (an inline add, cheap), and only the marker instructions get a callback. A callback
// knows how many instructions of its block follow the marker (fixed at translation) and
// subtracts them, since the block's add already counted them. This is exact as long as blocks run
// to their end, which holds for user-mode code that takes no signals inside a region. One vCPU
// (a single-threaded guest) is assumed; the counter is not per-thread.
//
// Debian ships no qemu-plugin.h, so the few declarations used are written out below from the
// documented plugin C ABI of qemu 7.2 (include/qemu/qemu-plugin.h, QEMU_PLUGIN_VERSION 1).
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- qemu plugin API v1 (qemu 7.2) ----
#ifdef __cplusplus
extern "C" {
#endif
typedef uint64_t qemu_plugin_id_t;
struct qemu_info_t;  // read only through its pointer; not used here
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags {
  QEMU_PLUGIN_CB_NO_REGS,
  QEMU_PLUGIN_CB_R_REGS,
  QEMU_PLUGIN_CB_RW_REGS,
};
enum qemu_plugin_op {
  QEMU_PLUGIN_INLINE_ADD_U64,
};
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void* userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op,
                                              void* ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn* insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void* userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
const void* qemu_plugin_insn_data(const struct qemu_plugin_insn* insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);
void qemu_plugin_outs(const char* string);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t* info, int argc,
                               char** argv);
#ifdef __cplusplus
}  // extern "C"
#endif
// ---- end of the API declarations ----

enum {
  kStartMarker = 0xd5032fdfu,  // hint #126
  kStopMarker = 0xd5032fffu,   // hint #127
};

static uint64_t g_executed;  // instructions of every block entered so far (inline add)
static bool g_in_region;
static uint64_t g_region_start;
static uint64_t* g_counts;
static size_t g_num_counts;
static size_t g_cap_counts;
static uint64_t g_errors;

static void Out(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

static void Out(const char* fmt, ...) {
  char line[256];
  va_list args;
  va_start(args, fmt);
  vsnprintf(line, sizeof(line), fmt, args);
  va_end(args);
  qemu_plugin_outs(line);
}

// userdata = number of instructions of the block that follow the marker (the block's inline add
// has counted them, but they have not run yet).
static void OnStart(unsigned int vcpu_index, void* userdata) {
  (void)vcpu_index;
  const uint64_t after = (uint64_t)(uintptr_t)userdata;
  if (g_in_region) {
    ++g_errors;
    Out("arm_sim: error: start marker inside region %zu (region restarted)\n", g_num_counts);
  }
  g_in_region = true;
  g_region_start = g_executed - after;  // everything up to and including the start marker
}

static void OnStop(unsigned int vcpu_index, void* userdata) {
  (void)vcpu_index;
  // The stop marker and what follows it in the block have not run.
  const uint64_t after = (uint64_t)(uintptr_t)userdata + 1;
  if (!g_in_region) {
    ++g_errors;
    Out("arm_sim: error: stop marker outside a region (after region %zu)\n", g_num_counts);
    return;
  }
  g_in_region = false;
  if (g_num_counts == g_cap_counts) {
    g_cap_counts = g_cap_counts ? 2 * g_cap_counts : 1024;
    uint64_t* grown = (uint64_t*)realloc(g_counts, g_cap_counts * sizeof(uint64_t));
    if (grown == NULL) {
      ++g_errors;
      Out("arm_sim: error: out of memory after %zu regions\n", g_num_counts);
      return;
    }
    g_counts = grown;
  }
  g_counts[g_num_counts++] = g_executed - after - g_region_start;
}

static void OnTranslate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &g_executed, n);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    if (qemu_plugin_insn_size(insn) != 4) continue;
    uint32_t word;
    memcpy(&word, qemu_plugin_insn_data(insn), 4);  // AArch64 instructions are little-endian
    if (word == kStartMarker) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, OnStart, QEMU_PLUGIN_CB_NO_REGS,
                                             (void*)(uintptr_t)(n - i - 1));
    } else if (word == kStopMarker) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, OnStop, QEMU_PLUGIN_CB_NO_REGS,
                                             (void*)(uintptr_t)(n - i - 1));
    }
  }
}

static void OnExit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  if (g_in_region) {
    ++g_errors;
    Out("arm_sim: error: region %zu still open at exit\n", g_num_counts);
  }
  for (size_t i = 0; i < g_num_counts; ++i) {
    Out("arm_sim: region %zu insns %" PRIu64 "\n", i, g_counts[i]);
  }
  Out("arm_sim: regions %zu errors %" PRIu64 "\n", g_num_counts, g_errors);
  free(g_counts);
  g_counts = NULL;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t* info, int argc,
                               char** argv) {
  (void)info;
  if (argc != 0) {
    fprintf(stderr, "arm_sim: libcount takes no arguments (got '%s')\n", argv[0]);
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, OnTranslate);
  qemu_plugin_register_atexit_cb(id, OnExit, NULL);
  return 0;
}
