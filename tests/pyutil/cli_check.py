"""What the end-to-end command tests share: their flags, a command that must
succeed, and the failures they collect before reporting them all at once."""
import argparse
import subprocess
import sys

FAILURES = []


def expect(condition, what):
    if not condition:
        FAILURES.append(what)


def run(cmd, timeout=600):
    """cmd's stdout; exits naming the command, its status and its output's last lines when it fails."""
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def mpi_bench_args(*more):
    """The parsed flags: --mpiexec, --mpi-bench, --configs and each flag of `more`, all required."""
    parser = argparse.ArgumentParser()
    for flag in ("--mpiexec", "--mpi-bench", "--configs") + more:
        parser.add_argument(flag, required=True)
    return parser.parse_args()
