#!/usr/bin/python3
"""Every refusal by `verify`, `verdict`, `report` and `measure` leaves the file as it was.

A tiny study (`mpi_bench run`, 2 ranks, tiny-llama) is measured once. Then, on
a fresh copy per case, one sealed artefact is tampered with:
  - the registration digest (/prereg sha256),
  - the measurement's seal (/step prereg_sha256: measured under another registration),
  - the predictions (/prereg/predictions_json edited, its digest left as sealed),
  - a calibration dataset (one value of a TP-1 --no-comm anchor);
and each command runs on it. `verdict` and `report` refuse every case; `verify`
checks the registration's own seal (the first and third cases) and reads the
chain of custody no further. A command must leave every attribute and dataset
of the file exactly as it found them, and a refusal exits non-zero. Last,
`measure` and `verdict` on an untampered copy refuse a claim (--rounds 6) that
differs from the sealed design, with exit 2, leaving the file as it was.

Run with Debian's /usr/bin/python3 (h5py):
  refusal_leaves_file_test.py --mpiexec MPIEXEC --mpi-bench MPI_BENCH --configs DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyutil"))
from cli_check import FAILURES, mpi_bench_args  # noqa: E402


def comparable(value):
    """A value as bytes or text, strings compared by content (not by pointer)."""
    array = np.asarray(value)
    if array.dtype.kind in "OSU":
        return tuple(v.decode() if isinstance(v, bytes) else str(v) for v in array.ravel())
    return array.dtype.str, array.shape, array.tobytes()


def snapshot(path):
    """Every attribute and dataset of the file, by path."""
    state = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            for key, value in obj.attrs.items():
                state[f"{name}@{key}"] = comparable(value)
            if isinstance(obj, h5py.Dataset):
                state[name] = comparable(obj[()])
        visit("/", f)
        f.visititems(visit)
    return state


def tamper_digest(f):
    f["/prereg"].attrs["sha256"] = "0" * 64


def tamper_seal(f):
    f["/step"].attrs["prereg_sha256"] = "f" * 64


def tamper_predictions(f):
    text = f["/prereg/predictions_json"][0]
    text = text.decode() if isinstance(text, bytes) else text
    f["/prereg/predictions_json"][0] = text.replace('"kill_switch_pct": 15', '"kill_switch_pct": 40', 1)


def tamper_calibration(f):
    name = next(n for n in f["/step_nocomm/k1"])
    data = f[f"/step_nocomm/k1/{name}/t_step_us"]
    values = data[()]
    values.flat[0] *= 1.5
    data[...] = values


CASES = {"digest": tamper_digest, "seal": tamper_seal, "predictions": tamper_predictions,
         "calibration": tamper_calibration}
VERIFY_REFUSES = {"digest", "predictions"}


def main():
    a = mpi_bench_args()
    with tempfile.TemporaryDirectory(prefix="tpb_refusal_") as tmp:
        study = os.path.join(tmp, "study")
        ran = subprocess.run([a.mpiexec, "--oversubscribe", "-n", "2", a.mpi_bench, "run", "--model",
                              os.path.join(a.configs, "tiny-llama.json"), "--tp", "1,2", "--batch", "1",
                              "--context", "8", "-w", "0", "-n", "1", "--sweep-iters", "2",
                              "--calibration-rounds", "3", "--rounds", "5", "-o", study],
                             capture_output=True, text=True, timeout=300)
        if ran.returncode != 0:
            sys.exit(f"the study failed: exit {ran.returncode}\n{ran.stderr[-3000:]}")
        original = os.path.join(study, "study.h5")
        for case, tamper in CASES.items():
            for command in (["verify"], ["verdict"], ["report", "-o", os.path.join(tmp, "report_" + case)]):
                copy = os.path.join(tmp, f"{case}_{command[0]}.h5")
                shutil.copyfile(original, copy)
                with h5py.File(copy, "r+") as f:
                    tamper(f)
                before = snapshot(copy)
                cmd = [a.mpiexec, "-n", "1", a.mpi_bench, command[0], copy] + command[1:]
                result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
                what = f"{case}: {command[0]}"
                if result.returncode == 0 and (command[0] != "verify" or case in VERIFY_REFUSES):
                    FAILURES.append(f"{what} accepted a tampered file")
                after = snapshot(copy)
                changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
                if changed:
                    FAILURES.append(f"{what} (exit {result.returncode}) changed {changed[:5]}")
        # A claim that differs from the sealed design (N = 5 rounds) is refused the same way.
        for command in (["measure", "--rounds", "6"], ["verdict", "--rounds", "6"]):
            copy = os.path.join(tmp, f"claim_{command[0]}.h5")
            shutil.copyfile(original, copy)
            before = snapshot(copy)
            cmd = [a.mpiexec, "--oversubscribe", "-n", "2", a.mpi_bench, command[0], copy] + command[1:]
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            what = f"claim --rounds 6: {command[0]}"
            if result.returncode != 2 or "--rounds: 6 differs from the registered 5" not in result.stderr:
                FAILURES.append(f"{what}: exit {result.returncode}, not the refusal: {result.stderr[-500:]}")
            after = snapshot(copy)
            changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
            if changed:
                FAILURES.append(f"{what} changed {changed[:5]}")
    for failure in FAILURES:
        print("FAILED:", failure)
    print(f"{len(CASES) * 3 + 2 - len(FAILURES)} passed, {len(FAILURES)} failed")
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
