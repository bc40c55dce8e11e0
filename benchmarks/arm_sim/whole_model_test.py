#!/usr/bin/env python3
"""Unit tests of whole_model.py's parsing and aggregation (no qemu, no llvm-mca)."""

import json
import os
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cycle_model  # noqa: E402
import gguf_bytes  # noqa: E402
import op_breakdown  # noqa: E402
import whole_model  # noqa: E402

MCA_TEXT = """
[0] Code Region - b1111

Iterations:        100
Instructions:      400
Total Cycles:      250
Total uOps:        400

[1] Code Region - b2222

Iterations:        100
Instructions:      200
Total Cycles:      1003
"""


def decode_pair(edgeq_cycles, llama_cycles):
    """Decode records of file f on `max`: edgeq 30M and llama.cpp 40M instructions per token."""
    return [{"file": "f", "cpu": "max", "program": "edgeq", "phase": "decode",
             "insns_per_token": 30e6, "cycles_per_token": dict(edgeq_cycles)},
            {"file": "f", "cpu": "max", "program": "llama.cpp", "phase": "decode",
             "insns_per_token": 40e6, "cycles_per_token": dict(llama_cycles)}]


class HistogramTest(unittest.TestCase):
    def test_parse_merges_retranslated_blocks(self):
        total, blocks = cycle_model.parse_histogram(
            "total 30\ntb 10 2 5 aabbccdd11223344\ntb 10 2 5 aabbccdd11223344\n"
            "tb 20 4 5 00\n")
        self.assertEqual(total, 30)
        self.assertEqual(blocks[(0x10, "aabbccdd11223344")], [2, 10])
        self.assertEqual(blocks[(0x20, "00")], [4, 5])

    def test_parse_rejects_bad_line(self):
        with self.assertRaisesRegex(ValueError, "line 2: expected 'total N'"):
            cycle_model.parse_histogram("total 1\ntb 10 2\n")
        with self.assertRaisesRegex(ValueError, "no 'total' line"):
            cycle_model.parse_histogram("tb 10 2 5 aa\n")

    def test_difference_and_hot_blocks(self):
        large = {(1, "a"): [10, 100], (2, "b"): [2, 50], (3, "c"): [1, 7]}
        small = {(1, "a"): [10, 20], (2, "b"): [2, 50], (4, "d"): [3, 1]}
        diff = cycle_model.difference(large, small)
        self.assertEqual(diff, {(1, "a"): [10, 80], (3, "c"): [1, 7], (4, "d"): [3, -1]})
        keys, covered, total = cycle_model.hot_blocks(diff, 0.9)
        self.assertEqual(keys, [(1, "a")])
        self.assertEqual((covered, total), (800, 804))
        keys, covered, _ = cycle_model.hot_blocks(diff, 0.999)
        self.assertEqual(keys, [(1, "a"), (3, "c")])
        self.assertEqual(covered, 807)

    def test_modelled_cycles_scales_the_rest_by_modelled_cpi(self):
        diff = {(1, "a"): [10, 80], (3, "c"): [1, 7], (5, "e"): [4, 10]}
        cycles, modelled = cycle_model.modelled_cycles(
            diff, [(1, "a"), (5, "e")], 840, 847, {"a": 5.0, "e": None})
        self.assertEqual(modelled, 800)
        self.assertAlmostEqual(cycles, 400.0 * 847 / 800)

    def test_parse_mca(self):
        self.assertEqual(cycle_model.parse_mca(MCA_TEXT), {"b1111": 2.5, "b2222": 10.03})

    def test_mca_input_regions(self):
        text = cycle_model.mca_input([("b1", ["add x1, x1, #1", "ret"])])
        self.assertEqual(text, "# LLVM-MCA-BEGIN b1\nadd x1, x1, #1\nret\n# LLVM-MCA-END b1\n")


class AggregationTest(unittest.TestCase):
    def test_per_token(self):
        # edgeq: 2 runs per phase; 48 - 16 tokens each.
        self.assertEqual(whole_model.per_token(1000, 1000 + 64 * 7, 16, 48, 2), 7.0)
        self.assertEqual(whole_model.per_token(5, 5 + 128 * 3, 32, 160, 1), 3.0)

    def test_bench_argv(self):
        # edgeq's default ubatch (512, llama-bench's): no -b.
        argv, runs = whole_model.bench_argv("edgeq", "e", "m.gguf", "prefill", 160)
        self.assertEqual(argv, ["e", "bench", "m.gguf", "-t", "1", "-r", "1",
                                "-p", "160", "-n", "0"])
        self.assertEqual(runs, 2)
        # --edgeq-ubatch 32, as the records before 2026-11-27's s12a section.
        argv, runs = whole_model.bench_argv("edgeq", "e", "m.gguf", "prefill", 160, 32)
        self.assertEqual(argv, ["e", "bench", "m.gguf", "-t", "1", "-r", "1", "-b", "32",
                                "-p", "160", "-n", "0"])
        self.assertEqual(runs, 2)
        # --edgeq-args, e.g. the f32 cache of the records before 2026-11-27's f16 default.
        argv, _ = whole_model.bench_argv("edgeq", "e", "m.gguf", "decode", 16, 0,
                                         ["-ctk", "f32", "-ctv", "f32"])
        self.assertEqual(argv, ["e", "bench", "m.gguf", "-t", "1", "-r", "1", "-ctk", "f32",
                                "-ctv", "f32", "-p", "0", "-n", "16"])
        argv, runs = whole_model.bench_argv("llama.cpp", "lb", "m.gguf", "decode", 48)
        self.assertEqual(argv, ["lb", "-m", "m.gguf", "-t", "1", "-r", "1", "--no-warmup",
                                "-p", "0", "-n", "48"])
        self.assertEqual(runs, 1)

    def test_tables(self):
        records = [
            {"file": "f", "cpu": "max", "program": "edgeq", "phase": "decode",
             "insns_per_token": 30e6, "cycles_per_token": {"cortex-x2": 10e6}},
            {"file": "f", "cpu": "max", "program": "llama.cpp", "phase": "decode",
             "insns_per_token": 40e6, "cycles_per_token": {"cortex-x2": 20e6}},
        ]
        text = whole_model.tables(records)
        self.assertIn("| f | max | 30.0M / 40.0M = 0.75 | - |", text)
        self.assertIn("| f | max | cortex-x2 | 10.0M / 20.0M = 0.50 | - |", text)
        records[0]["cpu"] = records[1]["cpu"] = "max"
        mem = whole_model.memory_table(records, {"f": {"edgeq": 90e6, "llama.cpp": 60e6}},
                                       [30, 60])
        # x2 at 3 GHz: edgeq computes 3.33 ms, reads 3 ms at 30 GB/s; llama.cpp computes 6.67.
        self.assertIn("| f | max | edgeq | cortex-x2 (3.0) | 90.0 | 3.33 | 3.33 | 3.33 |", mem)
        self.assertIn("| f | max | llama.cpp | cortex-x2 (3.0) | 60.0 | 6.67 | 6.67 | 6.67 |",
                      mem)
        self.assertEqual(whole_model.ratio_cell(30e6, None), "30.0M / -")
        # An in-order model's cycles come from the in-order record (the schedule that core runs).
        records[0]["cycles_per_token"]["cortex-a510"] = 80e6
        inorder = [dict(records[0], cycles_per_token={"cortex-a510": 20e6})]
        mem = whole_model.memory_table(records, {"f": {"edgeq": 90e6, "llama.cpp": 60e6}},
                                       [30], inorder)
        self.assertIn("| f | max | edgeq | cortex-a510 (2.0) | 90.0 | 10.00 | 10.00 |", mem)

    def test_tables_take_in_order_models_from_the_inorder_records(self):
        cycles = {"cortex-a510": 40e6, "cortex-x2": 10e6}
        records = [
            {"file": "f", "cpu": "max", "program": "edgeq", "phase": "decode",
             "insns_per_token": 30e6, "cycles_per_token": dict(cycles)},
            {"file": "f", "cpu": "max", "program": "llama.cpp", "phase": "decode",
             "insns_per_token": 40e6, "cycles_per_token": {"cortex-a510": 50e6,
                                                           "cortex-x2": 20e6}},
        ]
        inorder = [dict(records[0], cycles_per_token={"cortex-a510": 25e6, "cortex-x2": 11e6})]
        text = whole_model.tables(records, inorder)
        self.assertIn("| f | max | cortex-a510 | 25.0M / 50.0M = 0.50 | - |", text)
        self.assertIn("| f | max | cortex-x2 | 10.0M / 20.0M = 0.50 | - |", text)
        self.assertIn("| f | max | cortex-a510 | 40.0M / 50.0M = 0.80 | - |",
                      whole_model.tables(records))

    def test_cells_over(self):
        records = decode_pair({"cortex-a510": 45e6, "cortex-x2": 18e6},
                              {"cortex-a510": 50e6, "cortex-x2": 20e6})
        self.assertEqual(whole_model.cells_over(records),
                         [("f", "max", "cortex-a510", "decode", 0.9),
                          ("f", "max", "cortex-x2", "decode", 0.9)])
        inorder = [dict(records[0], cycles_per_token={"cortex-a510": 25e6})]
        self.assertEqual(whole_model.cells_over(records, inorder),
                         [("f", "max", "cortex-x2", "decode", 0.9)])
        self.assertEqual(whole_model.cells_over(records, inorder, limit=0.95), [])

    def test_summary_table(self):
        records = decode_pair({"cortex-a510": 45e6, "cortex-x2": 10e6},
                              {"cortex-a510": 50e6, "cortex-x2": 20e6})
        inorder = [dict(records[0], cycles_per_token={"cortex-a510": 25e6})]
        text = whole_model.summary_table(records, inorder)
        self.assertIn("| f | i8mm (`max`) | 0.75 / - | - | 0.50 / - | - | - | 0.50 / - | - |",
                      text)

    def test_merge_later_file_wins(self):
        with tempfile.TemporaryDirectory() as d:
            def rec(value):
                return {"file": "f", "cpu": "max", "program": "edgeq", "phase": "decode",
                        "insns_per_token": value}
            paths = [os.path.join(d, n) for n in ("a.json", "b.json", "out.json")]
            whole_model.write_json({"records": [rec(1.0)], "decode_bytes": {"f": 1}}, paths[0])
            whole_model.write_json({"records": [rec(2.0)], "decode_bytes": {"g": 2}}, paths[1])
            self.assertEqual(whole_model.main_with(["--merge", paths[2]] + paths[:2]), 0)
            with open(paths[2]) as f:
                merged = json.load(f)
            self.assertEqual(merged["records"], [rec(2.0)])
            self.assertEqual(merged["decode_bytes"], {"f": 1, "g": 2})

    def test_is_branch(self):
        for word in (0x14000010, 0x97FFFFF0, 0x54FFF221, 0xB4001340, 0x37000040, 0xD65F03C0,
                     0xD63F0200, 0xD4000001):  # b, bl, b.ne, cbz, tbnz, ret, blr, svc
            self.assertTrue(cycle_model.is_branch(word), hex(word))
        for word in (0x4FA5E340, 0x91000421, 0xD503201F, 0x4C4070A0):  # sdot, add, nop, ld1
            self.assertFalse(cycle_model.is_branch(word), hex(word))

    def test_join_page_splits(self):
        sdot, bne = "40e3a54f", "21f2ff54"  # little-endian words
        a = (0x1FF0, sdot * 4)  # ends on the page boundary with no branch
        b = (0x2000, sdot * 2 + bne)  # the loop's rest; also entered from elsewhere (10 more)
        c = (0x3000, sdot + bne)  # ends with a branch: not joined with what follows
        d = (0x3008, sdot)
        diff = {a: [4, 100], b: [3, 110], c: [2, 5], d: [1, 5]}
        joined, keys = cycle_model.join_page_splits(diff, [b, a, c, d])
        ab = (0x1FF0, sdot * 6 + bne)
        self.assertEqual(keys, [b, ab, c, d])
        self.assertEqual(joined, {ab: [7, 100], b: [3, 10], c: [2, 5], d: [1, 5]})
        self.assertEqual(sum(n * e for n, e in joined.values()),
                         sum(n * e for n, e in diff.values()))
        # B entered only through A: B disappears into A + B.
        joined, keys = cycle_model.join_page_splits({a: [4, 100], b: [3, 100]}, [a, b])
        self.assertEqual(joined, {ab: [7, 100]})
        self.assertEqual(keys, [ab])
        # A not on a boundary, or B not hot, or B executed less than A: kept apart.
        moved = (0x1FEC, sdot * 4)
        self.assertEqual(cycle_model.join_page_splits({moved: [4, 1], b: [3, 1]}, [moved, b])[1],
                         [moved, b])
        self.assertEqual(cycle_model.join_page_splits({a: [4, 1], b: [3, 1]}, [a])[1], [a])
        self.assertEqual(cycle_model.join_page_splits({a: [4, 9], b: [3, 1]}, [a, b])[1], [a, b])

    def test_mca_cache_save_keeps_another_writers_entries(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cache.json")
            first, second = cycle_model.McaCache(path), cycle_model.McaCache(path)
            first.data = {"cortex-a55": {"b1": 1.5}}
            first.save()
            second.data = {"cortex-a55": {"b2": 2.5}, "cortex-x2": {"b1": 0.5}}
            second.save()
            self.assertEqual(cycle_model.McaCache(path).data,
                             {"cortex-a55": {"b1": 1.5, "b2": 2.5}, "cortex-x2": {"b1": 0.5}})
            self.assertEqual(os.listdir(d), ["cache.json"])


class FamilyTest(unittest.TestCase):
    def test_families(self):
        cases = {
            "ggml_gemv_q4_0_4x8_q8_0": "qmatmul q4_0",
            "ggml_vec_dot_q6_K_q8_K": "qmatmul q6_k",
            "void edgeq::kernels::internal::arm::(anonymous namespace)::TileGemv<edgeq::kernels::"
            "internal::arm::(anonymous namespace)::Q6KTile<DotprodDot16, false> >(...)":
                "qmatmul q6_k",
            "edgeq::kernels::internal::RepackQ4_0R4(unsigned char const*, long, long, "
            "unsigned char*)": "repack (load)",
            "ggml_vec_dot_f16": "attention",
            "ggml_compute_forward_flash_attn_ext_f16_one_chunk": "attention",
            "quantize_row_q8_0": "quantize activations",
            "edgeq::kernels::internal::arm::(anonymous namespace)::QuantizePairQ8_0PNeon(float "
            "const*, float const*, long, unsigned char*)": "quantize activations",
            "edgeq::quantization_internal::DequantizeRowQ4_0(unsigned char const*, float*, long)":
                "embedding lookup",
            "ggml_compute_forward_get_rows": "embedding lookup",
            "ggml_compute_forward_soft_max_f32": "softmax",
            "ggml_compute_forward_rms_norm_f32": "norm",
            "ggml_rope_cache_init": "rope",
            "ggml_barrier": "thread sync",
            "ggml_compute_forward_mul_mat": "qmatmul (driver)",
            None: "shared libraries",
            "frobnicate": "other",
        }
        for name, family in cases.items():
            self.assertEqual(op_breakdown.family_of(name), family, name)


def gguf_string(s):
    return struct.pack("<Q", len(s)) + s.encode()


class GgufBytesTest(unittest.TestCase):
    def write(self, tensors, meta):
        data = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta))
        for key, value in meta:
            data += gguf_string(key)
            if isinstance(value, str):
                data += struct.pack("<I", 8) + gguf_string(value)
            else:
                data += struct.pack("<II", 4, value)
        for name, dims, ttype in tensors:
            data += gguf_string(name) + struct.pack("<I", len(dims))
            data += b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", ttype, 0)
        f = tempfile.NamedTemporaryFile(suffix=".gguf", delete=False)
        f.write(data)
        f.close()
        self.addCleanup(os.remove, f.name)
        return f.name

    def test_decode_bytes(self):
        path = self.write(
            [("token_embd.weight", [64, 100], 2), ("blk.0.attn_q.weight", [64, 64], 8),
             ("output.weight", [256, 10], 14), ("output_norm.weight", [64], 0)],
            [("general.architecture", "llama"), ("llama.block_count", 1),
             ("llama.attention.head_count", 4), ("llama.attention.head_count_kv", 2),
             ("llama.embedding_length", 64)])
        got = gguf_bytes.decode_bytes(path, (16, 48))
        # token_embd: one q4_0 row of 64 = 36 bytes; q8_0 64x64 = 128 blocks x 34; q6_k
        # 2560 values = 10 blocks x 210; norm 256.
        weights = 36 + 128 * 34 + 10 * 210 + 256
        self.assertEqual(got["weights"], weights)
        kv_values = 1 * 2 * 2 * 16 * 32.5  # layers x (K, V) x kv heads x head dim x mean rows
        self.assertEqual(got["edgeq"], weights + kv_values * 2)
        self.assertEqual(got["llama.cpp"], weights + kv_values * 2)

    def test_decode_bytes_tied_classifier(self):
        # No output.weight: token_embd is also the classifier, read whole every token.
        path = self.write(
            [("token_embd.weight", [64, 100], 2), ("output_norm.weight", [64], 0)],
            [("general.architecture", "qwen3"), ("qwen3.block_count", 1),
             ("qwen3.attention.head_count", 4), ("qwen3.attention.head_count_kv", 2),
             ("qwen3.embedding_length", 64)])
        got = gguf_bytes.decode_bytes(path, (16, 48))
        self.assertEqual(got["weights"], 100 * 36 + 256)  # 100 q4_0 rows of 64; norm

    def test_not_gguf(self):
        path = self.write([], [])
        with open(path, "wb") as f:
            f.write(b"GGML" + b"\0" * 20)
        with self.assertRaisesRegex(ValueError, "not a GGUF file"):
            gguf_bytes.decode_bytes(path, (16, 48))


if __name__ == "__main__":
    unittest.main()
