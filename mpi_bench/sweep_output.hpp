#pragma once
// From a collective sweep (collectives/tp_sweep.hpp) to the results file's
// sweep group (results/sweep_group.hpp): the fits of the slowest group's
// medians, and world rank 0's TpSweep written.
#include <optional>
#include <string>
#include <string_view>

#include "collectives/tp_sweep.hpp"
#include "results/h5_file.hpp"
#include "results/sweep_group.hpp"

namespace tpb {

// Fits of the slowest group's median times (out of place) against payload
// bytes; none for a sweep of one size (a valid sweep, as in nccl-tests: a line
// needs two sizes), which fit_skipped_reason() (results/sweep_group.hpp) words.
std::optional<SweepFits> fit_sweep(const TpSweep& tp);

// GLIBC_TUNABLES as this rank sees it, or "(unset)": malloc tuning changes
// large MPI all-reduce times tenfold (the 32 MiB cliff).
std::string glibc_tunables();

// The run parameters a sweep group records for `options`, GLIBC_TUNABLES
// included; no bandwidth cliff (the caller's to detect).
SweepParameters sweep_parameters(const SweepOptions& options);

// Writes (or replaces) the sweep group of tp's collective and k; without
// fits, the group's fit_skipped attribute says why.
// `under`: an ablation root (results/layout.hpp), or the file's root when empty.
void write_tp_sweep(H5File& file, const TpSweep& tp, const std::optional<SweepFits>& fits,
                    const SweepParameters& parameters, std::string_view under = {});

}  // namespace tpb
