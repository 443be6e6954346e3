#!/usr/bin/python3
"""`mpi_bench calibration` on a tiny calibrated study (tiny-llama, 2 ranks, a few
seconds), and the worked example predictor on its document:
  - the document's grid, sweep fits, anchors and phase medians are the study
    file's own figures; a ledger's weight bytes are the shard's matrix sizes and
    the replay point's weight_bytes_per_step; the collective counts follow k;
  - /membw absent: read_GBps and the peaks are null; present (written into a
    copy): its median over passes and ranks, and threads × the FMA peak;
  - `-o PATH` writes the same document and nothing beside it; FILE is unchanged;
  - a missing file, a file that is not HDF5, an HDF5 file without a study and a
    study whose calibration did not finish: exit 2 and one line naming it;
  - jobs/examples/predict_from_calibration.py writes one CSV row per grid cell,
    every time > 0, with and without /membw; a document it cannot read: exit 2;
    registered as an outside form, its terms agree with the built-in `roofline`.

  calibration_document_test.py --mpiexec MPIEXEC --mpi-bench MPI_BENCH --configs DIR --predictor SCRIPT
"""
import csv
import hashlib
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyutil"))
from cli_check import FAILURES, expect, mpi_bench_args, run  # noqa: E402
from h5_edit import edited_copy  # noqa: E402

GRID = {"tp": [1, 2], "batch": [1, 4], "context": [8]}
SMALL = ["--tp", "1,2", "--batch", "1,4", "--context", "8", "-w", "0", "-n", "1", "--sweep-iters", "3",
         "--calibration-rounds", "2"]


def written_document(a, study, path):
    """The document `calibration -o PATH` wrote, and PATH."""
    expect(run([a.mpi_bench, "calibration", study, "-o", path]) == f"# calibration: {path}\n", f"-o {path}: its line")
    return json.load(open(path)), path


def expect_refused(cmd, text):
    """Exit 2 and exactly one line on stderr, naming `text`."""
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    lines = result.stderr.strip().splitlines()
    expect(result.returncode == 2, f"{cmd[1:]}: exit {result.returncode}, expected 2: {result.stderr[-300:]}")
    expect(len(lines) == 1 and text in lines[0], f"{cmd[1:]}: expected one line naming '{text}': {lines}")


def finite(value):
    """An attribute as the document states it: +inf (a flat fit's beta) is null."""
    return float(value) if math.isfinite(value) else None


def same_median(value, sample):
    """The median of an even sample is a mean of two: equal up to its rounding."""
    return math.isclose(value, statistics.median(sample), rel_tol=1e-12)


def check_document(doc, f):
    expect(doc["schema"] == "tpbench-calibration" and doc["schema_version"] == 1, "schema and version")
    expect({k: doc["grid"][k] for k in GRID} == GRID, f"grid {doc['grid']}")
    expect(doc["machine"]["ranks"] == 2 and doc["machine"]["backend"] == "cpu", f"machine {doc['machine']}")
    expect(doc["machine"]["cpu_cores"] == f["/meta"].attrs["env_cpu_cores"], "cpu cores from /meta")
    expect(doc["model"]["name"] == "tiny-llama" and doc["model"]["hidden_size"] == 64, f"model {doc['model']}")
    sweep = next(s for s in doc["sweeps"] if s["operation"] == "all_reduce" and s["k"] == 2)
    attrs = f["/sweep/k2"].attrs
    expect([sweep["fit"][n] for n in ("alpha_us", "beta_GBps", "r2")] ==
           [finite(attrs[n]) for n in ("fit_alpha_us", "fit_beta_GBps", "fit_r2")], f"all-reduce fit {sweep}")
    for name in ("alpha_us", "beta_GBps", "r2", "min_bytes", "max_bytes"):
        expect([s[name] for s in sweep["segments"]] == [finite(v) for v in attrs[f"piecewise_{name}"].flat],
               f"all-reduce segments' {name}: {sweep['segments']}")
    expect(len(doc["cells"]) == 4, f"{len(doc['cells'])} cells, expected k 1,2 x b 1,4")
    config = f["/config"].attrs
    heads, kv_heads, head_dim = (int(config[n]) for n in ("num_attention_heads", "num_key_value_heads", "head_dim"))
    for cell in doc["cells"]:
        k, b, c = cell["k"], cell["batch"], cell["context"]
        replay, nocomm = f[f"/replay/k{k}/b{b}_c{c}"], f[f"/step_nocomm/k1/b{b}_c{c}"]
        where = f"cell k={k} b={b}"
        expect(same_median(cell["anchors"]["t_replay_us"], replay["t_step_us"][:, 0]), f"{where}: t_replay")
        expect(same_median(cell["anchors"]["t_compute1_us"], nocomm["t_step_us"][:, 0]), f"{where}: t_compute1")
        expect(same_median(cell["phases_us"]["replay"]["qkv"], replay["phase/qkv_us"][()].flat), f"{where}: qkv")
        expect("all_reduce" not in cell["phases_us"]["replay"], f"{where}: a replay times no all-reduce")
        ledger = cell["ledger"]
        qkv_weights = 2 * 64 * (heads + 2 * kv_heads) * head_dim * 4 // k  # 2 layers, f32, column-sharded
        expect(ledger["phases"]["qkv"]["weight_bytes_read"] == qkv_weights, f"{where}: qkv weight bytes {ledger}")
        expect(ledger["weight_bytes_per_step"] == replay.attrs["weight_bytes_per_step"], f"{where}: weight bytes")
        expected = ({"ar_bytes": b * 64 * 4, "n_ar": 4, "ag_bytes": b * 256 * 4, "n_ag": 1} if k > 1 else
                    {"ar_bytes": 0, "n_ar": 0, "ag_bytes": 0, "n_ag": 0})  # a group of one issues no collective
        expect(ledger["collectives"] == expected, f"{where}: collectives {ledger['collectives']}")


def check_bandwidth(a, study, work):
    absent = edited_copy(study, os.path.join(work, "no_membw.h5"), lambda f: f.pop("/membw", None))
    doc, absent_doc = written_document(a, absent, os.path.join(work, "replay.json"))
    bandwidth = doc["bandwidth"]
    expect(bandwidth["read_GBps"] is None and bandwidth["compute_peak_GFLOPs"] is None, f"absent: {bandwidth}")

    def add_membw(f):
        f.pop("/membw", None)
        f["/membw/read_GBps"] = [[10.0, 20.0], [30.0, 44.0]]  # passes x ranks
        f["/membw"].attrs.update({"bytes": 1 << 20, "threads": 3, "fma_peak_GFLOPs": 5.0, "method": "test"})
    present = edited_copy(study, os.path.join(work, "membw.h5"), add_membw)
    doc, present_doc = written_document(a, present, os.path.join(work, "roofline.json"))
    bandwidth = doc["bandwidth"]
    expect(bandwidth["read_GBps"] == 25.0 and bandwidth["compute_peak_GFLOPs"] == 15.0, f"present: {bandwidth}")
    return absent_doc, present_doc


def check_refusals(a, study, work):
    calibration = [a.mpi_bench, "calibration"]
    missing = os.path.join(work, "missing.h5")
    expect_refused(calibration + [missing], missing)
    text = os.path.join(work, "text.h5")
    open(text, "w").write("not hdf5\n")
    expect_refused(calibration + [text], "is not an HDF5 results file")
    step_like = edited_copy(study, os.path.join(work, "no_study.h5"), lambda f: f.pop("/study"))
    expect_refused(calibration + [step_like], "/study is missing")
    unfinished = edited_copy(study, os.path.join(work, "unfinished.h5"), lambda f: f.pop("/replay/k2"))
    expect_refused(calibration + [unfinished], "is not calibrated yet (no /replay/k2/b1_c8)")
    expect_refused(calibration + [study, "-o", os.path.join(work, "no_dir", "c.json")], "-o: cannot write")


def check_predictor(a, doc_path, work, name):
    out = os.path.join(work, f"{name}.csv")
    run([sys.executable, a.predictor, doc_path, "-o", out])
    rows = list(csv.DictReader(open(out)))
    expect(list(rows[0].keys()) == ["k", "batch", "context", "t_step_us", "compute_us", "collective_us", "host_us"],
           f"{name}: header {list(rows[0].keys())}")
    cells = sorted((int(r["k"]), int(r["batch"]), int(r["context"])) for r in rows)
    expect(cells == [(1, 1, 8), (1, 4, 8), (2, 1, 8), (2, 4, 8)], f"{name}: cells {cells}")
    expect(all(float(r["t_step_us"]) > 0 and float(r["compute_us"]) > 0 for r in rows), f"{name}: times {rows}")
    expect(all(float(r["collective_us"]) > 0 for r in rows if r["k"] == "2"), f"{name}: k=2 collective {rows}")
    expect_refused([sys.executable, a.predictor, a.predictor, "-o", out], "cannot read")


def check_against_roofline(a, study, doc_path, work):
    """Registered as an outside form beside the built-in `roofline`, which prices the same ledger at the same
    ceilings inside the registration: the same collective terms everywhere, and the same compute at k = 1 (at k > 1
    its shard's argmax scores the vocabulary shard, the document's ledger the gathered logits)."""
    csv_path = os.path.join(work, "example.csv")
    run([sys.executable, a.predictor, doc_path, "-o", csv_path])
    registered = edited_copy(study, os.path.join(work, "registered.h5"), lambda f: None)
    run([a.mpi_bench, "register", registered, "--form", f"example={csv_path}"])
    predictions = json.load(open(os.path.join(work, "predictions.json")))["predictions"]
    by_form = {(p["form"], p["k"], p["batch"]): p["terms"] for p in predictions if p["form"] in ("example", "roofline")}
    for (form, k, b), terms in by_form.items():
        if form != "example":
            continue
        built_in = by_form.get(("roofline", k, b), {})
        expect(math.isclose(terms["collective_us"], built_in.get("collective_us", -1), rel_tol=1e-9),
               f"k={k} b={b}: collective {terms} vs roofline {built_in}")
        expect(k > 1 or math.isclose(terms["compute_us"], built_in.get("compute_us", -1), rel_tol=1e-9),
               f"k={k} b={b}: compute {terms} vs roofline {built_in}")
    expect(len(by_form) == 8, f"example and roofline at 4 cells each: {sorted(by_form)}")


def main():
    a = mpi_bench_args("--predictor")
    with tempfile.TemporaryDirectory(prefix="tpb_calibration_") as work:
        study = os.path.join(work, "study.h5")
        run([a.mpiexec, "--oversubscribe", "-n", "2", a.mpi_bench, "calibrate", "--model",
             os.path.join(a.configs, "tiny-llama.json")] + SMALL + ["-o", study])
        digest = hashlib.sha256(open(study, "rb").read()).hexdigest()
        doc = json.loads(run([a.mpi_bench, "calibration", study]))
        with h5py.File(study, "r") as f:
            check_document(doc, f)
        expect(written_document(a, study, os.path.join(work, "calibration.json"))[0] == doc,
               "-o writes the document stdout shows")
        expect(not [n for n in os.listdir(work) if re.search(r"\.tmp\.", n)], "-o leaves no temporary file")
        absent_doc, present_doc = check_bandwidth(a, study, work)
        check_refusals(a, study, work)
        expect(hashlib.sha256(open(study, "rb").read()).hexdigest() == digest, "calibration modified FILE")
        check_predictor(a, absent_doc, work, "replay")
        check_predictor(a, present_doc, work, "roofline")
        check_against_roofline(a, study, os.path.join(work, "calibration.json"), work)
    if FAILURES:
        sys.exit("FAILED:\n  " + "\n  ".join(FAILURES))
    print("calibration document: every check passed")


if __name__ == "__main__":
    main()
