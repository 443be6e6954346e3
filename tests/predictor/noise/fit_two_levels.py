#!/usr/bin/python3
"""The two levels a quick-start round sits at on a machine whose host moves the two vCPUs between a
near and a far placement, fitted from reruns of the quick start (bench/archive/2026-12-04-verdict-rules-2-to-5).

  fit_two_levels.py extract STUDY.h5 ...   # -> two_levels.csv beside this script (one line per round)
  fit_two_levels.py fit                    # two_levels.csv -> the figures the simulator's test uses

The level of a round is ln of its TP-1 --no-comm step at b = 1 (t_compute(1), every rank at once), over
the calibration rounds and then the measurement rounds of each study. A round is at the upper level when
it lies nearer the upper of the two medians (split at the geometric mean of the lowest and highest decile
at first, then at the midpoint of the two levels' medians). Debian's python3-numpy and python3-h5py.
"""
import csv
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "two_levels.csv")
CONDITION = "step_nocomm/k1/b1_c256/t_step_us"


def extract(paths):
    import h5py
    with open(CSV, "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["study", "phase", "round", "ln_us"])
        for study, path in enumerate(paths):
            with h5py.File(path, "r") as f:
                for phase in ("calibration_rounds", "rounds"):
                    per_round = np.median(f[f"/{phase}/{CONDITION}"][()], axis=(1, 2))
                    for r, us in enumerate(per_round):
                        w.writerow([study, phase, r, f"{np.log(us):.5f}"])


def fit():
    studies = {}
    with open(CSV) as f:
        for row in csv.DictReader(f):
            studies.setdefault(int(row["study"]), []).append(float(row["ln_us"]))
    every = np.concatenate([np.array(v) for v in studies.values()])
    split = 0.5 * (np.quantile(every, 0.1) + np.quantile(every, 0.9))
    for _ in range(5):  # the midpoint of the two levels' medians
        split = 0.5 * (np.median(every[every <= split]) + np.median(every[every > split]))
    step = np.median(every[every > split]) - np.median(every[every <= split])
    switches, steps, deviations, pairs = 0, 0, [], []
    for series in studies.values():
        x = np.array(series)
        upper = x > split
        switches += int(np.sum(upper[1:] != upper[:-1]))
        steps += len(x) - 1
        for level in (True, False):
            if np.sum(upper == level) > 3:
                deviations.extend(x[upper == level] - np.median(x[upper == level]))
        pairs.extend(x[i] - x[i - 1] for i in range(1, len(x)) if upper[i] == upper[i - 1])
    robust_sd = 1.4826 * np.median(np.abs(deviations))
    d = np.array(pairs)
    diff_sd = 1.4826 * np.median(np.abs(d - np.median(d)))
    lag1 = 1.0 - 0.5 * (diff_sd / robust_sd) ** 2  # a stationary AR(1): Var(x_t - x_t-1) = 2(1 - rho) sigma^2
    print(f"{len(studies)} studies, {len(every)} rounds; upper level in {np.mean(every > split):.0%} of them")
    print(f"levels {np.exp(step):.3f}x apart (ln {step:.3f}); a level change at {switches / steps:.1%} of rounds")
    print(f"within a level: robust SD {robust_sd:.4f} (ln), lag-1 autocorrelation {lag1:.2f}")
    for study, series in sorted(studies.items()):
        print(study, "".join("U" if v > split else "l" for v in series))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "extract":
        extract(sys.argv[2:])
    elif sys.argv[1:] == ["fit"]:
        fit()
    else:
        sys.exit(__doc__)
