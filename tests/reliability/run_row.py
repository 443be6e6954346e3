#!/usr/bin/python3
"""Runs one row of the table in docs/RELIABILITY.md against the real mpi_bench.

The table is the test: each row names a command, the ranks to launch it on,
the exit code, the exact message and what must be left on disk. This script
finds the row by id, runs `mpiexec -n RANKS mpi_bench ...` in a fresh
directory and checks all four. Run it with Debian's /usr/bin/python3 (h5py).

Placeholders in the command and message columns:
  {dir}        the row's scratch directory
  {src}        the project's source directory (for the configs in tests/fuzz/corpus)
  {host}       this host's name (what MPI_Get_processor_name reports)
  {existing}   {dir}/existing.h5, created before the run with known bytes
  {garbage}    {dir}/garbage.h5, text that is not HDF5
  {truncated}  {dir}/truncated.h5, a valid results file cut in half
  {nan}        {dir}/nan.h5, a complete sweep file with one time set to NaN
  {tampered}   {dir}/tampered.h5, a complete file whose /prereg text was edited
               after its sha256 was stored
  {unfinished} {dir}/unfinished/study.h5, a study of tiny-llama at TP 1,2 whose
               rank 1 was SIGKILLed as its first measurement round began
  {locked}     {dir}/locked.h5, a complete sweep file that another process holds
               open for writing (HDF5's lock) until 3 s after the command
               under test has said that it waits for the lock
  {held}       {dir}/held.h5, the same, held until the command has ended
  {shm}        {dir}/shm, an empty directory created before the run (where a row
               points Open MPI's shared-window backing files)
In the message column `*` matches any text (a line number, a time, a PID).
"""
import argparse
import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyutil"))
from h5_open import open_when_unlocked  # noqa: E402

EXISTING_BYTES = b"results that must survive a refused run\n"
# A failing job must end within this many seconds (beyond -T for watchdog rows):
# generous, since CI runs several multi-rank tests on two cores.
END_WITHIN_S = 40


def read_rows(table_path):
    rows = {}
    with open(table_path, encoding="utf-8") as table:
        for line in table:
            if not line.startswith("| `"):
                continue
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if len(cells) != 7:
                sys.exit(f"malformed row (expected 7 cells): {line}")
            row_id, ranks, tried, command, exit_code, message, on_disk = cells
            rows[row_id.strip("`")] = {
                "ranks": int(ranks),
                "tried": tried,
                "command": command.strip("`"),
                "exit": int(exit_code),
                "message": message,
                "on_disk": on_disk,
            }
    return rows


SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def expand(text, scratch):
    return (text.replace("{dir}", scratch).replace("{src}", SOURCE_DIR).replace("{host}", socket.gethostname())
            .replace("{existing}", os.path.join(scratch, "existing.h5"))
            .replace("{garbage}", os.path.join(scratch, "garbage.h5"))
            .replace("{truncated}", os.path.join(scratch, "truncated.h5"))
            .replace("{nan}", os.path.join(scratch, "nan.h5"))
            .replace("{tampered}", os.path.join(scratch, "tampered.h5"))
            .replace("{unfinished}", os.path.join(scratch, "unfinished", "study.h5"))
            .replace("{locked}", os.path.join(scratch, "locked.h5"))
            .replace("{held}", os.path.join(scratch, "held.h5"))
            .replace("{shm}", os.path.join(scratch, "shm")))


def run_mpi_bench(args, mpiexec, mpi_bench, ranks, env_extra=None, check=True):
    env = dict(os.environ, **(env_extra or {}))
    result = subprocess.run([mpiexec, "--oversubscribe", "-n", str(ranks), mpi_bench] + args, env=env,
                            capture_output=True, text=True, timeout=120)
    if check and result.returncode != 0:
        sys.exit(f"setup command failed: mpi_bench {' '.join(args)}\n{result.stderr}")
    return result


# Holds a results file open for writing, as a job still running would: h5py
# takes HDF5's own exclusive lock. Says "locked" once it holds it and lets go
# when its standard input closes.
LOCK_HOLDER = "import sys, h5py\nf = h5py.File(sys.argv[1], 'r+')\nprint('locked', flush=True)\nsys.stdin.read()\nf.close()\n"
LOCKED_FOR_S = 3.0  # {locked}: how long the lock stays held once the command waits for it
WAITING_LINE = "is still locked by a running process"


class LockHolder:
    def __init__(self, path):
        self.process = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, path], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        if self.process.stdout.readline().strip() != "locked":
            sys.exit(f"setup: could not hold the lock on {path}")

    def release(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=60)


def run_with_lock_held(words, mpiexec, mpi_bench, ranks, env, holder, release_after_wait):
    """Runs mpi_bench while `holder` holds a file's lock. With release_after_wait
    the lock goes LOCKED_FOR_S seconds after the command says it waits for it
    (so the wait is exercised however slowly mpiexec starts); otherwise it is
    held until the command ends."""
    process = subprocess.Popen([mpiexec, "--oversubscribe", "-n", str(ranks), mpi_bench] + words,
                               env=dict(os.environ, **env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stderr_lines = []
    waiting = threading.Event()

    def read_stderr():
        for line in process.stderr:
            stderr_lines.append(line)
            if WAITING_LINE in line:
                waiting.set()

    reader = threading.Thread(target=read_stderr)
    reader.start()
    if release_after_wait and waiting.wait(timeout=END_WITHIN_S):
        time.sleep(LOCKED_FOR_S)
        holder.release()
    stdout = process.stdout.read()
    process.wait(timeout=120)
    reader.join()
    holder.release()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, "".join(stderr_lines))


def prepare_inputs(command, scratch, mpiexec, mpi_bench):
    """Creates the files a row's command refers to, before the run."""
    if "{shm}" in command:
        os.mkdir(os.path.join(scratch, "shm"))
    if "{existing}" in command:
        with open(os.path.join(scratch, "existing.h5"), "wb") as f:
            f.write(EXISTING_BYTES)
    if "{garbage}" in command:
        with open(os.path.join(scratch, "garbage.h5"), "w") as f:
            f.write("this is not an HDF5 file\n")
    if "{truncated}" in command:
        path = os.path.join(scratch, "truncated.h5")
        run_mpi_bench(["sweep", "-b", "8", "-e", "64", "-n", "2", "-w", "0", "-o", path], mpiexec, mpi_bench, 2)
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.truncate(size // 2)
    if "{nan}" in command:
        path = os.path.join(scratch, "nan.h5")
        run_mpi_bench(["sweep", "-b", "8", "-e", "64", "-n", "2", "-w", "0", "-o", path], mpiexec, mpi_bench, 2)
        with open_when_unlocked(path, "r+") as f:
            times = f["/sweep/k2/time_us"][...]
            times.flat[1] = np.nan
            f["/sweep/k2/time_us"][...] = times
    if "{tampered}" in command:
        path = os.path.join(scratch, "tampered.h5")
        run_mpi_bench(["info", "-o", path], mpiexec, mpi_bench, 1)
        registered = '{"grid": {"tp": [1, 2]}, "threshold": 0.15}'
        with open_when_unlocked(path, "r+") as f:
            group = f.create_group("/prereg")
            group.create_dataset("predictions_json", data=[registered.replace("0.15", "0.50")],
                                 dtype=h5py.string_dtype())
            group.attrs["sha256"] = hashlib.sha256(registered.encode()).hexdigest()
    for name in ("locked", "held"):
        if "{" + name + "}" in command:
            run_mpi_bench(["sweep", "-b", "8", "-e", "64", "-n", "2", "-w", "0", "-o",
                           os.path.join(scratch, name + ".h5")], mpiexec, mpi_bench, 2)
    if "{unfinished}" in command:
        # The same fault as row study-kill-2ranks: the 27th progress report of
        # the study is rank 1 starting the first visit of the first round.
        config = os.path.join(SOURCE_DIR, "tp_decoder", "configs", "tiny-llama.json")
        killed = run_mpi_bench(["run", "--model", config, "--tp", "1,2", "-w", "1", "-n", "3", "--sweep-iters", "2",
                                "--calibration-rounds", "3", "-o", os.path.join(scratch, "unfinished")],
                               mpiexec, mpi_bench, 2, {"TPB_FAULT": "1:study:kill:27"}, check=False)
        if killed.returncode != 137:
            sys.exit(f"setup: the study killed on purpose exited {killed.returncode}, not 137\n{killed.stderr}")


def snapshot(scratch):
    """Every file below the scratch directory with its bytes and mtime."""
    state = {}
    for folder, _, names in os.walk(scratch):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                state[os.path.relpath(path, scratch)] = (f.read(), os.stat(path).st_mtime_ns)
    return state


def matches(line, pattern):
    """Whole-line match where `*` is any text and everything else is literal (brackets included)."""
    return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), line) is not None


def check_message(expected_cell, stdout, stderr, failures):
    # The expected line may be on either stream (a run that succeeds reports on stdout).
    lines = stderr.splitlines() + stdout.splitlines()
    # A cell may hold alternatives ("`a`<br>`b`"): builds with and without CUDA word some errors differently.
    alternatives = [a.strip().strip("`") for a in expected_cell.split("<br>")]
    if not any(matches(line, a) for line in lines for a in alternatives):
        failures.append(f"no output line matches the expected message\n  expected: {alternatives}\n  stderr, stdout:\n"
                        + "\n".join("    " + l for l in lines))
    expected = alternatives[0]
    # One line per failure, never a stack trace: exactly one tpbench error line
    # when the message is one, none besides watchdog diagnostics otherwise.
    errors = [l for l in stderr.splitlines() if l.startswith("tpbench: error:")]
    wanted = 1 if expected.startswith("tpbench: error:") else 0
    if len(errors) != wanted:
        failures.append(f"expected {wanted} 'tpbench: error:' line(s), got {len(errors)}: {errors}")
    for marker in ("terminate called", "Segmentation fault", "core dumped", "Traceback", "AddressSanitizer"):
        if marker in stderr:
            failures.append(f"stderr shows '{marker}'")


def check_disk(on_disk, before, scratch, mpiexec, mpi_bench, failures):
    after = snapshot(scratch)
    if on_disk.startswith("nothing"):
        created = sorted(set(after) - set(before))
        if created:
            failures.append(f"files were created: {created}")
    if on_disk.startswith("nothing") or "untouched" in on_disk:
        changed = [name for name in before if after.get(name) != before[name]]
        if changed:
            failures.append(f"existing files were changed or removed: {changed}")
        return
    # "complete=0; /sweep/k1; no /sweep/k2": readable, incomplete, holding
    # every finished point and nothing past the failure. A leading "FILE: "
    # names another file than out.h5 below the scratch directory.
    match = re.match(r"(?:(\S+): )?complete=(\d)(.*)", on_disk)
    if not match:
        failures.append(f"unknown 'left on disk' value: {on_disk}")
        return
    path = os.path.join(scratch, match.group(1) or "out.h5")
    try:
        with open_when_unlocked(path) as f:
            complete = int(f["/meta"].attrs["complete"])
            if complete != int(match.group(2)):
                failures.append(f"{path}: complete={complete}, expected {match.group(2)}")
            for item in [s.strip() for s in match.group(3).split(";") if s.strip()]:
                if item.startswith("empty "):  # a directory below {dir} that must hold nothing
                    folder = os.path.join(scratch, item[len("empty "):])
                    if os.listdir(folder):
                        failures.append(f"{folder} is not empty: {sorted(os.listdir(folder))}")
                    continue
                absent = item.startswith("no ")
                name = item[3:].strip() if absent else item
                if (name in f) == absent:
                    failures.append(f"{path}: {name} is {'present' if absent else 'missing'}")
    except OSError as error:
        failures.append(f"{path} does not open with h5py: {error}")
        return
    verify = run_mpi_bench(["verify", path], mpiexec, mpi_bench, 1, check=False)
    if int(match.group(2)) == 0 and (verify.returncode != 1 or "complete=0" not in verify.stderr):
        failures.append(f"mpi_bench verify did not flag the incomplete file: {verify.returncode} {verify.stderr}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", required=True)
    parser.add_argument("--id", required=True)
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--mpi-bench", required=True)
    args = parser.parse_args()

    row = read_rows(args.table).get(args.id)
    if row is None:
        sys.exit(f"no row '{args.id}' in {args.table}")
    scratch = tempfile.mkdtemp(prefix=f"tpb_rel_{args.id}_")
    try:
        command = expand(row["command"], scratch)
        prepare_inputs(row["command"], scratch, args.mpiexec, args.mpi_bench)
        words = command.split()
        env = {}
        while words and "=" in words[0]:
            name, value = words.pop(0).split("=", 1)
            env[name] = value
        if not words or words.pop(0) != "mpi_bench":
            sys.exit(f"row {args.id}: the command must start with mpi_bench: {command}")
        before = snapshot(scratch)
        started = time.monotonic()
        held = next((n for n in ("locked", "held") if "{" + n + "}" in row["command"]), None)
        if held:
            holder = LockHolder(os.path.join(scratch, held + ".h5"))
            result = run_with_lock_held(words, args.mpiexec, args.mpi_bench, row["ranks"], env, holder,
                                        release_after_wait=held == "locked")
        else:
            result = run_mpi_bench(words, args.mpiexec, args.mpi_bench, row["ranks"], env, check=False)
        failures = []
        elapsed_s = time.monotonic() - started

        if result.returncode != row["exit"]:
            failures.append(f"exit code {result.returncode}, expected {row['exit']}")
        timeout = re.search(r"-T (\d+)", command)
        limit_s = END_WITHIN_S + (int(timeout.group(1)) if timeout else 0)
        if elapsed_s > limit_s:
            failures.append(f"took {elapsed_s:.1f} s, expected to end within {limit_s} s")
        check_message(expand(row["message"], scratch), result.stdout, result.stderr, failures)
        check_disk(row["on_disk"], before, scratch, args.mpiexec, args.mpi_bench, failures)
        print(f"row {args.id}: mpiexec -n {row['ranks']} {command}: exit {result.returncode} in {elapsed_s:.1f} s")
        if failures:
            print("FAILED:\n" + "\n".join("- " + f for f in failures))
            print("stdout:\n" + result.stdout[-3000:])
            return 1
        print("ok")
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
