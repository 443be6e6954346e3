"""The Decision section's figures, from /decision (imported by report_plots.py).

fig_tail_waste.png: KV bytes left unused in each sequence's final cache block,
  per sequence of c + 1 tokens at each context of the grid, for blocks of
  BLOCK_TOKENS tokens, at each k's per-device KV bytes per token.
fig_capacity.png: the largest admissible batch (sequences per device) and the
  tokens/s per device at that batch against k; MODELLED figures hollow.
"""
import matplotlib.pyplot as plt
import numpy as np

# Block sizes compared in the tail-waste figure: what paged KV caches commonly use.
BLOCK_TOKENS = (8, 16, 32)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def degrees(f):
    groups = [f[f"/decision/{name}"] for name in f["/decision"] if name.startswith("k")]
    return sorted(groups, key=lambda g: int(g.attrs["k"]))


def tail_waste(f, out_dir):
    groups = degrees(f)
    contexts = [int(c) for c in groups[0]["contexts"][...]]
    fig, ax = plt.subplots(figsize=(6.5, 4))
    width = 0.8 / (len(BLOCK_TOKENS) * len(groups))
    x = np.arange(len(contexts))
    i = 0
    for g in groups:
        k = int(g.attrs["k"])
        per_token = int(g.attrs["kv_bytes_per_token"])
        for block in BLOCK_TOKENS:
            waste = [(-(c + 1) % block) * per_token for c in contexts]
            ax.bar(x + i * width, waste, width, label=f"TP-{k}, blocks of {block}")
            i += 1
    ax.set_xticks(x + width * (i - 1) / 2)
    ax.set_xticklabels([f"c={c}\n({c + 1} tokens)" for c in contexts])
    ax.set_ylabel("final-block waste per sequence (B, per device)")
    ax.set_title("KV tail waste per sequence, per block size (/decision/k*)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(f"{out_dir}/fig_tail_waste.png", dpi=110)
    plt.close(fig)


def capacity(f, out_dir):
    groups = degrees(f)
    contexts = [int(c) for c in groups[0]["contexts"][...]]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for ci, c in enumerate(contexts):
        ks, batches, rate_k, rate, modelled = [], [], [], [], []
        for g in groups:
            k = int(g.attrs["k"])
            ks.append(k)
            batch = int(g["max_batch"][ci])
            batches.append(batch)
            row = f"b{batch}_c{c}"
            if batch > 0 and row in g and "tokens_per_s_per_device" in g[row].attrs:
                rate_k.append(k)
                rate.append(float(g[row].attrs["tokens_per_s_per_device"]))
                modelled.append(text(g[row].attrs["label"]) != "measured")
        left.plot(ks, batches, "o-", label=f"c={c}")
        line, = right.plot(rate_k, rate, "-", label=f"c={c}")
        for k, r, m in zip(rate_k, rate, modelled):
            right.plot([k], [r], "o", color=line.get_color(), fillstyle="none" if m else "full")
    for ax in (left, right):
        ax.set_xlabel("TP degree k")
        ax.set_xscale("log", base=2)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    left.set_ylabel("largest admissible batch (sequences per device)")
    right.set_ylabel("tokens/s per device at that batch")
    right.set_title("hollow: MODELLED; absent: no modelled figure", fontsize=8)
    fig.suptitle("Capacity and throughput against k, full model (/decision)")
    fig.tight_layout()
    fig.savefig(f"{out_dir}/fig_capacity.png", dpi=110)
    plt.close(fig)


def draw(f, out_dir):
    """Both figures, when the file holds a decision."""
    if "/decision" not in f:
        return
    tail_waste(f, out_dir)
    capacity(f, out_dir)
