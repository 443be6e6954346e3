#!/usr/bin/python3
"""Checks what a sweep records about its collective and timing mode.

Usage: check_sweep_timing_h5.py FILE.h5 COLLECTIVE TIMING BATCH_CALLS MEMORY
Every /sweep*/k* group must name the collective (`collective`), the memory its
buffers lived in (`collective_memory`: host or device) and the timing mode,
hold the calls per batch (0 for per-call), a positive measured timing overhead,
and no wrong element.
"""
import sys

import h5py

path, collective, timing, batch_calls, memory = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
groups = 0
with h5py.File(path, "r") as f:
    for root in ("/sweep", "/sweep_allgather"):
        for name, g in f[root].items():
            groups += 1
            where = f"{root}/{name}"
            assert g.attrs["collective"] == collective, (where, g.attrs["collective"])
            assert g.attrs["collective_memory"] == memory, (where, g.attrs["collective_memory"])
            assert g.attrs["timing"] == timing, (where, g.attrs["timing"])
            assert int(g.attrs["batch_calls"]) == batch_calls, (where, g.attrs["batch_calls"])
            assert 0.0 < float(g.attrs["timing_overhead_us"]) < 1000.0, (where, g.attrs["timing_overhead_us"])
            assert (g["wrong"][...] == 0).all() and (g["wrong_inplace"][...] == 0).all(), where
            assert (g["time_us"][...] > 0).all(), where
assert groups == 4, f"expected k=1,2 for all-reduce and all-gather, found {groups} groups"
print("timing attributes OK")
