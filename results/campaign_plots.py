#!/usr/bin/python3
"""The campaign report's figure: each launch's median error per cell, per (form, k), with the pooled mean and
its 1 - 2α interval, against the margin ±K. Read from campaign.h5 alone.

usage: /usr/bin/python3 campaign_plots.py CAMPAIGN.h5 OUT_DIR
Needs Debian's python3-h5py and python3-matplotlib (hence /usr/bin/python3).
"""
import os
import sys
import warnings

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out_dir):
    # One launch forms no interval: its NaN bounds draw nothing, without a warning.
    warnings.simplefilter("ignore", RuntimeWarning)
    with h5py.File(path, "r") as f:
        root = f["/campaign"]
        k_pct = float(root.attrs["kill_switch_pct"])
        panels = []
        for form in sorted(f["/campaign/verdict"]):
            for kname in sorted(f[f"/campaign/verdict/{form}"]):
                g = f[f"/campaign/verdict/{form}/{kname}"]
                if "launch_error_pct" not in g:
                    continue
                panels.append((form, kname, g["cell_batch"][()], g["cell_context"][()], g["launch_error_pct"][()],
                               g["cell_error_pct"][()], g["cell_hold_low_pct"][()], g["cell_hold_high_pct"][()],
                               g.attrs["verdict"]))
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 3.6), squeeze=False, sharey=True)
    margin_low = (1 / (1 + k_pct / 100) - 1) * 100
    for ax, (form, kname, batch, context, launches, mean, low, high, verdict) in zip(axes[0], panels):
        x = np.arange(len(batch))
        for i in x:
            ax.plot(np.full(launches.shape[1], i), launches[i], "o", color="tab:blue", alpha=0.6, ms=4)
        ax.errorbar(x + 0.15, mean, yerr=[mean - low, high - mean], fmt="s", color="black", capsize=3, ms=4)
        ax.axhline(k_pct, color="tab:red", lw=0.8, ls="--")
        ax.axhline(margin_low, color="tab:red", lw=0.8, ls="--")
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_xticks(x, [f"b{b} c{c}" for b, c in zip(batch, context)], fontsize=7)
        ax.set_title(f"{form} {kname}: {verdict}", fontsize=8)
    axes[0][0].set_ylabel("error per launch (%)")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "fig_campaign_launches.png"), dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: campaign_plots.py CAMPAIGN.h5 OUT_DIR")
    main(sys.argv[1], sys.argv[2])
