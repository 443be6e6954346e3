#!/usr/bin/python3
"""A quick-start-like study end to end with the decision flags: `mpi_bench run`
on 2 ranks (tiny-llama, TP 1 and 2, --tpot-slo, --predict-tp 4), then:
  - the study file passes `mpi_bench verify` with its /decision;
  - the largest admissible batch per k is what `mpi_bench kv` (the same memory
    ledger, blocks of one token) admits under the same budget and reserve;
  - measured rows hold the medians of /step; TP-4 (not measured) is MODELLED
    everywhere, and its collective model says EXTRAPOLATED;
  - the SLO and the degrees are sealed in predictions.json;
  - report.md has the Decision section with measured and MODELLED rows;
  - `mpi_bench verdict` alone, on a copy without /decision, writes the same
    /decision under the budget calibrate stored in /study, and on a copy that
    records the one-shot collective, the batches `kv --collective oneshot` admits.

Run with Debian's /usr/bin/python3 (h5py):
  decision_study_test.py --mpiexec MPIEXEC --mpi-bench MPI_BENCH --configs DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyutil"))
from cli_check import FAILURES, expect, mpi_bench_args, run  # noqa: E402

BUDGET = "64M"


def check_verdict_alone_decides(a, study, copy):
    shutil.copyfile(study, copy)
    with h5py.File(copy, "r+") as f:
        expect(f["/study"].attrs["memory_budget_bytes"] == 64 * 2**20, "the budget is stored in /study")
        del f["/decision"]
    run([a.mpiexec, "--oversubscribe", "-n", "1", a.mpi_bench, "verdict", copy])
    with h5py.File(study, "r") as ran, h5py.File(copy, "r") as judged:
        expect("/decision" in judged, "verdict alone wrote no /decision")
        for k in (1, 2, 4):
            path = f"/decision/k{k}/max_batch"
            expect(path in judged and int(judged[path][0]) == int(ran[path][0]),
                   f"k={k}: verdict alone decides another max_batch than run")


def check_decision_counts_the_study_collective(a, tiny, study, copy, admitted_mpi):
    """A one-shot study is decided with the one-shot buffers, as `kv --collective oneshot` counts them."""
    shutil.copyfile(study, copy)
    with h5py.File(copy, "r+") as f:
        f["/study"].attrs["collective"] = "oneshot"
        del f["/decision"]
    run([a.mpiexec, "--oversubscribe", "-n", "1", a.mpi_bench, "verdict", copy])
    kv = json.loads(run([a.mpiexec, "--oversubscribe", "-n", "1", a.mpi_bench, "kv", "--model", tiny, "--tp", "1,2,4",
                         "--context", "8", "--block", "1", "--mem-per-device", BUDGET, "--reserve-pct", "10", "--dtype",
                         "f32", "--backend", "cpu", "--collective", "oneshot", "--json"]))
    admitted = {t["k"]: t["admissible_sequences"][0]["sequences"] for t in kv["tp"]}
    # The two collectives' buffers must change the answer, or this check could not fail.
    expect(admitted != admitted_mpi, f"kv admits the same batches with oneshot and mpi buffers: {admitted}")
    with h5py.File(copy, "r") as f:
        for k in (1, 2, 4):
            max_batch = int(f[f"/decision/k{k}/max_batch"][0])
            expect(max_batch == admitted[k], f"k={k}: oneshot study's max_batch {max_batch}, kv admits {admitted[k]}")


def main():
    a = mpi_bench_args()
    tiny = os.path.join(a.configs, "tiny-llama.json")
    with tempfile.TemporaryDirectory(prefix="tpb_decision_") as out:
        run([a.mpiexec, "--oversubscribe", "-n", "2", a.mpi_bench, "run", "--model", tiny, "--tp", "1,2",
             "--batch", "1,4", "--context", "8", "-w", "1", "-n", "6", "--sweep-iters", "3", "--tpot-slo", "50",
             "--predict-tp", "4", "--mem-per-device", BUDGET, "-o", out])
        study = os.path.join(out, "study.h5")
        verify = subprocess.run([a.mpiexec, "--oversubscribe", "-n", "1", a.mpi_bench, "verify", study],
                                capture_output=True, text=True, timeout=120)
        expect(verify.returncode == 0, f"verify: exit {verify.returncode}: {verify.stdout} {verify.stderr}")
        kv = json.loads(run([a.mpiexec, "--oversubscribe", "-n", "1", a.mpi_bench, "kv", "--model", tiny, "--tp",
                             "1,2,4", "--context", "8", "--block", "1", "--mem-per-device", BUDGET, "--reserve-pct",
                             "10", "--dtype", "f32", "--backend", "cpu", "--json"]))
        admitted = {t["k"]: t["admissible_sequences"][0]["sequences"] for t in kv["tp"]}
        with h5py.File(study, "r") as f:
            d = f["/decision"]
            expect(int(d.attrs["layers_full"]) == 2 and int(d.attrs["layers_run"]) == 2, "layers")
            expect(float(d.attrs["tpot_slo_ms"]) == 50, "tpot_slo_ms")
            for k in (1, 2, 4):
                g = f[f"/decision/k{k}"]
                max_batch = int(g["max_batch"][0])
                expect(max_batch == admitted[k], f"k={k}: /decision max_batch {max_batch}, kv admits {admitted[k]}")
                expect(int(g.attrs["measured"]) == (1 if k < 4 else 0), f"k={k} measured flag")
                rows = {int(r.attrs["batch"]): r for r in g.values() if isinstance(r, h5py.Group)}
                expect(max(rows) == max_batch and int(rows[max_batch].attrs["at_max_batch"]) == 1,
                       f"k={k}: rows {sorted(rows)} end at the maximum {max_batch}")
                for b, r in rows.items():
                    label = r.attrs["label"]
                    label = label.decode() if isinstance(label, bytes) else label
                    if k == 4 or b not in (1, 4):
                        expect(label == "MODELLED", f"k={k} b={b} is {label}")
                        continue
                    expect(label == "measured", f"k={k} b={b} is {label}")
                    # t_step: per iteration the slowest rank of group 0, then the median.
                    t = f[f"/step/k{k}/b{b}_c8/t_step_us"][...]
                    expect(abs(float(r.attrs["t_step_us"]) - float(np.median(t.max(axis=1)))) < 1e-9,
                           f"k={k} b={b}: decision {r.attrs['t_step_us']} vs the median of /step")
                    expect(abs(float(r.attrs["tokens_per_s_per_device"]) - b / (float(r.attrs["t_step_us"]) * 1e-6) / k)
                           < 1e-6, f"k={k} b={b}: tokens/s per device")
            model = f["/decision/k4"].attrs["collective_model"]
            model = model.decode() if isinstance(model, bytes) else model
            expect("EXTRAPOLATED" in model, f"TP-4 collective model: {model}")
            expect("/replay/k4/b4_c8" in f, "calibration replayed TP-4's shard shapes")
            expect("/decision/slo/c8" in f, "an SLO record for c=8")
        registration = json.load(open(os.path.join(out, "predictions.json")))
        expect(registration["decision"]["tpot_slo_ms"] == 50, "SLO sealed")
        expect(registration["decision"]["predict_tp"] == [4], "predict-tp sealed")
        modelled = registration["decision"]["modelled_degrees"]
        expect(len(modelled) == 1 and modelled[0]["k"] == 4 and modelled[0]["label"] == "MODELLED",
               f"modelled degrees {[(m['k'], m['label']) for m in modelled]}")
        report = open(os.path.join(out, "report.md")).read()
        section = report[report.find("## Decision"):]
        expect(report.find("## Decision") >= 0, "report.md has no Decision section")
        expect("| measured |" in section and "**MODELLED**" in section, "Decision rows not told apart")
        expect("4 (not measured)" in section, "TP-4 not labelled as not measured")
        expect("Choice under the TPOT SLO of 50 ms" in section, "no SLO choice")
        expect(os.path.exists(os.path.join(out, "fig_capacity.png")), "fig_capacity.png")
        expect(os.path.exists(os.path.join(out, "fig_tail_waste.png")), "fig_tail_waste.png")
        check_verdict_alone_decides(a, study, os.path.join(out, "verdict_alone.h5"))
        check_decision_counts_the_study_collective(a, tiny, study, os.path.join(out, "oneshot.h5"), admitted)
    if FAILURES:
        print("\n".join(FAILURES))
        sys.exit(1)
    print("decision study: ok")


if __name__ == "__main__":
    main()
