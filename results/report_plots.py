#!/usr/bin/python3
"""Figures of a tpbench study report, recomputed from the raw datasets.

usage: /usr/bin/python3 report_plots.py RESULTS.h5 OUT_DIR
Needs Debian's python3-h5py and python3-matplotlib (hence /usr/bin/python3).
"""
import json
import sys

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from report_run_sequence import run_sequence  # noqa: E402  (beside this script)

import decision_plots  # noqa: E402  (beside this script: the Decision section's figures)


def slowest_median(dataset):
    """Median over iterations of the slowest rank (rows: iterations, columns: ranks)."""
    return float(np.median(np.max(np.asarray(dataset), axis=1)))


def slowest(dataset):
    return np.max(np.asarray(dataset), axis=1)


def step_vs_k(f, prereg, out_dir):
    grid = prereg["grid"]
    cells = [(b, c) for b in grid["batch"] for c in grid["context"]]
    forms = [form["name"] for form in prereg["model_forms"]]
    fig, axes = plt.subplots(1, len(cells), figsize=(4.5 * len(cells), 4), squeeze=False)
    for ax, (b, c) in zip(axes[0], cells):
        ks = grid["tp"]
        med, lo, hi = [], [], []
        for k in ks:
            sample = slowest(f[f"/step/k{k}/b{b}_c{c}/t_step_us"])
            med.append(np.median(sample))
            lo.append(np.percentile(sample, 25))
            hi.append(np.percentile(sample, 75))
        med = np.array(med)
        ax.errorbar(ks, med, yerr=[med - np.array(lo), np.array(hi) - med], fmt="ko-", lw=2, capsize=4,
                    label="measured (median, 25–75 % of iterations)")
        for form in forms:
            pred = [next(p["t_step_us"] for p in prereg["predictions"]
                         if p["form"] == form and p["k"] == k and p["batch"] == b and p["context"] == c) for k in ks]
            ax.plot(ks, pred, "--", marker="s", label=f"{form} (registered)")
        ax.set_xticks(ks)
        ax.set_xlabel("TP degree k")
        ax.set_ylabel("t_step (µs)")
        ax.set_title(f"b={b}, c={c}")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("t_step against k: measured vs pre-registered forms (/step, /prereg)")
    fig.tight_layout()
    fig.savefig(f"{out_dir}/fig_t_step_vs_k.png", dpi=110)
    plt.close(fig)


def terms(f, prereg, out_dir):
    grid = prereg["grid"]
    ks = grid["tp"]
    compute, collective, host, step = [], [], [], []
    for k in ks:
        c_sum = coll_sum = h_sum = s_sum = 0.0
        n = 0
        for b in grid["batch"]:
            for c in grid["context"]:
                point = f"/step/k{k}/b{b}_c{c}"
                comp = slowest_median(f[f"/step_nocomm/k{k}/b{b}_c{c}/t_step_us"])
                total = None
                for name in ("t_ar_insitu_us", "t_ag_insitu_us"):
                    if name in f[point]:
                        values = np.asarray(f[f"{point}/{name}"])
                        total = values if total is None else total + values
                coll = float(np.median(np.max(total, axis=1))) if total is not None else 0.0
                h = slowest_median(f[f"{point}/t_host_us"])
                c_sum += comp
                coll_sum += coll
                h_sum += max(0.0, h - comp - coll)
                s_sum += slowest_median(f[f"{point}/t_step_us"])
                n += 1
        compute.append(c_sum / n)
        collective.append(coll_sum / n)
        host.append(h_sum / n)
        step.append(s_sum / n)
    fig, ax = plt.subplots(figsize=(6, 4))
    x = np.arange(len(ks))
    ax.bar(x, compute, label="compute (--no-comm ablation)")
    ax.bar(x, collective, bottom=compute, label="collectives in situ")
    ax.bar(x, host, bottom=np.array(compute) + np.array(collective), label="exposed host")
    ax.plot(x, step, "k*", markersize=12, label="measured t_step")
    ax.set_xticks(x, [f"TP-{k}" for k in ks])
    ax.set_ylabel("µs (grid mean of medians)")
    ax.set_title("Measured terms per k (/step, /step_nocomm)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{out_dir}/fig_terms.png", dpi=110)
    plt.close(fig)


def sweeps(f, prereg, out_dir):
    w = prereg["workload"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, root, per_batch in ((axes[0], "sweep", w["hidden_size"]), (axes[1], "sweep_allgather", w["vocab_size"])):
        if root not in f:
            continue
        for k in prereg["grid"]["tp"]:
            if f"k{k}" not in f[root]:
                continue  # a group of one rank issues no collective: no sweep
            group = f[f"/{root}/k{k}"]
            sizes = np.asarray(group["bytes"], dtype=float)
            times = np.asarray(group["time_us"])
            med = [float(np.median(np.max(times[i], axis=1))) for i in range(len(sizes))]
            line = ax.loglog(sizes, med, "o", label=f"k={k} measured")[0]
            if "fit_alpha_us" in group.attrs and "fit_beta_GBps" in group.attrs:
                alpha = float(group.attrs["fit_alpha_us"])
                beta = float(group.attrs["fit_beta_GBps"])
                xs = np.geomspace(sizes.min(), sizes.max(), 50)
                ax.loglog(xs, alpha + xs / (beta * 1e3), "-", color=line.get_color(), alpha=0.6,
                          label=f"k={k} line fit α={alpha:.1f} µs")
        for b in prereg["grid"]["batch"]:
            ax.axvline(b * per_batch * w["bytes_per_element"], color="grey", ls=":", lw=1)
        # What the registration took from the piecewise fit at each cell's payload.
        key, size_key = ("t_ar_sweep_us", "ar_bytes") if root == "sweep" else ("t_ag_sweep_us", "ag_bytes")
        used = [c for c in prereg["calibration_inputs"] if c["k"] > 1]
        ax.loglog([c[size_key] for c in used], [max(c[key], 1e-3) for c in used], "k*", markersize=10,
                  label="registered (piecewise fit at the payload)")
        ax.set_xlabel("payload (B)")
        ax.set_ylabel("time (µs)")
        ax.set_title(f"/{root}/k*: slowest-rank medians; dotted: the step's payloads", fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(f"{out_dir}/fig_sweep.png", dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, out_dir = sys.argv[1], sys.argv[2]
    with h5py.File(path, "r") as f:
        text = f["/prereg/predictions_json"][0]
        prereg = json.loads(text.decode() if isinstance(text, bytes) else text)
        step_vs_k(f, prereg, out_dir)
        terms(f, prereg, out_dir)
        sweeps(f, prereg, out_dir)
        decision_plots.draw(f, out_dir)
        run_sequence(f, out_dir, plt)


if __name__ == "__main__":
    main()
