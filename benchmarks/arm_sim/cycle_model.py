"""Histograms of translation blocks (tb_hist.c), their difference, and a cycle model by llvm-mca.

Used by whole_model.py; no qemu here. A histogram maps a block (guest address, bytes as hex) to
[instructions, executions]. The difference of two runs of one program that differ only in the
number of tokens holds the blocks the added tokens executed; each hot block's steady-state
cycles per execution come from llvm-mca (the block repeated, Total Cycles / Iterations) with one
CPU's scheduling model, and the weighted sum is the modelled core cycles of the added tokens.
"""

import hashlib
import json
import os
import re
import subprocess

MCA_ITERATIONS = 100
# llvm-mc prints this between blocks: "hint #125" (0xd5032fbf), a NOP no compiler emits.
SEPARATOR_BYTES = "bf2f03d5"
SEPARATOR_RE = re.compile(r"^\s*hint\s+#125\s*$")


def parse_histogram(text):
    """tb_hist.c output -> (total instructions, {(vaddr, hex bytes): [n_insns, execs]})."""
    total = None
    blocks = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "total" and len(fields) == 2:
            total = int(fields[1])
        elif fields[0] == "tb" and len(fields) == 5:
            key = (int(fields[1], 16), fields[4])
            entry = blocks.setdefault(key, [int(fields[2]), 0])
            entry[1] += int(fields[3])
        else:
            raise ValueError("histogram line %d: expected 'total N' or 'tb ADDR N EXECS BYTES', "
                             "got %r" % (number, line[:64]))
    if total is None:
        raise ValueError("histogram: no 'total' line")
    return total, blocks


def difference(large, small):
    """Per-block executions of `large` minus `small` (blocks whose count did not change dropped).
    Returns {key: [n_insns, execs difference]}; a negative difference is kept (it is a block the
    shorter run executed more often, e.g. a different branch of a one-time path)."""
    out = {}
    for key, (n, execs) in large.items():
        d = execs - small.get(key, [n, 0])[1]
        if d:
            out[key] = [n, d]
    for key, (n, execs) in small.items():
        if key not in large and execs:
            out[key] = [n, -execs]
    return out


def hot_blocks(diff, coverage):
    """The blocks, most instructions first, whose added instructions reach `coverage` (0..1) of
    the total added; returns (keys, their instructions, total added instructions)."""
    ranked = sorted(((n * d, key) for key, (n, d) in diff.items() if d > 0), reverse=True)
    total = sum(n * d for n, d in diff.values())
    keys, covered = [], 0
    for insns, key in ranked:
        if covered >= coverage * total:
            break
        keys.append(key)
        covered += insns
    return keys, covered, total


PAGE_BYTES = 4096


def is_branch(word):
    """Whether an A64 instruction word transfers control: B/BL, B.cond/BC.cond, CBZ/CBNZ,
    TBZ/TBNZ, BR/BLR/RET (and the other unconditional branches to a register), SVC/HVC/SMC/BRK."""
    return ((word & 0x7C000000) == 0x14000000 or (word & 0xFF000000) == 0x54000000 or
            (word & 0x7E000000) == 0x34000000 or (word & 0x7E000000) == 0x36000000 or
            (word & 0xFE000000) == 0xD6000000 or (word & 0xFF000000) == 0xD4000000)


def join_page_splits(diff, keys):
    """qemu ends a translation block where the guest code crosses a 4 KiB page, so a basic block
    (e.g. a loop body) that straddles a page boundary is two blocks in the histogram: A, ending
    on the boundary with an instruction that is not a branch, and B, starting there (B may have
    more executions: other blocks, e.g. a loop's entry, can also fall into it). A core runs them
    as one stream, so A's executions are modelled as executions of A + B (one block, so that
    llvm-mca overlaps their instructions as it would in one block) and B alone keeps the rest of
    its executions. Only hot blocks (`keys`) are joined. Returns (diff, keys) with the joined
    blocks; every instruction stays counted once."""
    by_addr = {k[0]: k for k in keys}
    diff = {k: list(v) for k, v in diff.items()}
    out = []
    for key in keys:
        vaddr, hex_bytes = key
        n, d = diff[key]
        end = vaddr + len(hex_bytes) // 2
        nxt = by_addr.get(end)
        last = int.from_bytes(bytes.fromhex(hex_bytes[-8:]), "little") if hex_bytes else 0
        if (end % PAGE_BYTES or nxt is None or nxt not in diff or is_branch(last) or d <= 0 or
                diff[nxt][1] < d):
            out.append(key)
            continue
        joined = (vaddr, hex_bytes + nxt[1])
        diff[joined] = [n + diff[nxt][0], d]
        diff[nxt][1] -= d
        del diff[key]
        out.append(joined)
    keys = [k for k in out if diff[k][1] != 0]
    return {k: diff[k] for k in keys}, keys


def block_hash(hex_bytes):
    return hashlib.sha1(hex_bytes.encode()).hexdigest()[:16]


def disassemble(hex_blocks, llvm_mc="llvm-mc-19"):
    """Disassembles each block's bytes (one llvm-mc run for all); returns a list of instruction
    lists (None for a block llvm-mc could not decode completely)."""
    words = []
    for hex_bytes in hex_blocks:
        words.append(" ".join("0x" + hex_bytes[i:i + 2] for i in range(0, len(hex_bytes), 2)))
        words.append(" ".join("0x" + SEPARATOR_BYTES[i:i + 2] for i in range(0, 8, 2)))
    proc = subprocess.run([llvm_mc, "--disassemble", "-triple=aarch64", "-mattr=+all"],
                          input="\n".join(words) + "\n", capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0 and not proc.stdout:
        raise RuntimeError("%s failed: %s" % (llvm_mc, proc.stderr[:200]))
    out, current = [], []
    for line in proc.stdout.splitlines():
        if SEPARATOR_RE.match(line):
            out.append(current)
            current = []
        elif line.strip() and not line.strip().startswith("."):
            current.append(line.strip())
    for i, hex_bytes in enumerate(hex_blocks):
        if i >= len(out) or len(out[i]) != len(hex_bytes) // 8:
            if i < len(out):
                out[i] = None
    return out[:len(hex_blocks)]


def mca_input(named_blocks):
    """llvm-mca source with one code region per (name, instructions)."""
    lines = []
    for name, insns in named_blocks:
        lines.append("# LLVM-MCA-BEGIN %s" % name)
        lines.extend(insns)
        lines.append("# LLVM-MCA-END %s" % name)
    return "\n".join(lines) + "\n"


REGION_RE = re.compile(r"^\[\d+\] Code Region - (\S+)")
ITER_RE = re.compile(r"^Iterations:\s+(\d+)")
CYCLES_RE = re.compile(r"^Total Cycles:\s+(\d+)")


def parse_mca(text):
    """llvm-mca's summary views -> {region name: cycles per iteration}."""
    out, name, iterations = {}, None, None
    for line in text.splitlines():
        m = REGION_RE.match(line)
        if m:
            name, iterations = m.group(1), None
            continue
        m = ITER_RE.match(line)
        if m:
            iterations = int(m.group(1))
            continue
        m = CYCLES_RE.match(line)
        if m and name is not None and iterations:
            out[name] = int(m.group(1)) / iterations
            name = None
    return out


def run_mca(named_blocks, mcpu, llvm_mca="llvm-mca-19"):
    """Cycles per execution of each block under `mcpu`'s scheduling model."""
    if not named_blocks:
        return {}
    cmd = [llvm_mca, "-mtriple=aarch64", "-mcpu=" + mcpu, "-mattr=+all",
           "-iterations=%d" % MCA_ITERATIONS, "-skip-unsupported-instructions=lack-sched",
           # llvm-mca assumes 100 cycles for a call (bl/blr) unless told; a call is a branch.
           "-call-latency=1",
           "-resource-pressure=false", "-instruction-info=false"]
    proc = subprocess.run(cmd, input=mca_input(named_blocks), capture_output=True, text=True,
                          check=False)
    result = parse_mca(proc.stdout)
    if proc.returncode != 0 and not result:
        raise RuntimeError("llvm-mca -mcpu=%s failed: %s" % (mcpu, proc.stderr[:300]))
    return result


class McaCache:
    """Cycles per block execution, per (mcpu, block bytes hash), kept in a JSON file."""

    def __init__(self, path):
        self.path = path
        self.data = {}
        if path and os.path.exists(path):
            with open(path) as f:
                self.data = json.load(f)

    def save(self):
        """Writes the cache, keeping what other processes sharing the file saved meanwhile."""
        if self.path:
            if os.path.exists(self.path):
                try:
                    with open(self.path) as f:
                        on_disk = json.load(f)
                except ValueError:
                    on_disk = {}
                for mcpu, table in on_disk.items():
                    mine = self.data.setdefault(mcpu, {})
                    for key, value in table.items():
                        mine.setdefault(key, value)
            tmp = "%s.%d.tmp" % (self.path, os.getpid())
            with open(tmp, "w") as f:
                json.dump(self.data, f, sort_keys=True)
            os.replace(tmp, self.path)

    def cycles(self, mcpu, hex_blocks):
        """{hex bytes: cycles per execution, or None if the block cannot be modelled}."""
        table = self.data.setdefault(mcpu, {})
        todo = sorted({h for h in hex_blocks if block_hash(h) not in table})
        if todo:
            decoded = disassemble(todo)
            for hex_bytes, insns in zip(todo, decoded):
                if insns is None:
                    table[block_hash(hex_bytes)] = None
            named = [("b" + block_hash(h), insns) for h, insns in zip(todo, decoded)
                     if insns is not None]
            for chunk in range(0, len(named), 400):
                got = run_mca(named[chunk:chunk + 400], mcpu)
                for name, _ in named[chunk:chunk + 400]:
                    table[name[1:]] = got.get(name)
        return {h: table.get(block_hash(h)) for h in hex_blocks}


def modelled_cycles(diff, keys, covered, total, cycles_of):
    """Cycles of the added instructions: the hot blocks' executions x their cycles, and the rest
    (instructions outside `keys`, or in blocks llvm-mca could not model) at the modelled blocks'
    cycles per instruction. Returns (cycles, modelled instructions)."""
    cyc, modelled = 0.0, 0
    for key in keys:
        c = cycles_of.get(key[1])
        if c is None:
            continue
        n, d = diff[key]
        cyc += c * d
        modelled += n * d
    if modelled == 0:
        return 0.0, 0
    return cyc * total / modelled, modelled
