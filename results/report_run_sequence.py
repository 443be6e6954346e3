"""The run-sequence figure of a study measured in rounds (imported by report_plots.py).

Every visit's median t_step (over its iterations and the columns of its first
group) against its execution index, one colour per condition, so that drift,
level shifts and spikes show up in the order they happened.
"""
import numpy as np


def condition_names(f):
    names = f["/rounds"].attrs["conditions"]
    return [n.decode() if isinstance(n, bytes) else str(n) for n in names]


def run_sequence(f, out_dir, plt):
    if "/rounds/order" not in f:
        return
    names = condition_names(f)
    visits = f["/rounds/visits"]
    condition = np.asarray(visits["condition"])
    round_of = np.asarray(visits["round"])
    execution = np.asarray(visits["execution_index"])
    fig, ax = plt.subplots(figsize=(11, 4.5))
    colours = plt.get_cmap("tab20")
    for index, name in enumerate(names):
        data = np.asarray(f[f"{name}/t_rank_us"])  # rounds x iterations x columns
        mine = condition == index
        medians = [float(np.median(data[r, :, 0])) for r in round_of[mine]]
        ax.plot(execution[mine], np.array(medians) / 1000.0, "o", ms=4, color=colours(index % 20),
                label=name.removeprefix("/rounds/"))
    ax.set_xlabel("execution index (visit)")
    ax.set_ylabel("median t_step of the visit (ms)")
    ax.set_yscale("log")
    ax.set_title("Run sequence: every visit in execution order")
    ax.legend(fontsize=6, ncol=2, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(f"{out_dir}/fig_run_sequence.png", dpi=110)
    plt.close(fig)
