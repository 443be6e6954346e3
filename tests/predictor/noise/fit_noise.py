#!/usr/bin/python3
"""The step-time simulator's noise model, fitted to measurements made on this machine.

  fit_noise.py extract SERIES_DIR STUDY_DIR   # .h5 -> the compact CSVs beside this script
  fit_noise.py fit                            # CSVs -> the figures and the C++ block of step_time_simulator.cpp

SERIES_DIR holds `mpi_bench step --tp 1,2 -w 3 -n 700 -o SERIES_DIR/results.h5` (700 consecutive steps
per TP degree); STUDY_DIR a quick-start-like `mpi_bench run -w 0 -n 2 --calibration-rounds 10` in many rounds,
of whose visits the first timed step is kept (one timed step per visit, as the quick start's -n 1).
Debian's python3-numpy and python3-h5py; the .h5 files stay out of the repository.
"""
import csv
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SERIES_CSV = os.path.join(HERE, "series.csv")
ROUNDS_CSV = os.path.join(HERE, "rounds.csv")
CALIBRATION_CSV = os.path.join(HERE, "calibration.csv")
TRUTH_CSV = os.path.join(HERE, "truth.csv")
ALLAN_M = [1, 2, 4, 8, 16, 32, 64]
# Time constants (in visits) of the AR(1) processes whose sum stands for the flicker.
FLICKER_TAUS = [2.0, 8.0, 32.0, 128.0, 512.0]
CONDITIONS = ["step1", "step2", "nocomm2", "replay2", "compute1"]  # the simulator's Condition order
BATCHES = [1, 4]
COMMON_LAGS = 5  # rounds over which the common part's autocorrelation is fitted


# ----------------------------------------------------------------------------- extraction
def extract(series_dir, study_dir):
    import h5py

    with open(SERIES_CSV, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["tp", "batch", "step", "rank0_us", "rank1_us"])
        with h5py.File(os.path.join(series_dir, "results.h5"), "r") as h:
            for tp_name in sorted(h["step"]):
                for cell_name in sorted(h["step"][tp_name]):
                    t = np.asarray(h["step"][tp_name][cell_name]["t_rank_us"])  # iterations x ranks
                    k = int(tp_name[1:])
                    b = int(cell_name.split("_")[0][1:])
                    for i, row in enumerate(t.reshape(t.shape[0], -1)):
                        w.writerow([k, b, i, f"{row[0]:.1f}", f"{row[1]:.1f}"])

    with h5py.File(os.path.join(study_dir, "study.h5"), "r") as h:
        for group, path in (("rounds", ROUNDS_CSV), ("calibration_rounds", CALIBRATION_CSV)):
            g = h[group]
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["round", "kind", "tp", "batch", "rank0_us", "rank1_us"])
                for kind in ("step", "step_nocomm", "replay"):
                    if kind not in g:
                        continue
                    for tp_name in g[kind]:
                        for cell_name in g[kind][tp_name]:
                            t = np.asarray(g[kind][tp_name][cell_name]["t_rank_us"])  # rounds x iters x ranks
                            k = int(tp_name[1:])
                            b = int(cell_name.split("_")[0][1:])
                            for r in range(t.shape[0]):
                                w.writerow([r, kind, k, b, f"{t[r, 0, 0]:.1f}", f"{t[r, 0, 1]:.1f}"])
    # The sealed collective term of each grid cell at k = 2, from predictions.json.
    with open(os.path.join(study_dir, "predictions.json")) as f:
        prereg = json.load(f)
    with open(TRUTH_CSV, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["batch", "collective_us"])
        for p in prereg["predictions"]:
            if p["form"] == "ideal" and p["k"] == 2:
                w.writerow([p["batch"], f"{p['terms']['collective_us']:.1f}"])


# ----------------------------------------------------------------------------- fitting
def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def allan_variance(x, m):
    """Overlapping Allan variance of x at an averaging of m samples."""
    c = np.concatenate([[0.0], np.cumsum(x)])
    means = (c[m:] - c[:-m]) / m
    d = means[m:] - means[:-m]
    return 0.5 * float(np.mean(d * d))


def model_allan_variance(gamma, m):
    """The Allan variance of a stationary process with autocovariance gamma(h)."""
    h = np.arange(-(m - 1), m)
    var_mean = np.sum((m - np.abs(h)) * gamma(np.abs(h))) / m**2
    h = np.arange(1, 2 * m)
    cov_next = np.sum((m - np.abs(h - m)) * gamma(h)) / m**2
    return var_mean - cov_next


def ar1_gamma(phi):
    return lambda h: phi ** np.asarray(h, dtype=float)


def white_gamma(h):
    return (np.asarray(h) == 0).astype(float)


def nnls(a, b, sweeps=20000):
    """Non-negative least squares by cyclic coordinate descent (no scipy on Debian's base)."""
    x = np.zeros(a.shape[1])
    ata, atb = a.T @ a, a.T @ b
    for _ in range(sweeps):
        for j in range(len(x)):
            if ata[j, j] > 0:
                x[j] = max(0.0, x[j] + (atb[j] - ata[j] @ x) / ata[j, j])
    return x


def robust_sd(x):
    x = np.asarray(x, dtype=float)
    return 1.4826 * float(np.median(np.abs(x - np.median(x))))


def lag1(x):
    x = np.asarray(x, dtype=float) - np.mean(x)
    return float(np.sum(x[1:] * x[:-1]) / np.sum(x * x))


def fit():
    out = {}
    # Flicker: ln t over consecutive steps of each series; the slowest rank is the step.
    series = {}
    for row in read_csv(SERIES_CSV):
        key = (int(row["tp"]), int(row["batch"]))
        t = float(row["rank0_us"]) if key[0] == 1 else max(float(row["rank0_us"]), float(row["rank1_us"]))
        series.setdefault(key, []).append(t)
    print("series: ln t over consecutive steps")
    rows, targets, names = [], [], []
    keys = sorted(series)
    spikes = []
    for i, key in enumerate(keys):
        x = np.log(np.asarray(series[key]))
        avar = [allan_variance(x, m) for m in ALLAN_M]
        print(f"  TP-{key[0]} b={key[1]}: {len(x)} steps, median {math.exp(np.median(x)) / 1000:.1f} ms, "
              f"log-SD {np.std(x, ddof=1) * 100:.1f} %, lag-1 {lag1(x):.2f}, Allan deviation "
              + " ".join(f"{m}:{math.sqrt(v) * 100:.1f}%" for m, v in zip(ALLAN_M, avar)))
        out[f"series_tp{key[0]}_b{key[1]}"] = {"lag1": lag1(x), "allan_dev": [math.sqrt(v) for v in avar],
                                               "log_sd": float(np.std(x, ddof=1))}
        for m, v in zip(ALLAN_M, avar):
            row = [model_allan_variance(white_gamma, m) if j == i else 0.0 for j in range(len(keys))]
            row += [model_allan_variance(ar1_gamma(math.exp(-1.0 / tau)), m) for tau in FLICKER_TAUS]
            rows.append(np.asarray(row) / v)
            targets.append(1.0)
        # The lag-1 autocovariance pins the split between white and slow parts.
        cov1 = float(np.mean((x[1:] - x.mean()) * (x[:-1] - x.mean())))
        row = [0.0] * len(keys) + [math.exp(-1.0 / tau) for tau in FLICKER_TAUS]
        rows.append(np.asarray(row) / max(cov1, 1e-12))
        targets.append(1.0)
        # Spikes: steps above a running median of 15 by more than 4 robust SDs of the residual.
        pad = np.pad(x, 7, mode="edge")
        running = np.array([np.median(pad[j:j + 15]) for j in range(len(x))])
        resid = x - running
        cut = max(4.0 * robust_sd(resid), math.log(1.2))
        spikes.append((len(x), resid[resid > cut]))
    variances = nnls(np.asarray(rows), np.asarray(targets))
    flicker = [(math.sqrt(v), math.exp(-1.0 / tau)) for v, tau in zip(variances[len(keys):], FLICKER_TAUS) if v > 0]
    flicker_var = sum(s * s for s, _ in flicker)
    print("  fit: white " + ", ".join(f"TP-{k[0]} b={k[1]} {math.sqrt(v) * 100:.1f} %"
                                     for k, v in zip(keys, variances[:len(keys)]))
          + "; flicker " + ", ".join(f"tau {tau:g}: {math.sqrt(v) * 100:.2f} %"
                                    for v, tau in zip(variances[len(keys):], FLICKER_TAUS))
          + f"; flicker total {math.sqrt(flicker_var) * 100:.1f} %")
    steps = sum(n for n, _ in spikes)
    excess = np.concatenate([e for _, e in spikes]) if spikes else np.array([])
    spike_p = len(excess) / steps
    spike_low, spike_high = ((float(np.percentile(excess, 10)), float(np.percentile(excess, 90)))
                             if len(excess) >= 2 else (math.log(1.2), math.log(1.5)))
    print(f"  spikes: {len(excess)} of {steps} steps ({spike_p * 100:.2f} %), excess ln "
          f"{spike_low:.2f}..{spike_high:.2f} (10th..90th percentile)")

    # Rounds: one timed step per visit.
    visits = read_csv(ROUNDS_CSV)
    rounds = 1 + max(int(v["round"]) for v in visits)
    kind_of = {("step", 1): "step1", ("step", 2): "step2", ("step_nocomm", 2): "nocomm2",
               ("replay", 2): "replay2", ("step_nocomm", 1): "compute1"}
    x = {}  # (condition, batch) -> per round ln t (rank 0, or the slower rank of a TP-2 group)
    rank_diff = []
    for v in visits:
        name = kind_of.get((v["kind"], int(v["tp"])))
        if name is None:
            continue
        r0, r1 = float(v["rank0_us"]), float(v["rank1_us"])
        t = max(r0, r1) if name in ("step2", "nocomm2") else r0
        x.setdefault((name, int(v["batch"])), np.full(rounds, np.nan))[int(v["round"])] = math.log(t)
        if name == "step1":
            rank_diff.append(math.log(r0) - math.log(r1))
    keys = [(c, b) for b in BATCHES for c in CONDITIONS]
    centred = np.array([x[k] - np.median(x[k]) for k in keys])  # conditions x rounds
    common = np.median(centred, axis=0)
    slope = float(np.polyfit(np.arange(rounds), common, 1)[0])
    centred -= slope * (np.arange(rounds) - (rounds - 1) / 2.0)
    total = np.array([robust_sd(row) for row in centred])
    clipped = np.clip(centred, -3 * total[:, None], 3 * total[:, None])
    cov = np.cov(clipped)
    pairs = [cov[i, j] for i in range(len(keys)) for j in range(len(keys)) if i != j]
    mean_cov = float(np.mean(pairs))
    # Within a round of 10 visits two conditions lie |d| visits apart with
    # P(d) = 2(10 - d)/90; the flicker shares rho^d of its variance across them.
    visits_per_round = len(keys)
    lags = np.arange(1, visits_per_round)
    p_lag = 2 * (visits_per_round - lags) / (visits_per_round * (visits_per_round - 1))
    flicker_cov = sum(s * s * float(np.sum(p_lag * phi ** lags)) for s, phi in flicker)
    common_var = max(0.0, mean_cov - flicker_cov)
    # The common part moves slowly: its autocorrelation over 1..5 rounds (the
    # round level's autocovariance, less what the flicker carries over those
    # visits, over the common variance), fitted by an AR(1) over rounds in
    # least squares.
    level = common - slope * (np.arange(rounds) - (rounds - 1) / 2.0)
    level -= level.mean()
    lags_in_rounds = np.arange(1, COMMON_LAGS + 1)
    rho = []
    for h in lags_in_rounds:
        cov_h = float(np.mean(level[h:] * level[:-h]))
        flicker_h = sum(s * s * phi ** (h * visits_per_round) for s, phi in flicker)
        rho.append((cov_h - flicker_h) / common_var if common_var > 0 else 0.0)
    grid = np.linspace(0.0, 0.99, 100)
    common_lag1 = float(grid[np.argmin([np.sum((np.asarray(rho) - g ** lags_in_rounds) ** 2) for g in grid])])
    rank_median = float(np.median(np.abs(rank_diff)))
    rank_sd = rank_median / (math.sqrt(2.0) * 0.6744897501960817)
    print(f"rounds: {rounds} rounds x {len(keys)} visits, one timed step each")
    print(f"  drift of the round level {slope * 100:+.3f} % per round; mean covariance between conditions "
          f"{mean_cov:.5f} (flicker's share {flicker_cov:.5f}) -> common part {math.sqrt(common_var) * 100:.1f} %, "
          f"autocorrelation over 1..{COMMON_LAGS} rounds " + " ".join(f"{r:.2f}" for r in rho)
          + f" -> AR(1) over rounds at {common_lag1:.2f}")
    print(f"  rank imbalance of TP-1 (every rank at once): median |ln r0/r1| {rank_median * 100:.1f} %, "
          f"mean ln r0/r1 {np.mean(rank_diff) * 100:+.1f} %, per-rank log-SD {rank_sd * 100:.1f} %")
    independent = {}
    for k, t in zip(keys, total):
        rank_part = rank_sd**2 * ((1 - 1 / math.pi) if k[0] in ("step2", "nocomm2") else 1.0)
        rest = t * t - common_var - flicker_var - rank_part
        independent[k] = math.sqrt(max(rest, 0.005**2))
        print(f"  {k[0]:>8} b={k[1]}: median {math.exp(np.median(x[k])) / 1000:7.1f} ms, round-to-round log-SD "
              f"{t * 100:5.1f} % -> independent {independent[k] * 100:5.1f} %")

    # The planner's proxy against the TP-2 paired log-ratio, on these rounds.
    truth = {int(r["batch"]): float(r["collective_us"]) for r in read_csv(TRUTH_CSV)}
    print("proxy vs TP-2 paired spread (log-SD over rounds):")
    calibration = read_csv(CALIBRATION_CSV)
    crounds = 1 + max(int(v["round"]) for v in calibration)
    cx = {}
    for v in calibration:
        name = kind_of.get((v["kind"], int(v["tp"])))
        if name:
            cx.setdefault((name, int(v["batch"])), np.full(crounds, np.nan))[int(v["round"])] = \
                math.log(float(v["rank0_us"]))
    ratios = []
    for b in BATCHES:
        proxy = np.std(x[("replay2", b)] - x[("compute1", b)], ddof=1)
        cproxy = np.std(cx[("replay2", b)] - cx[("compute1", b)], ddof=1)
        predicted = np.log(np.exp(x[("compute1", b)]) / 2 + truth[b])
        actual = np.std(x[("step2", b)] - predicted, ddof=1)
        ratios.append(actual / proxy)
        print(f"  b={b}: proxy {proxy * 100:.1f} % (measurement rounds), {cproxy * 100:.1f} % ({crounds} calibration "
              f"rounds); ln TP-2 - ln(t_compute(1)/2 + coll) {actual * 100:.1f} %; ratio {actual / proxy:.2f}")

    cells = ", ".join("{" + ", ".join(f"{independent[(c, b)]:.4f}" for c in CONDITIONS) + "}" for b in BATCHES)
    print("\n// C++ (step_time_simulator.cpp, fitted_noise and fitted_truth):")
    print(f"  m.independent_log_sd = {{{{{cells}}}}};")
    print(f"  m.common = {{{math.sqrt(common_var):.4f}, {common_lag1:.4f}}};")
    print("  m.flicker = {" + ", ".join(f"{{{s:.4f}, {phi:.4f}}}" for s, phi in flicker) + "};")
    print(f"  m.spike_probability = {spike_p:.4f};")
    print(f"  m.spike_log_low = {spike_low:.3f};")
    print(f"  m.spike_log_high = {spike_high:.3f};")
    print(f"  m.rank_log_sd = {rank_sd:.4f};")
    print(f"  m.drift_log_per_visit = {abs(slope) / visits_per_round:.6f};")
    truth_cells = ", ".join(f"{{{math.exp(np.median(x[('compute1', b)])):.1f}, {truth[b]:.1f}}}" for b in BATCHES)
    print(f"  return {{{{{truth_cells}}}}};")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2 and sys.argv[1] == "fit":
        fit()
    else:
        sys.exit(__doc__)
