#!/usr/bin/python3
"""Outside forms (--form NAME=FILE) through the command line, on tiny-llama, one ctest per case (--case NAME):
  refusals  every bad FILE or NAME refused by `run` before any calibration: exit 2, one error line naming the
            value, no results file (DIR/study.h5 never created); three of them also on 2 ranks (every rank exits
            2); `campaign init` refuses one the same way, sealing nothing;
  campaign  `campaign init --form` seals both forms' bytes into campaign.json; a launch naming other bytes, or
            none, is refused; the launch naming the same files registers them: predictions.json holds each
            file's bytes, its SHA-256 and its rows as predictions under its NAME (an edit to FILE afterwards
            changes nothing); `register --form` refuses every bad FILE or NAME on a copy of the launch's
            file, leaving it byte for byte and writing no predictions.json; and a sealed copy whose bytes were
            edited is refused: by the file's digest (verify), and, with /prereg and /step re-hashed around
            the edit, by the form's own SHA-256 (verdict names the form).

Run with Debian's /usr/bin/python3 (h5py):
  outside_form_test.py --mpiexec MPIEXEC --mpi-bench MPI_BENCH --configs DIR --case NAME
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyutil"))
from cli_check import FAILURES, expect, mpi_bench_args  # noqa: E402

GRID = ["--tp", "1,2", "--batch", "1", "--context", "8"]
STUDY = GRID + ["-w", "0", "-n", "1", "--sweep-iters", "2", "--calibration-rounds", "3", "--rounds", "5"]
HEADER = "k,batch,context,t_step_us\n"
GOOD_CSV = HEADER + "1,1,8,1000\n2,1,8,600.5\n"
GOOD_JSON = ('{"predictions": [{"k": 2, "batch": 1, "context": 8, "t_step_us": 610, "compute_us": 500, '
             '"collective_us": 100, "host_us": 10},\n {"k": 1, "batch": 1, "context": 8, "t_step_us": 990, '
             '"compute_us": 980, "collective_us": 0, "host_us": 10}]}\n')


def bad_forms(work):
    """(the --form arguments, the text the error line names) per bad input."""
    os.makedirs(work, exist_ok=True)

    def file(name, text):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    good = file("good.csv", GOOD_CSV)
    over = file("over.csv", GOOD_CSV + "\n" * (1 << 20))
    directory = os.path.join(work, "a_directory")
    os.makedirs(directory, exist_ok=True)
    return [
        (["x=" + file("missing_cell.csv", HEADER + "1,1,8,1000\n")], "no prediction for cell k=2,batch=1,context=8"),
        (["x=" + file("outside.csv", GOOD_CSV + "4,1,8,300\n")], "outside.csv:4: cell k=4,batch=1,context=8 is not in"),
        (["x=" + file("twice.csv", GOOD_CSV + "1,1,8,900\n")],
         "twice.csv:4: cell k=1,batch=1,context=8 is given twice"),
        (["x=" + file("nan.csv", HEADER + "1,1,8,nan\n2,1,8,600\n")], "nan.csv:2: t_step_us 'nan'"),
        (["x=" + file("negative.csv", HEADER + "1,1,8,1000\n2,1,8,-600\n")], "negative.csv:3: t_step_us '-600'"),
        (["x=" + file("zero.csv", HEADER + "1,1,8,0\n2,1,8,600\n")], "zero.csv:2: t_step_us '0'"),
        (["x=" + file("term.csv", HEADER.strip() + ",compute_us,collective_us,host_us\n1,1,8,1000,990,0,-1\n")],
         "term.csv:2: host_us '-1'"),
        (["x=" + file("column.csv", "k,batch,context,latency_us\n")], "column.csv:1: column 'latency_us'"),
        (["x=" + file("key.json", '{"predictions": [{"k": 1, "batch": 1, "context": 8, "latency": 5}]}')],
         "predictions[0]: unknown key 'latency'"),
        (["x=" + file("broken.json", '{"predictions": [')], "broken.json: not valid JSON"),
        (["ideal=" + good], "NAME 'ideal' is taken"),
        (["transfer=" + good], "NAME 'transfer' is taken"),
        (["aa=" + good], "NAME 'aa' is taken"),
        (["My-Form=" + good], "NAME 'My-Form' is not lower-case"),
        (["=" + good], "NAME is empty"),
        (["x=" + good, "x=" + good], "NAME 'x' is given twice"),
        (["x=" + file("empty.csv", "")], "empty.csv: the file is empty"),
        (["x=" + directory], f"'{directory}' is a directory"),
        (["x=" + over], "larger than 1 MiB"),
        (["x=" + os.path.join(work, "absent.csv")], "cannot read"),
    ]


def bench(a, ranks):
    """mpi_bench on `ranks` ranks: one is a singleton, without mpiexec's start-up."""
    return [a.mpi_bench] if ranks == 1 else [a.mpiexec, "-n", str(ranks), a.mpi_bench]


def concurrently(jobs):
    """Runs each job, four at a time: a refused command waits on MPI's start-up far more than it computes."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        for done in [pool.submit(job) for job in jobs]:
            done.result()


def form_flags(forms):
    return [flag for form in forms for flag in ("--form", form)]


def expect_refused(cmd, named, what):
    """Exit 2 and exactly one error line, naming `named`."""
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    lines = re.findall(r"tpbench: error:[^\n]*", result.stderr)
    expect(result.returncode == 2, f"{what}: exit {result.returncode}, expected 2: {result.stderr[-500:]}")
    expect(len(lines) == 1, f"{what}: {len(lines)} error lines: {lines}")
    expect(any(named in line for line in lines), f"{what}: the error does not name '{named}': {lines}")


def refusals(a, work):
    model = ["--model", os.path.join(a.configs, "tiny-llama.json")]
    cases = bad_forms(work)

    def refuse(i, forms, named, ranks):
        out = os.path.join(work, f"run_{i}_{ranks}")
        expect_refused(bench(a, ranks) + ["run"] + model + STUDY + form_flags(forms) + ["-o", out], named,
                       f"run --form {forms} on {ranks} rank(s)")
        expect(not os.path.exists(out), f"run --form {forms}: left {out} behind")

    # Every case on one rank; three on two, where each rank must leave with exit 2.
    concurrently([lambda i=i, c=c, n=n: refuse(i, c[0], c[1], n)
                  for i, c in enumerate(cases) for n in ([1, 2] if i in (0, 10, 18) else [1])])
    campaign = os.path.join(work, "campaign")
    expect_refused(bench(a, 1) + ["campaign", "init", campaign, "--launches", "2"] + model
                   + STUDY + form_flags(cases[3][0]), cases[3][1], "campaign init --form nan.csv")
    expect(not os.path.exists(os.path.join(campaign, "campaign.json")), "campaign init sealed a refused form")


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def text_of(value):
    return value.decode() if isinstance(value, bytes) else value


def check_registration(predictions_json):
    registration = json.load(open(predictions_json))
    forms = {f["name"]: f for f in registration.get("outside_forms", [])}
    expect(sorted(forms) == ["mine", "yours"], f"outside forms registered: {sorted(forms)}")
    for name, text, has_terms in (("mine", GOOD_CSV, False), ("yours", GOOD_JSON, True)):
        form = forms.get(name, {})
        expect(form.get("bytes") == text, f"{name}: the sealed bytes are not the file's")
        expect(form.get("sha256") == sha256(text), f"{name}: sha256 {form.get('sha256')}")
        expect(form.get("has_terms") == has_terms, f"{name}: has_terms {form.get('has_terms')}")
    by_cell = {(p["form"], p["k"]): p for p in registration["predictions"]}
    expect(by_cell.get(("mine", 2), {}).get("t_step_us") == 600.5, "mine at k=2 is not 600.5 µs")
    expect(by_cell.get(("mine", 2), {}).get("terms", {}).get("compute_us") == 600.5,
           "mine at k=2: without term columns the step is its compute share")
    expect(by_cell.get(("yours", 2), {}).get("terms", {}).get("collective_us") == 100, "yours at k=2: terms")


def forge_form_bytes(path):
    """The sealed bytes of `mine` edited (its sha256 kept); /prereg and /step re-hashed around the edit."""
    with h5py.File(path, "r+") as f:
        text = text_of(f["/prereg/predictions_json"][0])
        edited = text.replace("2,1,8,600.5", "2,1,8,60.5", 1)
        expect(edited != text, "the sealed text holds no bytes of mine to edit")
        del f["/prereg/predictions_json"]
        f.create_dataset("/prereg/predictions_json", data=[edited.encode()], dtype=h5py.string_dtype())
        f["/prereg"].attrs["sha256"] = sha256(edited)
        f["/step"].attrs["prereg_sha256"] = sha256(edited)


def edit_form_bytes(path):
    """The sealed bytes of `mine` edited, nothing re-hashed."""
    with h5py.File(path, "r+") as f:
        text = text_of(f["/prereg/predictions_json"][0])
        f["/prereg/predictions_json"][0] = text.replace("2,1,8,600.5", "2,1,8,60.5", 1)


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def sealed_by_campaign(a, work):
    model = ["--model", os.path.join(a.configs, "tiny-llama.json")]
    mine, yours = os.path.join(work, "mine.csv"), os.path.join(work, "yours.json")
    for path, text in ((mine, GOOD_CSV), (yours, GOOD_JSON)):
        with open(path, "w") as f:
            f.write(text)
    forms = ["mine=" + mine, "yours=" + yours]
    campaign = os.path.join(work, "campaign")
    init = subprocess.run(bench(a, 1) + ["campaign", "init", campaign, "--launches", "2"] + model
                          + STUDY + form_flags(forms), capture_output=True, text=True, timeout=120)
    if init.returncode != 0:
        sys.exit(f"campaign init: exit {init.returncode}\n{init.stderr[-3000:]}")
    design = json.load(open(os.path.join(campaign, "campaign.json")))
    expect([f.get("bytes") for f in design.get("outside_forms", [])] == [GOOD_CSV, GOOD_JSON],
           "campaign.json does not seal both forms' bytes")

    launch = bench(a, 2) + ["run", "--campaign", campaign] + model + STUDY
    other = os.path.join(work, "other.csv")
    with open(other, "w") as f:
        f.write(GOOD_CSV.replace("600.5", "601"))
    expect_refused(launch + form_flags(["mine=" + other, "yours=" + yours]), "--form: mine=" + sha256(
        GOOD_CSV.replace("600.5", "601")), "a launch naming other bytes")
    expect_refused(launch + form_flags(forms[:1]), "--form:", "a launch naming one form of two")
    expect(not os.path.exists(os.path.join(campaign, "launch-001")), "a refused launch left launch-001")
    ran = subprocess.run(launch + form_flags(forms), capture_output=True, text=True, timeout=300)
    if ran.returncode != 0:
        sys.exit(f"the launch failed: exit {ran.returncode}\n{ran.stderr[-3000:]}")
    study = os.path.join(campaign, "launch-001", "study.h5")
    predictions = os.path.join(campaign, "launch-001", "predictions.json")
    with open(mine, "w") as f:  # an edit to FILE after registration changes nothing
        f.write(GOOD_CSV.replace("600.5", "1"))
    check_registration(predictions)

    def refuse(i, bad, named):
        copy_dir = os.path.join(work, f"register_{i}")
        os.makedirs(copy_dir)
        copy = shutil.copy(study, copy_dir)
        before = file_digest(copy)
        expect_refused(bench(a, 1) + ["register", copy] + form_flags(bad), named, f"register --form {bad}")
        expect(file_digest(copy) == before, f"register --form {bad} changed the file")
        expect(not os.path.exists(os.path.join(copy_dir, "predictions.json")), f"register --form {bad} wrote one")

    concurrently([lambda i=i, c=c: refuse(i, c[0], c[1])
                  for i, c in enumerate(bad_forms(os.path.join(work, "bad")))])

    edited = shutil.copy(study, os.path.join(work, "edited.h5"))
    edit_form_bytes(edited)
    verify = subprocess.run(bench(a, 1) + ["verify", edited], capture_output=True, text=True,
                            timeout=120)
    expect(verify.returncode == 1 and "/prereg" in verify.stderr,
           f"verify of edited sealed bytes: exit {verify.returncode}: {verify.stderr[-500:]}")
    forged = shutil.copy(study, os.path.join(work, "forged.h5"))
    forge_form_bytes(forged)
    expect_refused(bench(a, 1) + ["verdict", forged], "sealed outside form 'mine': its bytes hash",
                   "verdict of forged sealed bytes")


def main():
    a = mpi_bench_args("--case")
    with tempfile.TemporaryDirectory(prefix="tpb_outside_form_") as work:
        {"refusals": refusals, "campaign": sealed_by_campaign}[a.case](a, work)
    for failure in FAILURES:
        print("FAILED:", failure)
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
