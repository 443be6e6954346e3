#pragma once
// The pre-registration record (predictions.json): what will be measured, what
// every model form predicts for each cell, the kill switches, and the
// calibration inputs with the digest of the data they came from. Written and
// hashed before any TP-k step runs; the verdict judges only against it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "predictor/verdict.hpp"
#include "predictor/model_forms.hpp"
#include "predictor/outside_form.hpp"
#include "predictor/study_design.hpp"
#include "predictor/transfer_source.hpp"

namespace tpb {

// 6: rule version 6 (decision_rule.hpp), the only one: a registration of
//    an earlier version (1 to 5, retired rules) is refused, not judged.
inline constexpr int kRegistrationVersion = 6;

// The declared workload: which decoder, on what, how many samples.
struct Workload {
  std::string model;            // config name (file stem)
  std::string config_path;
  std::string config_sha256;    // digest of the config file as read
  int layers = 0;               // layers actually run (--layers or the config's)
  int hidden_size = 0;
  int vocab_size = 0;
  int bytes_per_element = 4;    // of activations on the wire (fp32 on CPU, bf16 on CUDA)
  std::string backend;          // "cpu" or "cuda"
  int warmup_iters = 0;
  int iters = 0;
  std::uint64_t bootstrap_seed = 0;
  int bootstrap_resamples = 0;
};

// The declared grid: every k × batch × context cell is predicted and measured.
struct Grid {
  std::vector<int> tp;
  std::vector<int> batch;
  std::vector<int> context;
};

// The grid's keys in the registration and campaign.json (json_field.hpp).
inline constexpr auto kGridMembers = [](auto&& visit, auto& g) {
  visit("tp", g.tp);
  visit("batch", g.batch);
  visit("context", g.context);
};

// Calibrated inputs of one cell, and the payloads they were evaluated at.
struct CellInputs {
  int batch = 0;
  int context = 0;
  std::int64_t ar_bytes = 0;    // batch × hidden × bytes per element
  std::int64_t ag_bytes = 0;    // per-rank logits slice of the LM head all-gather
  FormInputs inputs;            // inputs.k is the TP degree
};

struct CellPrediction {
  std::string form;
  int k = 1;
  int batch = 0;
  int context = 0;
  Prediction prediction;
  bool operator==(const CellPrediction&) const = default;
};

// Where the calibration inputs came from: the raw datasets digested in order.
struct CalibrationSource {
  std::string results_file;
  std::vector<std::string> datasets;  // HDF5 paths, in digest order
  std::string datasets_sha256;
};

// What the study's decision was declared to answer (--tpot-slo, --predict-tp).
struct DecisionDeclaration {
  std::optional<double> tpot_slo_ms;
  std::vector<int> predict_tp;  // degrees not measured
};

// A degree not measured: its calibration inputs (the shard replay of its
// shapes on one rank; collective terms extrapolated in k by the model named)
// and every form's prediction, each a MODELLED figure.
struct ModelledDegree {
  int k = 1;
  std::string collective_model;
  std::vector<CellInputs> calibration;
  std::vector<CellPrediction> predictions;
};

// What `roofline` prices a phase at, measured at calibration on every rank
// at once, as the study's backend measures it:
//  - host_read (cpu, /membw): host memory's read bandwidth, median over passes
//    and ranks, and one rank's compute peak (its threads × one core's FMA peak);
//  - device_copy (cuda, /d2d and /gemm): the device-to-device copy bandwidth,
//    which counts bytes read plus bytes written, median over copies and ranks,
//    and the step's GEMM rate on a large square shape, median over GEMMs and ranks.
// A phase costs max((bytes read + bytes written) / bandwidth_GBps, flops / peak_GFLOPs).
enum class RooflineBandwidth { host_read, device_copy };

struct RooflineCeilings {
  RooflineBandwidth bandwidth = RooflineBandwidth::host_read;
  double bandwidth_GBps = 0;  // sealed as read_GBps (host_read) or copy_GBps (device_copy)
  double peak_GFLOPs = 0;
  std::string bandwidth_probe;  // what measured bandwidth_GBps: "membw: host memory read, every rank at once"
  std::string peak_probe;       // device_copy: the GEMM that measured peak_GFLOPs; host_read: empty (FMA peak)
};

struct Registration {
  int version = kRegistrationVersion;
  std::string registered_at;          // UTC, microseconds: 2026-11-30T04:15:00.123456Z
  std::string tool_version;
  Workload workload;
  Grid grid;
  std::vector<KillSwitch> kill_switches;
  std::string falsification_rule;
  CalibrationSource source;
  std::vector<CellInputs> calibration;
  std::vector<CellPrediction> predictions;
  RoundsDesign design;  // rounds, seed, the rule, α
  DecisionDeclaration decision;
  std::vector<ModelledDegree> modelled_degrees;
  // `transfer` is registered (register --transfer-from): calibrated on another model.
  std::optional<TransferSource> transfer;
  // Forms from outside (--form NAME=FILE): their files' bytes, digests and
  // rows; each row is also in `predictions`, under the form's NAME.
  std::vector<OutsideForm> outside_forms;
  // `roofline` is registered: the calibration measured the ceilings it prices at.
  std::optional<RooflineCeilings> roofline;
  // A launch of a campaign (run --campaign): the SHA-256 of its sealed
  // campaign.json (campaign_design.hpp), sealed with the predictions.
  std::optional<std::string> campaign_sha256;
};

// The forms `registration` holds: model_forms(), and `transfer` when registered.
std::vector<ModelForm> registered_forms(const Registration& registration);

// Predicts every cell of `calibration` with every form of `forms`.
std::vector<CellPrediction> predict_all(const std::vector<CellInputs>& calibration,
                                        const std::vector<ModelForm>& forms = registered_forms(false));

// An outside form's rows as predictions (form = its NAME). Without term
// columns the form named no split: the whole step is its compute share, and
// has_terms = false says so to whoever localizes.
std::vector<CellPrediction> outside_form_predictions(const OutsideForm& form);

// Every form the verdict judges: registered_forms(), then each outside form
// as an absolute form with no predict function (its predictions are sealed
// rows); names and formulas view `registration`, which must outlive them.
std::vector<ModelForm> judged_forms(const Registration& registration);
// The outside form NAME, or nullptr for a built-in one.
const OutsideForm* find_outside_form(const Registration& registration, std::string_view name);

// Canonical text (stable key order, 2-space indent): what is hashed and stored.
std::string registration_json(const Registration& registration);
// UsageError naming the field when the text is not a registration, and
// naming the outside form whose sealed bytes no longer hash to its sha256 or
// whose rows or predictions are not those of its bytes.
Registration parse_registration(std::string_view json_text);

// The prediction for (form, k, b, c) among `predictions` (a registration's,
// or a modelled degree's); tpb::Error when it was not registered.
const CellPrediction& find_prediction(const std::vector<CellPrediction>& predictions, std::string_view form, int k,
                                      int batch, int context);
const CellInputs& find_cell_inputs(const Registration& registration, int k, int batch, int context);

}  // namespace tpb
