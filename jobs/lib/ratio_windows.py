#!/usr/bin/python3
"""Does the paired TP-k / TP-1 ratio move within a study?

  jobs/lib/ratio_windows.py STUDY.h5 [ROUNDS_PER_WINDOW ...]   (default 16 24 40)

For every grid cell of a round-based study, the per-round paired log-ratio
d_r = ln(t_step TP-k / t_step TP-1 --no-comm) (slowest rank of each visit) is
cut into consecutive windows. It prints each window's median ratio and the SD of
the window medians, against the same SD after shuffling the rounds (2000
shuffles): a larger observed SD, with a small share of shuffles reaching it,
says the ratio itself moved during the study, which no resampling of single
rounds can see (bench/archive/2026-12-04-verdict-rules-2-to-5).
Debian's python3-numpy and python3-h5py.
"""
import sys

import numpy as np

SHUFFLES = 2000


def usage(message):
    print(f"ratio_windows.py: {message}\nusage: ratio_windows.py STUDY.h5 [ROUNDS_PER_WINDOW ...]", file=sys.stderr)
    sys.exit(2)


def slowest_rank(dataset):
    t = np.asarray(dataset)  # rounds x iterations x ranks
    return t[:, 0, :].max(axis=1)


def main(argv):
    if len(argv) < 2:
        usage("no study file given")
    try:
        windows = [int(a) for a in argv[2:]] or [16, 24, 40]
    except ValueError:
        usage(f"window sizes must be whole numbers, got {argv[2:]}")
    if any(w < 2 for w in windows):
        usage(f"a window needs at least 2 rounds, got {windows}")
    import h5py

    try:
        h = h5py.File(argv[1], "r")
    except OSError as e:
        usage(f"cannot read '{argv[1]}': {e}")
    with h:
        if "rounds" not in h or "step_nocomm" not in h["rounds"] or "k1" not in h["rounds"]["step_nocomm"]:
            usage(f"'{argv[1]}' holds no measurement rounds with TP-1 --no-comm visits (is it a `run` study?)")
        rounds = h["rounds"]
        rng = np.random.default_rng(20240)
        for k_name in sorted(rounds["step"]):
            if k_name == "k1":
                continue
            for cell in sorted(rounds["step"][k_name]):
                if cell not in rounds["step_nocomm"]["k1"]:
                    continue
                t_k = slowest_rank(rounds["step"][k_name][cell]["t_rank_us"])
                t_1 = slowest_rank(rounds["step_nocomm"]["k1"][cell]["t_rank_us"])
                n = min(len(t_k), len(t_1))
                d = np.log(t_k[:n] / t_1[:n])
                robust = 1.4826 * np.median(np.abs(d - np.median(d)))
                print(f"{k_name} {cell}: {n} rounds, median ratio {np.exp(np.median(d)):.3f}, "
                      f"per-round robust SD {100 * robust:.1f} %")
                for w in windows:
                    starts = range(0, n - w + 1, w)
                    if len(starts) < 2:
                        print(f"  windows of {w}: fewer than 2 in {n} rounds")
                        continue
                    medians = np.array([np.median(d[s:s + w]) for s in starts])
                    observed = np.std(medians, ddof=1)
                    shuffled = np.array([
                        np.std([np.median(p[s:s + w]) for s in starts], ddof=1)
                        for p in (rng.permutation(d) for _ in range(SHUFFLES))
                    ])
                    print(f"  windows of {w}: ratios " + " ".join(f"{np.exp(m):.3f}" for m in medians) +
                          f"; SD of window medians {100 * observed:.1f} %, shuffled {100 * np.median(shuffled):.1f} %,"
                          f" share of shuffles reaching it {np.mean(shuffled >= observed):.3f}")


if __name__ == "__main__":
    main(sys.argv)
