#!/usr/bin/python3
"""Reads the /verdict of several study files and prints, per (form, k), the
verdict of every run, how often each outcome came, and the checks a rerun
study is judged by: the same set of verdicts, no cell both HOLDS and
FALSIFIED, the A/A cells never FALSIFIED.

    verdict_table.py STUDY.h5 ...
"""
import collections
import sys

import h5py


def verdicts(path):
    out = {}
    with h5py.File(path, "r") as f:
        for form, group in f["verdict"].items():
            if not isinstance(group, h5py.Group):
                continue
            for k, cell in group.items():
                if "verdict" in cell.attrs:
                    out[(form, int(k[1:]))] = cell.attrs["verdict"]
        rounds = int(f["verdict"].attrs.get("rounds", 0))
    return out, rounds


def main(paths):
    runs = [verdicts(p) for p in paths]
    cells = sorted({c for v, _ in runs for c in v}, key=lambda c: (c[1], c[0]))
    print("| form | k | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " | counts |")
    print("|---|---|" + "---|" * len(runs) + "---|")
    for cell in cells:
        seen = [v.get(cell, "—") for v, _ in runs]
        counts = ", ".join(f"{o} {n}" for o, n in collections.Counter(seen).most_common())
        print(f"| `{cell[0]}` | {cell[1]} | " + " | ".join(seen) + f" | {counts} |")
    print("| rounds | | " + " | ".join(str(r) for _, r in runs) + " | |")
    sets = collections.Counter(tuple(sorted(v.items())) for v, _ in runs)
    flips = [c for c in cells if {"HOLDS", "FALSIFIED"} <= {v.get(c) for v, _ in runs}]
    aa_falsified = sum(v.get(("ideal", 1)) == "FALSIFIED" for v, _ in runs)
    print(f"\nthe most common set of verdicts: {sets.most_common(1)[0][1]} of {len(runs)} runs")
    print(f"cells HOLDS in one run and FALSIFIED in another: {', '.join(f'{f} k={k}' for f, k in flips) or 'none'}")
    print(f"A/A (ideal k=1) FALSIFIED: {aa_falsified} of {len(runs)}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: verdict_table.py STUDY.h5 ...")
    main(sys.argv[1:])
