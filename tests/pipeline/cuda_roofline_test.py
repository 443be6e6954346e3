#!/usr/bin/python3
"""`roofline` on the cuda backend, on a GPU (exit 77, skipped, where none is
visible): a tiny cuda calibration (tiny-llama, 2 ranks at TP-1, which may share
one GPU) probes the device's ceilings once, and its registration seals them:
  - /d2d/copy_GBps and /gemm/rate_GFLOPs hold passes × ranks, every rate
    positive and finite, /gemm its 4096³ bf16 shape; there is no /membw;
  - predictions.json registers `roofline` with its ceilings under `roofline`:
    copy_GBps (no read_GBps), peak_GFLOPs, bandwidth_probe, peak_probe, each
    bandwidth and peak positive, finite and the probes' medians;
  - `mpi_bench calibration` states the same ceilings (d2d_copy_GBps,
    gemm_peak_GFLOPs, gemm_shape; read_GBps null), and the worked example
    predictor on that document, registered as an outside form, prices the
    compute exactly as the built-in `roofline` does.

  cuda_roofline_test.py --mpiexec MPIEXEC --mpi-bench MPI_BENCH --configs DIR --predictor SCRIPT
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyutil"))
from cli_check import FAILURES, expect, mpi_bench_args, run  # noqa: E402

SMALL = ["--backend", "cuda", "--tp", "1", "--batch", "1,4", "--context", "8", "-w", "0", "-n", "1",
         "--sweep-iters", "3", "--calibration-rounds", "2"]


def gpu_visible():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def positive_finite(value):
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def check_probes(f):
    """The probes' medians over passes and ranks: (copy GB/s, GEMM GFLOP/s)."""
    expect("/membw" not in f, "a cuda calibration probes no host memory")
    medians = []
    for path in ("/d2d/copy_GBps", "/gemm/rate_GFLOPs"):
        if path not in f:
            FAILURES.append(f"{path} is missing")
            medians.append(None)
            continue
        rates = f[path][()]
        expect(rates.ndim == 2 and rates.shape[1] == 2, f"{path}: shape {rates.shape}, expected passes x 2 ranks")
        expect(all(positive_finite(float(r)) for r in rates.flat), f"{path}: {rates}")
        medians.append(statistics.median(float(r) for r in rates.flat))
    if "/gemm" in f:
        shape = {n: int(f["/gemm"].attrs[n]) for n in ("m", "n", "k")}
        expect(shape == {"m": 4096, "n": 4096, "k": 4096}, f"/gemm shape {shape}")
    return medians


def check_sealed(ceilings, copy_median, gemm_median):
    expect(set(ceilings) == {"copy_GBps", "peak_GFLOPs", "bandwidth_probe", "peak_probe", "bytes_priced"},
           f"sealed roofline fields {sorted(ceilings)}")
    expect(positive_finite(ceilings.get("copy_GBps")) and positive_finite(ceilings.get("peak_GFLOPs")),
           f"sealed ceilings {ceilings}")
    expect(copy_median is not None and math.isclose(ceilings.get("copy_GBps", -1), copy_median, rel_tol=1e-12),
           f"copy_GBps {ceilings.get('copy_GBps')} is not /d2d's median {copy_median}")
    expect(gemm_median is not None and math.isclose(ceilings.get("peak_GFLOPs", -1), gemm_median, rel_tol=1e-12),
           f"peak_GFLOPs {ceilings.get('peak_GFLOPs')} is not /gemm's median {gemm_median}")
    expect("4096 x 4096 x 4096" in ceilings.get("peak_probe", ""), f"peak_probe {ceilings.get('peak_probe')}")


def check_document(doc, ceilings):
    bandwidth = doc["bandwidth"]
    expect(doc["machine"]["backend"] == "cuda", f"machine {doc['machine']}")
    expect(bandwidth["read_GBps"] is None and bandwidth["compute_peak_GFLOPs"] is None, f"host ceilings {bandwidth}")
    expect(bandwidth["d2d_copy_GBps"] == ceilings.get("copy_GBps"), f"d2d_copy_GBps {bandwidth} vs {ceilings}")
    expect(bandwidth["gemm_peak_GFLOPs"] == ceilings.get("peak_GFLOPs"), f"gemm_peak_GFLOPs {bandwidth} vs {ceilings}")
    expect(bandwidth["gemm_shape"] == {"m": 4096, "n": 4096, "k": 4096, "types": "bf16 x, w and y, fp32 accumulation"},
           f"gemm_shape {bandwidth['gemm_shape']}")


def check_example_agrees(predictions):
    by_form = {(p["form"], p["batch"]): p["terms"] for p in predictions if p["form"] in ("example", "roofline")}
    expect(len(by_form) == 4, f"example and roofline at 2 cells each: {sorted(by_form)}")
    for batch in (1, 4):
        example, built_in = by_form.get(("example", batch), {}), by_form.get(("roofline", batch), {})
        expect(positive_finite(built_in.get("compute_us")), f"b={batch}: roofline compute {built_in}")
        expect(math.isclose(example.get("compute_us", -1), built_in.get("compute_us", -2), rel_tol=1e-9),
               f"b={batch}: example compute {example} vs roofline {built_in}")


def main():
    a = mpi_bench_args("--predictor")
    if not gpu_visible():
        print("SKIPPED: no visible GPU")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="tpb_cuda_roofline_") as work:
        study = os.path.join(work, "study.h5")
        run([a.mpiexec, "--oversubscribe", "-n", "2", a.mpi_bench, "calibrate", "--model",
             os.path.join(a.configs, "tiny-llama.json")] + SMALL + ["-o", study])
        with h5py.File(study, "r") as f:
            copy_median, gemm_median = check_probes(f)
        document = os.path.join(work, "calibration.json")
        run([a.mpi_bench, "calibration", study, "-o", document])
        example = os.path.join(work, "example.csv")
        run([sys.executable, a.predictor, document, "-o", example])
        run([a.mpi_bench, "register", study, "--form", f"example={example}"])
        registration = json.load(open(os.path.join(work, "predictions.json")))
        ceilings = registration.get("roofline", {})
        check_sealed(ceilings, copy_median, gemm_median)
        check_document(json.load(open(document)), ceilings)
        check_example_agrees(registration["predictions"])
    if FAILURES:
        sys.exit("FAILED:\n  " + "\n  ".join(FAILURES))
    print("cuda roofline: every check passed")


if __name__ == "__main__":
    main()
