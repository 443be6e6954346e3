"""Checks the /sweep and /sweep_allgather layout of a 2-rank sweep results file."""
import csv
import json
import os
import sys

import h5py


def check(path):
    with h5py.File(path, "r") as f:
        assert f["/meta"].attrs["complete"] == 1, "complete flag not set"
        # The level MPI provided, as TPB_MPI_THREAD asked (funneled when unset).
        expected_level = os.environ.get("TPB_MPI_THREAD") or "funneled"
        assert f["/meta"].attrs["mpi_thread_level"] == expected_level, f["/meta"].attrs["mpi_thread_level"]
        for root, ks in (("/sweep", (1, 2)), ("/sweep_allgather", (1, 2))):
            for k in ks:
                g = f[f"{root}/k{k}"]
                n_sizes = g["bytes"].shape[0]
                iters = int(g.attrs["iters"])
                ranks = int(g.attrs["world_size"])
                assert ranks == 2, ranks
                # The default collective: MPI on host memory, or NCCL on device memory where a GPU is visible.
                memory = {"mpi": "host", "nccl": "device"}[g.attrs["collective"]]
                assert g.attrs["collective_memory"] == memory, (root, k, g.attrs["collective_memory"])
                for name in ("time_us", "time_inplace_us"):
                    assert g[name].shape == (n_sizes, iters, ranks), (root, k, name, g[name].shape)
                    assert (g[name][...] > 0).all(), (root, k, name)
                for name in ("algbw_GBps", "busbw_GBps", "wrong", "time_median_us"):
                    assert g[name].shape == (n_sizes,), (root, k, name)
                assert (g["wrong"][...] == 0).all() and (g["wrong_inplace"][...] == 0).all()
                factor = 2.0 * (k - 1) / k if root == "/sweep" else (k - 1) / k
                for algbw, busbw in zip(g["algbw_GBps"][...], g["busbw_GBps"][...]):
                    assert abs(busbw - algbw * factor) <= 1e-9 * max(1.0, algbw), (algbw, busbw, factor)
                for attribute in ("fit_alpha_us", "fit_beta_GBps", "fit_r2", "fit_residual_us", "glibc_tunables",
                                  "piecewise_alpha_us", "piecewise_beta_GBps", "piecewise_r2"):
                    assert attribute in g.attrs, (root, k, attribute)
                assert len(g.attrs["fit_residual_us"]) == n_sizes
    with open(path + ".csv") as f:
        rows = list(csv.DictReader(f))
    with open(path + ".json") as f:
        records = json.load(f)
    assert len(rows) == len(records) > 0
    assert rows[0]["bytes"] == str(records[0]["bytes"])
    print("layout OK")


if __name__ == "__main__":
    check(sys.argv[1])
