// A qemu TCG plugin (plugin API v1, qemu 7.2) that counts every guest instruction a program
// executes and, per translation block, how often the block ran, for the whole-model measurement
// (whole_model.py). Unlike count.c it needs no markers: the program runs unchanged.
//
//   qemu-aarch64 -plugin file=libtbhist.so,out=HIST.txt ./guest ...
//
// At exit it writes HIST.txt:
//   total <instructions executed>
//   tb <vaddr hex> <instructions> <executions> <block bytes, hex, in guest order>
// one `tb` line per translated block that ran at least once (a block translated again at the same
// address with the same bytes is one line), and prints "arm_sim: total insns N" (qemu prints
// plugin output only with -d plugin). Without out= only the total is printed.
//
// Method: each translated block gets two inline adds when it starts executing: its instruction
// count to the total and 1 to its own execution counter. Exact for user-mode code whose blocks
// run to their end (no signals); the counters are not atomic, so a guest must run one thread at a
// time (whole_model.py runs both programs with 1 thread).
//
// Debian ships no qemu-plugin.h; the few declarations used are written out below from the
// documented plugin C ABI of qemu 7.2 (QEMU_PLUGIN_VERSION 1), as in count.c.
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
typedef uint64_t qemu_plugin_id_t;
struct qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op {
  QEMU_PLUGIN_INLINE_ADD_U64,
};
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op,
                                              void* ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb* tb);
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

// One translated block: its address and bytes identify it; `execs` is the inline counter.
struct Block {
  uint64_t execs;
  uint64_t vaddr;
  size_t n_insns;
  size_t n_bytes;
  unsigned char* bytes;
  struct Block* next;  // hash chain
};

enum { kBuckets = 1 << 16 };
static struct Block* g_table[kBuckets];
static uint64_t g_total;
static char* g_out_path;
static bool g_out_of_memory;

static size_t Bucket(uint64_t vaddr) { return (size_t)((vaddr >> 2) * 0x9E3779B1u) % kBuckets; }

// The block at `vaddr` with these bytes: found, or added (NULL when out of memory).
static struct Block* FindOrAdd(uint64_t vaddr, size_t n_insns, const unsigned char* bytes,
                               size_t n_bytes) {
  const size_t b = Bucket(vaddr);
  for (struct Block* blk = g_table[b]; blk != NULL; blk = blk->next) {
    if (blk->vaddr == vaddr && blk->n_bytes == n_bytes && memcmp(blk->bytes, bytes, n_bytes) == 0) {
      return blk;
    }
  }
  struct Block* blk = (struct Block*)calloc(1, sizeof(struct Block));
  unsigned char* copy = (unsigned char*)malloc(n_bytes ? n_bytes : 1);
  if (blk == NULL || copy == NULL) {
    free(blk);
    free(copy);
    return NULL;
  }
  memcpy(copy, bytes, n_bytes);
  blk->vaddr = vaddr;
  blk->n_insns = n_insns;
  blk->n_bytes = n_bytes;
  blk->bytes = copy;
  blk->next = g_table[b];
  g_table[b] = blk;
  return blk;
}

static void OnTranslate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &g_total, n);
  if (g_out_path == NULL || n == 0) return;
  unsigned char buf[4096];
  size_t used = 0;
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    const size_t size = qemu_plugin_insn_size(insn);
    if (used + size > sizeof(buf)) break;  // qemu blocks hold at most 512 insns (2 KiB)
    memcpy(buf + used, qemu_plugin_insn_data(insn), size);
    used += size;
  }
  struct Block* blk = FindOrAdd(qemu_plugin_tb_vaddr(tb), n, buf, used);
  if (blk == NULL) {
    g_out_of_memory = true;
    return;
  }
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &blk->execs, 1);
}

static bool WriteHistogram(FILE* f) {
  if (fprintf(f, "total %" PRIu64 "\n", g_total) < 0) return false;
  for (size_t b = 0; b < kBuckets; ++b) {
    for (const struct Block* blk = g_table[b]; blk != NULL; blk = blk->next) {
      if (blk->execs == 0) continue;
      fprintf(f, "tb %" PRIx64 " %zu %" PRIu64 " ", blk->vaddr, blk->n_insns, blk->execs);
      for (size_t i = 0; i < blk->n_bytes; ++i) fprintf(f, "%02x", blk->bytes[i]);
      if (fputc('\n', f) == EOF) return false;
    }
  }
  return true;
}

static void OnExit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  char line[128];
  snprintf(line, sizeof(line), "arm_sim: total insns %" PRIu64 "\n", g_total);
  qemu_plugin_outs(line);
  if (g_out_path == NULL) return;
  FILE* f = fopen(g_out_path, "w");
  bool ok = f != NULL && !g_out_of_memory && WriteHistogram(f);
  if (f != NULL && fclose(f) != 0) ok = false;
  if (!ok) {
    fprintf(stderr, "arm_sim: error: could not write the histogram %s%s\n", g_out_path,
            g_out_of_memory ? " (out of memory while translating)" : "");
    remove(g_out_path);
  }
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t* info, int argc,
                               char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "out=", 4) == 0 && argv[i][4] != '\0') {
      free(g_out_path);
      g_out_path = strdup(argv[i] + 4);  // qemu may free argv after install
      if (g_out_path == NULL) return -1;
    } else {
      fprintf(stderr, "arm_sim: libtbhist takes out=PATH (got '%s')\n", argv[i]);
      return -1;
    }
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, OnTranslate);
  qemu_plugin_register_atexit_cb(id, OnExit, NULL);
  return 0;
}
