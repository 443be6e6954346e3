#!/usr/bin/python3
"""Reads the /verdict of several study files (rule version 6) and prints, per
(form, k), every run's verdict with its worst cell's error, how often each
outcome came, each run's A/A and slower rank, and the checks a rerun study is
judged by: no (form, k) both HOLDS and FALSIFIED, the A/A never FALSIFIED,
`no_speedup` FALSIFIED at every k > 1.

    verdict_table.py STUDY.h5 ...
"""
import collections
import sys

import h5py
import numpy as np


def slower_rank(f, k=2):
    """The rank of group 0 that arrived last at the TP-k step's collectives
    (it waits least inside them): the share of (round, cell) where rank 1 was
    the slower, and the median over them of how much later the slower rank
    arrived, in % of the step. None where the collectives were not timed."""
    group = f.get(f"rounds/step/k{k}")
    if group is None:
        return None
    rank1_slower, lag = [], []
    for cell in group.values():
        if "t_collective_insitu_us" not in cell:
            return None
        waits = np.median(np.asarray(cell["t_collective_insitu_us"])[:, :, :k], axis=1)  # rounds x ranks
        steps = np.median(np.max(np.asarray(cell["t_rank_us"])[:, :, :k], axis=2), axis=1)
        rank1_slower.extend(waits[:, 1] < waits[:, 0])
        lag.extend(np.abs(waits[:, 0] - waits[:, 1]) / steps * 100)
    return float(np.mean(rank1_slower)) * 100, float(np.median(lag))


def study(path):
    out = {}
    with h5py.File(path, "r") as f:
        root = f["verdict"]
        for form, group in root.items():
            if not isinstance(group, h5py.Group):
                continue
            for k, cell in group.items():
                if "verdict" not in cell.attrs:
                    continue
                text = str(cell.attrs["verdict"])
                if "cell_error_pct" in cell.attrs:
                    errors = np.asarray(cell.attrs["cell_error_pct"])
                    text += f" {errors[int(cell.attrs['worst_cell'])]:+.1f} %"
                out[(form, int(k[1:]))] = text
        aa = str(root.attrs.get("control_aa", "?"))
        if "control_aa_worst_error_pct" in root.attrs:
            aa += f" {float(root.attrs['control_aa_worst_error_pct']):+.1f} %"
        info = {"rounds": int(root.attrs.get("rounds", 0)), "aa": aa, "slower": slower_rank(f)}
    return out, info


def outcome(text):
    return text.split(" ")[0]


def main(paths):
    runs = [study(p) for p in paths]
    cells = sorted({c for v, _ in runs for c in v}, key=lambda c: (c[1], c[0]))
    print("| form | k | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " | counts |")
    print("|---|---|" + "---|" * len(runs) + "---|")
    for cell in cells:
        seen = [v.get(cell, "—") for v, _ in runs]
        counts = ", ".join(f"{o} {n}" for o, n in collections.Counter(outcome(s) for s in seen).most_common())
        print(f"| `{cell[0]}` | {cell[1]} | " + " | ".join(seen) + f" | {counts} |")
    print("| rounds | | " + " | ".join(str(i["rounds"]) for _, i in runs) + " | |")
    print("| A/A (worst cell) | | " + " | ".join(i["aa"] for _, i in runs) + " | |")
    print("| rank 1 slower at k = 2 (share of rounds, median lag % of t_step) | | " +
          " | ".join("—" if i["slower"] is None else f"{i['slower'][0]:.0f} %, {i['slower'][1]:.1f} %" for _, i in runs)
          + " | |")
    flips = [c for c in cells if {"HOLDS", "FALSIFIED"} <= {outcome(v.get(c, "")) for v, _ in runs}]
    aa_falsified = sum(i["aa"].startswith("FALSIFIED") for _, i in runs)
    no_speedup = [c for c in cells if c[0] == "no_speedup" and c[1] > 1]
    missed = sum(any(outcome(v.get(c, "")) != "FALSIFIED" for c in no_speedup) for v, _ in runs)
    print(f"\n(form, k) HOLDS in one run and FALSIFIED in another: {', '.join(f'{f} k={k}' for f, k in flips) or 'none'}")
    print(f"A/A FALSIFIED: {aa_falsified} of {len(runs)}")
    print(f"no_speedup not FALSIFIED at some k > 1: {missed} of {len(runs)}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: verdict_table.py STUDY.h5 ...")
    main(sys.argv[1:])
