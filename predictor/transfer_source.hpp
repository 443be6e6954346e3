#pragma once
// What a `transfer` registration carries from the study it was calibrated on
// (model A) into model B's sealed predictions.json: A's machine, A's grid,
// the digest of A's phase timings, the per-phase cost fit made from them
// with its own digest, and B's cells priced phase by phase. Custody rehashes
// only the datasets of the file at hand, so A's fit travels as text inside
// B's registration, sealed by B's SHA-256 and by the digest of the fit itself.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/phase_cost_fit.hpp"

namespace tpb {

// A machine as far as a fit describes it: never its hostname.
struct MachineIdentity {
  std::string cpu_model;
  int cpu_cores = 0;
  std::string backend;     // "cpu" or "cuda"
  std::string collective;  // "mpi", "nccl" or "oneshot"
  bool operator==(const MachineIdentity&) const = default;
};
// "CPU 'X', 2 cores, backend cpu, collective mpi"
std::string describe(const MachineIdentity& machine);

// One of B's cells (k, b, c) priced by A's fit: each phase's predicted time
// on one rank of B's TP-k shard, in the ledger's phase order.
struct TransferCell {
  int k = 1;
  int batch = 1;
  int context = 0;
  std::vector<std::pair<std::string, double>> phase_us;
  double compute_us() const;  // the phases summed: t_transfer(k)

  // A mixture-of-experts B reads only the experts its routing touches. The
  // cell is priced at the count B's replay of it recorded (phase_us above);
  // beside it, at the count uniform routing would give,
  // E·(1 − (1 − top/E)^b), labelled MODELLED: what a user without B's router
  // would predict. Absent for a dense B.
  struct Experts {
    double recorded_per_layer = 0;   // the recorded distinct experts, mean over layers
    double modelled_per_layer = 0;   // MODELLED
    double modelled_compute_us = 0;  // the phases summed at the MODELLED count
  };
  std::optional<Experts> experts;
};

struct TransferSource {
  std::string results_file;   // A's study file, as named at registration
  std::string model;          // A's config name
  MachineIdentity machine;    // A's, equal to B's at registration
  std::vector<int> batch;     // A's grid
  std::vector<int> context;
  std::vector<std::string> datasets;  // A's phase datasets the fit read, in digest order
  std::string datasets_sha256;
  PhaseCostFit fit;
  std::string fit_sha256;     // of the fit's JSON text: phase_cost_fit_sha256(fit)
  std::vector<TransferCell> cells;
};

std::string phase_cost_fit_sha256(const PhaseCostFit& fit);

nlohmann::ordered_json transfer_source_json(const TransferSource& source);
// UsageError naming the field when one is missing, and when the fit no
// longer matches its digest (edited after registration).
TransferSource parse_transfer_source(const nlohmann::ordered_json& json);

// The priced cell (k, b, c); tpb::Error when it was not registered.
const TransferCell& find_transfer_cell(const TransferSource& source, int k, int batch, int context);

}  // namespace tpb
