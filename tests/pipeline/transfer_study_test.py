#!/usr/bin/python3
"""Calibrate on A, predict B, end to end on 2 ranks: `mpi_bench calibrate`
tiny-llama (A), then `mpi_bench run --transfer-from A` on tiny-qwen2-moe (B,
a mixture-of-experts model with q/k/v bias and a shared expert):
  - B's predictions.json registers `transfer` beside its own forms, with A's
    fit, its digest and A's machine, and every cell's t_transfer_us;
  - every cell carries its distinct experts per layer: recorded (the row sums
    of the replay's experts_touched table, equal at k = 1 and 2) and MODELLED
    (E·(1 − (1 − top/E)^b)), and the report tabulates both;
  - the verdict judges `transfer` at every k, and report.md has its section
    with "calibrated on A" and "calibrated on B" apart;
  - custody: the fit edited in /prereg after registration is refused (the
    fit's own digest, for an edit re-sealed around it, is registration_test's);
  - bad input: `register --transfer-from` refuses a missing file, a file that
    is not HDF5, one that is not a calibrated study, one without phase
    timings, another machine (core count, backend) and a grid outside A's,
    each with one line naming the value and exit 2 on every rank.

Run with Debian's /usr/bin/python3 (h5py):
  transfer_study_test.py --mpiexec MPIEXEC --mpi-bench MPI_BENCH --configs DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyutil"))
from cli_check import FAILURES, expect, mpi_bench_args, run  # noqa: E402
from h5_edit import edited_copy  # noqa: E402

SMALL = ["--tp", "1,2", "--batch", "1,4", "--context", "8", "-w", "0", "-n", "1", "--sweep-iters", "3",
         "--calibration-rounds", "3"]


def expect_refused(a, ranks, args, text):
    """Exit 2 and exactly one error line, naming `text`."""
    cmd = [a.mpiexec, "--oversubscribe", "-n", str(ranks), a.mpi_bench] + args
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    lines = re.findall(r"tpbench: error:[^\n]*", result.stderr)
    expect(result.returncode == 2, f"{' '.join(args)}: exit {result.returncode}, expected 2: {result.stderr[-500:]}")
    expect(len(lines) == 1, f"{' '.join(args)}: {len(lines)} error lines: {lines}")
    expect(any(text in line for line in lines), f"{' '.join(args)}: the error does not name '{text}': {lines}")


def text_of(value):
    return value.decode() if isinstance(value, bytes) else value


def check_registration(out, study):
    registration = json.load(open(os.path.join(out, "predictions.json")))
    forms = [f["name"] for f in registration["model_forms"]]
    expect("transfer" in forms, f"registered forms {forms}")  # roofline, where /membw was probed, after it
    expect(any(k["form"] == "transfer" for k in registration["kill_switches"]), "no kill switch for transfer")
    t = registration.get("transfer", {})
    expect(t.get("model") == "tiny-llama", f"transfer source model {t.get('model')}")
    expect(t.get("machine", {}).get("cpu_cores") == os.cpu_count(), f"machine {t.get('machine')}")
    classes = {c["class"] for c in t.get("fit", [])}
    expect(classes == {"projection", "attention", "elementwise", "lm_head"}, f"fitted classes {classes}")
    expect(all(len(c["points"]) >= 2 and "residual_us" in c["points"][0] for c in t.get("fit", [])),
           "every class keeps its points and residuals")
    expect(len(t.get("cells", [])) == 4, "transfer priced 4 cells (k 1,2 × b 1,4)")
    for cell in registration["calibration_inputs"]:
        expect(cell.get("t_transfer_us", 0) > 0, f"cell k={cell['k']} b={cell['batch']} has no t_transfer_us")
    check_experts(t.get("cells", []), study)


def check_experts(cells, study):
    """Recorded: the replay's table, the same at every k; MODELLED: the formula for 12 experts, top 4."""
    recorded = {}
    with h5py.File(study, "r") as f:
        for cell in cells:
            e = cell.get("experts")
            where = f"k={cell['k']} b={cell['batch']}"
            expect(e is not None, f"{where}: no distinct-expert counts for a mixture-of-experts B")
            if e is None:
                continue
            table = f[f"/replay/k{cell['k']}/b{cell['batch']}_c8/experts_touched"][()]
            per_layer = [int(row.sum()) for row in table]
            expect(abs(e["recorded_per_layer"] - sum(per_layer) / len(per_layer)) < 1e-9,
                   f"{where}: recorded {e['recorded_per_layer']}, the table says {per_layer}")
            recorded.setdefault(cell["batch"], []).append(per_layer)
            modelled = 12 * (1 - (1 - 4 / 12) ** cell["batch"])
            expect(abs(e["modelled_per_layer"] - modelled) < 1e-9, f"{where}: MODELLED {e['modelled_per_layer']}")
            expect("MODELLED" in e.get("label", ""), f"{where}: the modelled count is not labelled MODELLED")
            expect(e["modelled_compute_us"] > 0, f"{where}: no price at the MODELLED count")
    for batch, tables in recorded.items():
        expect(all(t == tables[0] for t in tables), f"b={batch}: the experts touched differ between k: {tables}")


def check_custody(a, study, work):
    def edit_alpha(f):
        text = text_of(f["/prereg/predictions_json"][0])
        edited = re.sub(r'"alpha_us": [0-9.e+-]+', '"alpha_us": 0.5', text, count=1)
        expect(edited != text, "no alpha_us in the sealed text")
        del f["/prereg/predictions_json"]
        f.create_dataset("/prereg/predictions_json", data=[edited.encode()], dtype=h5py.string_dtype())

    copy = edited_copy(study, os.path.join(work, "fit_edited.h5"), edit_alpha)
    expect_refused(a, 1, ["verdict", copy], "sha256")


def check_bad_sources(a, a_file, b_study, work):
    def unregistered(f):
        del f["/prereg"]

    b = edited_copy(b_study, os.path.join(work, "b_unregistered.h5"), unregistered)

    def source(name, edit):
        return edited_copy(a_file, os.path.join(work, name), edit)

    def set_attr(path, name, value):
        def edit(f):
            f[path].attrs[name] = value
        return edit

    def delete(path):
        def edit(f):
            del f[path]
        return edit

    register = ["register", b, "-d", work, "--transfer-from"]
    missing = os.path.join(work, "nowhere.h5")
    expect_refused(a, 2, register + [missing], f"results file '{missing}' does not exist")
    expect_refused(a, 1, register + [os.path.join(a.configs, "tiny-llama.json")], "is not an HDF5 results file")
    expect_refused(a, 1, register + [source("no_study.h5", delete("/study"))], "is not a calibrated study (no /study)")
    expect_refused(a, 1, register + [source("no_phases.h5", delete("/replay/k2/b4_c8/phase"))],
                   "no /replay/k2/b4_c8/phase/")
    expect_refused(a, 1, register + [source("cores.h5", set_attr("/meta", "env_cpu_cores", 999))], "999 cores")
    expect_refused(a, 1, register + [source("cuda.h5", set_attr("/study", "backend", "cuda"))], "backend cuda")
    expect_refused(a, 1, register + [source("grid.h5", set_attr("/study", "batch", [1.0, 2.0]))],
                   "batch 4 lies outside the batch range 1..2")


def main():
    a = mpi_bench_args()
    with tempfile.TemporaryDirectory(prefix="tpb_transfer_") as work:
        a_file = os.path.join(work, "a.h5")
        run([a.mpiexec, "--oversubscribe", "-n", "2", a.mpi_bench, "calibrate", "--model",
             os.path.join(a.configs, "tiny-llama.json")] + SMALL + ["-o", a_file])
        out = os.path.join(work, "b")
        run([a.mpiexec, "--oversubscribe", "-n", "2", a.mpi_bench, "run", "--model",
             os.path.join(a.configs, "tiny-qwen2-moe.json")] + SMALL +
            ["--rounds", "4", "--transfer-from", a_file, "-o", out])
        study = os.path.join(out, "study.h5")
        check_registration(out, study)
        with h5py.File(study, "r") as f:
            for k in (1, 2):
                expect(f"/verdict/transfer/k{k}" in f, f"no verdict for transfer at k={k}")
        report = open(os.path.join(out, "report.md")).read()
        section = report[report.find("## Transfer: calibrated on `tiny-llama`"):]
        section = section[:section.find("\n## ", 1)]  # up to the next section
        expect(report.find("## Transfer: calibrated on `tiny-llama`") >= 0, "report.md has no transfer section")
        expect("calibrated on A: `transfer`" in section and "calibrated on B: `ideal`" in section,
               "the transfer table does not keep A's and B's calibrations apart")
        expect(len(re.findall(r"^\| [12] \| [14] \| 8 \|", section, re.M)) == 8,
               f"one row per k and cell, in the transfer table and in the experts table: {section}")
        expect(len(re.findall(r"\| [0-9.]+ \(MODELLED\) \|", section)) == 4, f"the MODELLED counts: {section}")
        check_custody(a, study, work)
        check_bad_sources(a, a_file, study, work)
    if FAILURES:
        sys.exit("FAILED:\n  " + "\n  ".join(FAILURES))
    print("transfer study: every check passed")


if __name__ == "__main__":
    main()
