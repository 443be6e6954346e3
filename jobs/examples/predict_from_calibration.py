#!/usr/bin/python3
"""A latency model outside tpbench, calibrated on this machine: reads the
document `mpi_bench calibration FILE.h5` writes (docs/CALIBRATION.md) and
predicts every grid cell's TP-k decode step, as the CSV `register --form` takes.

  compute    = sum over the step's phases of max(bytes / bandwidth, flops / compute peak),
               the k-shard's ledger (one rank of TP-k), at the host read bandwidth and FMA
               peak (cpu, /membw) or the device copy bandwidth and GEMM rate (cuda, /d2d and
               /gemm); the measured replay t_replay(k) where the file has neither
  collective = n_ar * t_ar_sweep_us + n_ag * t_ag_sweep_us, the cell's collective_terms: the
               sweeps' piecewise fits at the payloads, as the registration evaluates them
  host       = 0

usage: predict_from_calibration.py CALIBRATION.json -o PATH
"""
import csv
import json
import sys

COLLECTIVE_PHASES = {"all_reduce", "all_gather"}  # priced by the sweeps, not by the roofline


def fail(message):
    print(f"predict_from_calibration: error: {message}", file=sys.stderr)
    sys.exit(2)


def ceilings(bandwidth):
    """The bandwidth and compute peak the calibration measured, as the built-in `roofline` takes them."""
    for memory, peak in (("read_GBps", "compute_peak_GFLOPs"), ("d2d_copy_GBps", "gemm_peak_GFLOPs")):
        if bandwidth.get(memory) is not None and bandwidth.get(peak) is not None:
            return bandwidth[memory], bandwidth[peak]
    return None


def compute_us(cell, bandwidth):
    measured = ceilings(bandwidth)
    if measured is None:
        return cell["anchors"]["t_replay_us"]
    bytes_per_us, flops_per_us = measured[0] * 1e3, measured[1] * 1e3
    return sum(max((p["bytes_read"] + p["bytes_written"]) / bytes_per_us, p["flops"] / flops_per_us)
               for name, p in cell["ledger"]["phases"].items() if name not in COLLECTIVE_PHASES)


def collective_us(cell):
    # The sweeps' fits at the step's payloads, as the registration evaluates them.
    c, t = cell["ledger"]["collectives"], cell["collective_terms"]
    return c["n_ar"] * t["t_ar_sweep_us"] + c["n_ag"] * t["t_ag_sweep_us"]


def main(argv):
    if len(argv) != 4 or argv[2] != "-o":
        fail("usage: predict_from_calibration.py CALIBRATION.json -o PATH")
    try:
        with open(argv[1], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as error:
        fail(f"cannot read '{argv[1]}' as JSON: {error}")
    if not isinstance(doc, dict) or doc.get("schema") != "tpbench-calibration" or doc.get("schema_version") != 1:
        fail(f"'{argv[1]}' is not a tpbench-calibration document of schema_version 1")
    try:
        rows = []
        for cell in (c for c in doc["cells"] if c["in_grid"]):  # --predict-tp degrees are not grid cells
            compute, collective = compute_us(cell, doc["bandwidth"]), collective_us(cell)
            rows.append([cell["k"], cell["batch"], cell["context"], compute + collective, compute, collective, 0.0])
    except (KeyError, IndexError, TypeError) as error:
        fail(f"'{argv[1]}' lacks a field this model needs: {error!r}")
    with open(argv[3], "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["k", "batch", "context", "t_step_us", "compute_us", "collective_us", "host_us"])
        writer.writerows(rows)


if __name__ == "__main__":
    main(sys.argv)
