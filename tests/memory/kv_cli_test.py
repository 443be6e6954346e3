#!/usr/bin/python3
"""`mpi_bench kv` end to end: the worked example through --json and -o, and
Llama-3.1-70B under --mem-per-device 120G --reserve-pct 0 at TP 1..16.

Run with Debian's /usr/bin/python3 (h5py):
  kv_cli_test.py --mpiexec MPIEXEC --mpi-bench MPI_BENCH --configs DIR --lengths-file FILE
"""
import json
import os
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyutil"))
from cli_check import FAILURES, expect, mpi_bench_args  # noqa: E402


def kv(args, mpiexec, mpi_bench, ranks=1):
    result = subprocess.run([mpiexec, "--oversubscribe", "-n", str(ranks), mpi_bench, "kv"] + args,
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        sys.exit(f"mpi_bench kv {' '.join(args)}: exit {result.returncode}\n{result.stderr}")
    return result.stdout


def worked_example(a, scratch):
    """[1, 15, 16, 17, 31, 33] tokens at 1,024 B per token, blocks of 16 and 8."""
    expected = {16: (115712, 163840, 48128, 10), 8: (115712, 139264, 23552, 17)}
    tiny = os.path.join(a.configs, "tiny-llama.json")
    out = os.path.join(scratch, "kv.h5")
    for lengths in ("1,15,16,17,31,33", a.lengths_file):
        answer = json.loads(kv(["--model", tiny, "--tp", "1,2", "--bytes-per-token", "1024", "--lengths", lengths,
                                "--block", "16,8", "--mem-per-device", "1G", "--json"], a.mpiexec, a.mpi_bench, 2))
        expect([b["block_tokens"] for b in answer["blocks"]] == [16, 8], f"blocks of {lengths}: {answer['blocks']}")
        for block in answer["blocks"]:
            got = (block["payload_bytes"], block["allocated_bytes"], block["tail_waste_bytes"], block["table_entries"])
            expect(got == expected[block["block_tokens"]], f"--lengths {lengths}, block {block['block_tokens']}: {got}")
            expect([s["tokens"] for s in block["sequences"]] == [1, 15, 16, 17, 31, 33],
                   f"per-sequence rows of block {block['block_tokens']}: {block['sequences']}")
        # tiny-llama has 2 KV heads: TP-2 holds one, half of the stated 1,024 B.
        expect([(t["k"], t["kv_bytes_per_token"], t["kv_replication"]) for t in answer["tp"]] == [(1, 1024, 1),
                                                                                                 (2, 512, 1)],
               f"tp list: {answer['tp']}")
    kv(["--model", tiny, "--tp", "1,2", "--bytes-per-token", "1024", "--lengths", "1,15,16,17,31,33", "--block", "16,8",
        "--mem-per-device", "1G", "-o", out], a.mpiexec, a.mpi_bench, 2)
    with h5py.File(out, "r") as f:
        expect(int(f["/meta"].attrs["complete"]) == 1, "kv.h5 is not marked complete")
        expect(int(f["/kv"].attrs["kv_bytes_per_token"]) == 1024, "/kv kv_bytes_per_token")
        for block, (payload, allocated, waste, entries) in expected.items():
            g = f[f"/kv/blocks/b{block}"]
            got = tuple(int(g.attrs[n]) for n in ("payload_bytes", "allocated_bytes", "tail_waste_bytes",
                                                  "table_entries"))
            expect(got == (payload, allocated, waste, entries), f"/kv/blocks/b{block}: {got}")
            waste_tokens = {16: [15, 1, 0, 15, 1, 15], 8: [7, 1, 0, 7, 1, 7]}[block]
            expect(list(g["tail_waste_bytes"][...]) == [w * 1024 for w in waste_tokens],
                   f"/kv/blocks/b{block}/tail_waste_bytes: {list(g['tail_waste_bytes'][...])}")
        expect(f["/kv/tp/k2/admissible_sequences"].shape == (1, 2), "admissible_sequences is contexts x blocks")
    # Every group and dataset /kv holds is one the results schema names.
    verify = subprocess.run([a.mpiexec, "--oversubscribe", "-n", "1", a.mpi_bench, "verify", out],
                            capture_output=True, text=True, timeout=120)
    expect(verify.returncode == 0, f"mpi_bench verify {out}: exit {verify.returncode}: {verify.stderr.strip()}")


def collectives(a, scratch):
    """--collective names whose buffers a TP group holds; the file records it."""
    tiny = os.path.join(a.configs, "tiny-llama.json")
    common = ["--model", tiny, "--tp", "2", "--backend", "cpu", "--mem-per-device", "1G", "--dtype", "f32"]
    mpi = json.loads(kv(common + ["--json"], a.mpiexec, a.mpi_bench))["tp"][0]
    oneshot = json.loads(kv(common + ["--collective", "oneshot", "--json"], a.mpiexec, a.mpi_bench))["tp"][0]
    # This rank's segment of the shared window (a 64 B flag line, two 8 MiB slots, 63 B of alignment) in place
    # of Open MPI's per-sequence temporary of the partial sum.
    expect(oneshot["fixed_bytes"] - mpi["fixed_bytes"] == 64 + 16 * 2**20 + 63,
           f"oneshot fixed {oneshot['fixed_bytes']} against mpi {mpi['fixed_bytes']}")
    expect(oneshot["sequence_bytes"] < mpi["sequence_bytes"],
           f"oneshot per sequence {oneshot['sequence_bytes']} against mpi {mpi['sequence_bytes']}")
    out = os.path.join(scratch, "kv_oneshot.h5")
    kv(common + ["--collective", "oneshot", "-o", out], a.mpiexec, a.mpi_bench)
    with h5py.File(out, "r") as f:
        got = (f["/kv"].attrs["backend"], f["/kv"].attrs["collective"])
        got = tuple(v.decode() if isinstance(v, bytes) else v for v in got)
        expect(got == ("cpu", "oneshot"), f"/kv backend and collective: {got}")


def llama70b(a):
    """TP-1's 131 GiB of bf16 weights do not fit 120 GiB; TP-2's do; KV bytes per device by hand."""
    config = os.path.join(a.configs, "llama-3.1-70b.json")
    answer = json.loads(kv(["--model", config, "--tp", "1,2,4,8,16", "--mem-per-device", "120G", "--reserve-pct", "0",
                            "--context", "8191", "--json"], a.mpiexec, a.mpi_bench))
    expect(answer["dtype"] == "bf16" and answer["kv_bytes_per_token"] == 327680,
           f"logical: {answer['dtype']} {answer['kv_bytes_per_token']}")
    by_k = {t["k"]: t for t in answer["tp"]}
    # 80 layers x 2 x KV heads per device x 128 x 2 B; 8 heads replicated twice at k = 16.
    for k, (per_device, replication) in {1: (327680, 1), 2: (163840, 1), 4: (81920, 1), 8: (40960, 1),
                                         16: (40960, 2)}.items():
        expect((by_k[k]["kv_bytes_per_token"], by_k[k]["kv_replication"]) == (per_device, replication),
               f"k={k}: {by_k[k]['kv_bytes_per_token']} B x{by_k[k]['kv_replication']}")
    expect(by_k[1]["fits"] is False and "kv_tokens_per_device" not in by_k[1], f"TP-1 must not fit: {by_k[1]}")
    expect(by_k[1]["weight_bytes_per_device"] > 131 * 2**30, f"TP-1 weights {by_k[1]['weight_bytes_per_device']}")
    for k in (2, 4, 8, 16):
        expect(by_k[k]["fits"] is True and by_k[k]["kv_tokens_per_device"] > 0, f"TP-{k} must fit: {by_k[k]}")
    # Fewer weights per device leave more KV tokens per device.
    expect(by_k[2]["kv_tokens_per_device"] < by_k[4]["kv_tokens_per_device"] < by_k[8]["kv_tokens_per_device"],
           "kv_tokens_per_device must grow with k")


def main():
    a = mpi_bench_args("--lengths-file")
    with tempfile.TemporaryDirectory(prefix="tpb_kv_cli_") as scratch:
        worked_example(a, scratch)
        collectives(a, scratch)
        llama70b(a)
    if FAILURES:
        print("FAILED:\n" + "\n".join("- " + f for f in FAILURES))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
