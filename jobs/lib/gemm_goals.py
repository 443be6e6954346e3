#!/usr/bin/python3
"""Judges the small-batch GEMM's goals over many launches of bench_cpu_gemm.

Usage: gemm_goals.py LAUNCH.txt [LAUNCH.txt ...]
Each file is one launch's output of jobs/bench_cpu_gemm.sh on llama-3.2-1b's
shapes. One launch's fraction of the limit moves from launch to launch with the
machine's phase and with the memory the launch is given (a log-SD of about 4 %
at m = 8 on the 2-core machine of docs/MEASUREMENT.md), so a goal is judged on
the median over launches and its distribution-free interval, the rule the
study's verdicts use (docs/STATISTICS.md): [x_(l), x_(n+1-l)] with the largest
l such that 2 P(Bin(n, 1/2) <= l - 1) <= alpha. Its coverage holds for any
continuous distribution of independent launches; launches run one after
another on one machine share its slow changes, so the interval speaks for that
machine in that hour.

Goals (docs/MEASUREMENT.md, "The goals over launches"): the kept kernel at
least 0.80 of the limit for m <= 4 and 0.70 at m = 8 and 16, on every shape,
and no shape slower than 1.03 x OpenBLAS. A goal is MET when its interval lies
on the goal's side of the threshold (the bound itself included), MISSED when it
lies wholly on the other side, and INCONCLUSIVE otherwise, or when there are
too few launches to form the interval (fewer than 6 at alpha = 0.05).

Exit status: 0 when every goal is MET, 1 when any is not, 2 on unreadable input.
"""
import math
import statistics
import sys

MODEL = "llama-3.2-1b"
ALPHA = 0.05
KEPT_GOALS = {1: 0.80, 2: 0.80, 4: 0.80, 8: 0.70, 16: 0.70}
MOST_KEPT_OVER_OPENBLAS = 1.03


class BadInput(Exception):
    pass


def order_statistic_rank(n, alpha=ALPHA):
    """The largest l with 2 P(Bin(n, 1/2) <= l - 1) <= alpha, or 0 when even
    [min, max] covers less than 1 - alpha."""
    rank, below = 0, 0.0
    for l in range(1, n // 2 + 1):
        below += math.comb(n, l - 1) / 2**n
        if 2 * below > alpha:
            break
        rank = l
    return rank


def median_interval(values, alpha=ALPHA):
    """(median, low, high); low and high are None when n is too small."""
    ordered = sorted(values)
    l = order_statistic_rank(len(ordered), alpha)
    if l == 0:
        return statistics.median(ordered), None, None
    return statistics.median(ordered), ordered[l - 1], ordered[len(ordered) - l]


def verdict(low, high, threshold, at_least):
    """MET, MISSED or INCONCLUSIVE for 'value >= threshold' (at_least) or
    'value <= threshold'."""
    if low is None:
        return "INCONCLUSIVE"
    if at_least:
        return "MET" if low >= threshold else "MISSED" if high < threshold else "INCONCLUSIVE"
    return "MET" if high <= threshold else "MISSED" if low > threshold else "INCONCLUSIVE"


def number(text, path, what):
    try:
        value = float(text)
    except ValueError:
        raise BadInput(f"{path}: {what} is '{text}', not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise BadInput(f"{path}: {what} is '{text}', not a positive number")
    return value


def read_launch(path):
    """{(shape, m): (kept, kept/openblas, overlap)} for MODEL's rows of one launch."""
    rows, header = {}, None
    try:
        with open(path, encoding="utf-8") as text:
            lines = text.read().splitlines()
    except OSError as error:
        raise BadInput(f"{path}: {error.strerror}") from None
    for line in lines:
        fields = line.split()
        if fields[:1] == ["model"]:
            header = fields
            for column in ("shape", "m", "overlap", "kept", "kept/openblas"):
                if column not in header:
                    raise BadInput(f"{path}: the table's header has no '{column}' column")
        elif fields[:1] == [MODEL]:
            if header is None or len(fields) != len(header):
                raise BadInput(f"{path}: a row before the header or with a missing cell: '{line}'")
            row = dict(zip(header, fields))
            try:
                m = int(row["m"])
            except ValueError:
                raise BadInput(f"{path}: m is '{row['m']}', not a whole number") from None
            where = f"{row['shape']} m = {m}"
            rows[(row["shape"], m)] = (number(row["kept"], path, f"kept on {where}"),
                                       number(row["kept/openblas"], path, f"kept/openblas on {where}"),
                                       number(row["overlap"], path, f"overlap on {where}"))
    if not rows:
        raise BadInput(f"{path}: no {MODEL} rows (is it a jobs/bench_cpu_gemm.sh output?)")
    return rows


def judge(launches):
    """Table lines and whether every goal was MET, for a list of read_launch results."""
    shapes = list(dict.fromkeys(shape for shape, _ in launches[0]))  # in the bench's order
    points = sorted(launches[0], key=lambda key: (key[1], shapes.index(key[0])))
    for index, launch in enumerate(launches[1:], start=2):
        if sorted(launch) != sorted(launches[0]):
            raise BadInput(f"launch {index} has other shapes or batch sizes than launch 1")
    n = len(launches)
    l = order_statistic_rank(n)
    interval = (f"[x_({l}), x_({n + 1 - l})] of the {n} launches" if l
                else f"none: {n} launches are too few for alpha = {ALPHA}")
    lines = [f"# {MODEL}: goals over {n} launches; each cell the median over launches and its "
             f"distribution-free {100 * (1 - ALPHA):.0f} % interval, {interval}",
             f"# {'shape':<8} {'m':>3} {'goal':>6} {'kept: median [interval]':>26} {'>= goal':>8} {'verdict':<12}"
             f" {'kept/openblas (<= 1.03)':>26} {'verdict':<12} {'overlap':>7}"]
    all_met = True
    for shape, m in points:
        goal = KEPT_GOALS.get(m)
        kept = [launch[(shape, m)][0] for launch in launches]
        ratio = [launch[(shape, m)][1] for launch in launches]
        overlap = statistics.median(launch[(shape, m)][2] for launch in launches)
        k_mid, k_low, k_high = median_interval(kept)
        r_mid, r_low, r_high = median_interval(ratio)
        r_verdict = verdict(r_low, r_high, MOST_KEPT_OVER_OPENBLAS, at_least=False)
        if goal is None:
            goal_text, held, k_verdict = "-", "-", "-"
        else:
            goal_text = f">={goal:.2f}"
            held = f"{sum(value >= goal for value in kept)}/{n}"
            k_verdict = verdict(k_low, k_high, goal, at_least=True)
        all_met &= k_verdict in ("MET", "-") and r_verdict == "MET"
        lines.append(f"  {shape:<8} {m:>3} {goal_text:>6} {cell(k_mid, k_low, k_high):>26} {held:>8} "
                     f"{k_verdict:<12} {cell(r_mid, r_low, r_high):>26} {r_verdict:<12} {overlap:>7.3f}")
    lines.append("# every goal MET" if all_met else "# not every goal MET")
    return lines, all_met


def cell(mid, low, high):
    return f"{mid:.3f} [-]" if low is None else f"{mid:.3f} [{low:.3f}, {high:.3f}]"


def main(paths):
    if not paths:
        print("usage: gemm_goals.py LAUNCH.txt [LAUNCH.txt ...] (outputs of jobs/bench_cpu_gemm.sh)",
              file=sys.stderr)
        return 2
    try:
        lines, all_met = judge([read_launch(path) for path in paths])
    except BadInput as error:
        print(f"gemm_goals: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
