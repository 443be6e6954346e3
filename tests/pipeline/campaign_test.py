#!/usr/bin/python3
"""Campaigns end to end on tiny-llama at 2 ranks (issue 44): `campaign init`,
`run --campaign` and the refusals, one ctest per row (--case NAME):
  init_refuses_launches   init into a directory that already holds a launch;
  run_refuses_grid        a launch whose --batch differs from the sealed grid;
  run_refuses_past_L      --launch L+1;
  run_refuses_tampered    a campaign.json edited after init;
  launch_seals_digest     one launch: DIR/launch-001, its registration carries
                          the campaign's digest, the next free index is 2;
  verdict_pools           L = 3 with launches 1 and 3: the pooled verdict names
                          launch 2 missing, says INCOMPLETE, exit 0, and writes
                          campaign.h5 (the mean of the launches' medians) and
                          report.md with its figure;
  verdict_refuses_foreign a study run with -o into DIR/launch-002;
  verdict_refuses_tampered campaign.json edited after a launch;
  verdict_refuses_past_L  DIR/launch-003 in a campaign of L = 2.
Each refusal is one line naming the bad value, exit 2.

Run with Debian's /usr/bin/python3:
  campaign_test.py --mpiexec MPIEXEC --mpi-bench MPI_BENCH --configs DIR --case NAME
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

FLAGS = ["--tp", "1,2", "--batch", "1", "--context", "32", "-w", "0", "-n", "1", "--sweep-iters", "3",
         "--calibration-rounds", "3", "--rounds", "10"]


def study_flags(a):
    return ["--model", os.path.join(a.configs, "tiny-llama.json")] + FLAGS


def run(cmd, expect_rc=0):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if result.returncode != expect_rc:
        sys.exit(f"{' '.join(cmd)}: exit {result.returncode}, expected {expect_rc}\n"
                 f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def expect_refusal(cmd, named):
    """Exit 2 and exactly one error line, naming `named`."""
    result = run(cmd, expect_rc=2)
    lines = [line for line in result.stderr.splitlines() if line.startswith("tpbench: error:")]
    if len(lines) != 1 or named not in lines[0]:
        sys.exit(f"{' '.join(cmd)}: expected one error line naming '{named}', got:\n{result.stderr[-3000:]}")


def init(a, d, launches=2):
    run([a.mpi_bench, "campaign", "init", d, "--launches", str(launches)] + study_flags(a))


def launch(a, d, *extra):
    return [a.mpiexec, "--oversubscribe", "-n", "2", a.mpi_bench, "run", "--campaign", d] + study_flags(a) + list(extra)


def case_init_refuses_launches(a, d):
    os.makedirs(os.path.join(d, "launch-001"))
    expect_refusal([a.mpi_bench, "campaign", "init", d, "--launches", "2"] + study_flags(a), "launch-001")


def case_run_refuses_grid(a, d):
    init(a, d)
    cmd = launch(a, d)
    cmd[cmd.index("--batch") + 1] = "2"
    expect_refusal(cmd, "--batch: 2 differs from the campaign's sealed 1")


def case_run_refuses_past_L(a, d):
    init(a, d)
    expect_refusal(launch(a, d, "--launch", "3"), "launch 3 is outside the campaign's sealed 1..2")


def case_run_refuses_tampered(a, d):
    init(a, d)
    path = os.path.join(d, "campaign.json")
    text = open(path).read().replace('"rounds": 10', '"rounds": 12')
    open(path, "w").write(text)
    expect_refusal(launch(a, d), "edited after init")


def case_launch_seals_digest(a, d):
    init(a, d)
    env = dict(os.environ)
    env.pop("SLURM_ARRAY_TASK_ID", None)
    run(launch(a, d))
    digest = open(os.path.join(d, "campaign.json.sha256")).read().split()[0]
    if digest != hashlib.sha256(open(os.path.join(d, "campaign.json"), "rb").read()).hexdigest():
        sys.exit("campaign.json.sha256 is not campaign.json's digest")
    registration = json.load(open(os.path.join(d, "launch-001", "predictions.json")))
    if registration.get("campaign_sha256") != digest:
        sys.exit(f"launch-001's registration does not carry the campaign digest {digest}")
    # The next launch is 2; a third has no index left.
    result = run(launch(a, d))
    if "launch 2 of 2" not in result.stdout:
        sys.exit(f"the second launch did not take index 2:\n{result.stdout[-2000:]}")
    expect_refusal(launch(a, d), "all 2 launches")


def launches_into(a, d, indices, launches):
    init(a, d, launches)
    for i in indices:
        run(launch(a, d, "--launch", str(i)))


def verdict(a, d):
    return [a.mpi_bench, "verdict", "--campaign", d]


def case_verdict_pools(a, d):
    import h5py
    launches_into(a, d, [1, 3], 3)
    result = run(verdict(a, d))
    if "INCOMPLETE" not in result.stdout or "launch 2: not run" not in result.stdout:
        sys.exit(f"the pooled verdict does not name launch 2 missing:\n{result.stdout}")
    with h5py.File(os.path.join(d, "campaign.h5"), "r") as f:
        if list(f["/campaign/launches_missing"][()]) != [2] or list(f["/campaign/launches_counted"][()]) != [1, 3]:
            sys.exit("campaign.h5: counted or missing launches wrong")
        g = f["/campaign/verdict/ideal/k2"]
        launch_pct = g["launch_error_pct"][()]
        mean_log = np.log1p(launch_pct / 100).mean(axis=1)
        if not np.allclose(np.expm1(mean_log) * 100, g["cell_error_pct"][()], rtol=1e-9):
            sys.exit("campaign.h5: the pooled error is not the mean of the launches' medians")
    for launch_dir in ("launch-001", "launch-003"):
        with h5py.File(os.path.join(d, launch_dir, "study.h5"), "r") as f:
            own = f["/verdict/ideal/k2"].attrs["cell_error_pct"]
        with h5py.File(os.path.join(d, "campaign.h5"), "r") as f:
            pooled = f["/campaign/verdict/ideal/k2/launch_error_pct"][()]
        column = 0 if launch_dir == "launch-001" else 1
        if not np.allclose(pooled[:, column], own, rtol=1e-9):
            sys.exit(f"{launch_dir}: its median in campaign.h5 is not its own verdict's")
    report = open(os.path.join(d, "report.md")).read()
    if "INCOMPLETE" not in report or not os.path.exists(os.path.join(d, "fig_campaign_launches.png")):
        sys.exit("report.md does not say INCOMPLETE, or its figure is missing")


def case_verdict_refuses_foreign(a, d):
    launches_into(a, d, [1], 2)
    run([a.mpiexec, "--oversubscribe", "-n", "2", a.mpi_bench, "run", "-o", os.path.join(d, "launch-002")]
        + study_flags(a))
    expect_refusal(verdict(a, d), "launch 2")


def case_verdict_refuses_tampered(a, d):
    launches_into(a, d, [1], 2)
    path = os.path.join(d, "campaign.json")
    open(path, "w").write(open(path).read().replace('"launches": 2', '"launches": 1'))
    expect_refusal(verdict(a, d), "edited after init")


def case_verdict_refuses_past_L(a, d):
    launches_into(a, d, [1], 2)
    os.makedirs(os.path.join(d, "launch-003"))
    expect_refusal(verdict(a, d), "launch-003 is outside the campaign's sealed launches 1..2")


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--mpi-bench", required=True)
    parser.add_argument("--configs", required=True)
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    a = parser.parse_args()
    os.environ.pop("SLURM_ARRAY_TASK_ID", None)
    with tempfile.TemporaryDirectory() as tmp:
        CASES[a.case](a, os.path.join(tmp, "campaign"))
    print(f"campaign {a.case}: ok")


if __name__ == "__main__":
    main()
