#!/usr/bin/python3
"""Extracts the three quick-start campaigns' pooled verdicts into CSV beside this script.

  extract.py DIR_A DIR_B DIR_C    # campaign directories (each holds campaign.h5)

launches.csv: every launch's median error per cell (the campaign's inputs);
pooled.csv: per cell the pooled mean error, its 1 - 2α interval, the between-launch SD,
the smallest error the campaign could FALSIFY, the largest it could HOLD, and the L for 80 % power;
the pooled A/A per rank cell is in both, as form `A/A rank R`. Debian's python3-h5py.
"""
import csv
import os
import sys

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
CELL_FIELDS = ["cell_error_pct", "cell_hold_low_pct", "cell_hold_high_pct", "cell_between_sd_pct",
               "cell_smallest_falsifiable_pct", "cell_largest_holdable_pct", "cell_launches_for_power"]


def rows_of(campaign, form, k, group, counted):
    cells = zip(group["cell_batch"][()], group["cell_context"][()], group["cell_verdict"][()])
    for i, (b, c, cell_verdict) in enumerate(cells):
        pooled = [campaign, form, k, b, c, group.attrs.get("verdict", ""), cell_verdict.decode()]
        pooled += [f"{group[name][i]:.3f}" for name in CELL_FIELDS]
        launches = [[campaign, form, k, b, c, launch, f"{group['launch_error_pct'][i, j]:.3f}"]
                    for j, launch in enumerate(counted)]
        yield pooled, launches


def main(dirs):
    with open(os.path.join(HERE, "pooled.csv"), "w", newline="") as p, \
         open(os.path.join(HERE, "launches.csv"), "w", newline="") as l:
        pooled, launches = csv.writer(p), csv.writer(l)
        pooled.writerow(["campaign", "form", "k", "batch", "context", "verdict", "cell_verdict"] + CELL_FIELDS)
        launches.writerow(["campaign", "form", "k", "batch", "context", "launch", "median_error_pct"])
        for d in dirs:
            name = os.path.basename(os.path.normpath(d))
            with h5py.File(os.path.join(d, "campaign.h5"), "r") as f:
                counted = list(f["/campaign/launches_counted"][()])
                groups = [("A/A", 1, f["/campaign/aa"])] + [
                    (form, int(k[1:]), f[f"/campaign/verdict/{form}/{k}"])
                    for form in f["/campaign/verdict"] for k in f[f"/campaign/verdict/{form}"]]
                for form, k, g in groups:
                    if "cell_batch" not in g:  # NOT_APPLICABLE: never judged
                        continue
                    for i, (row, per_launch) in enumerate(rows_of(name, form, k, g, counted)):
                        if form == "A/A":  # one cell per rank; its verdict is /campaign's control_aa
                            row[1] = f"A/A rank {g['cell_rank'][i]}"
                            row[5] = f["/campaign"].attrs["control_aa"]
                            for launch_row in per_launch:
                                launch_row[1] = row[1]
                        pooled.writerow(row)
                        launches.writerows(per_launch)

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: extract.py CAMPAIGN_DIR ...")
    main(sys.argv[1:])
