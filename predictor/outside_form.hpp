#pragma once
// A form from outside tpbench (register/run/campaign init --form NAME=FILE):
// FILE gives one predicted t_step per cell of the study's grid, computed by
// whatever model its author trusts. tpbench reads it before any calibration,
// refuses it whole when any row is bad, and seals its bytes, their SHA-256
// and its rows into the registration, where it is judged like a built-in
// form. FILE (times in µs), decided by its first non-space character:
//   CSV   k,batch,context,t_step_us[,compute_us,collective_us,host_us]
//   JSON  {"predictions": [{"k": 1, "batch": 1, "context": 256, "t_step_us": 50100.0}, ...]}
// The term columns (keys) come all three or none.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/model_forms.hpp"

namespace tpb {

struct Grid;  // registration.hpp

// The largest FILE read; a larger one is refused, never read whole.
inline constexpr std::size_t kMaxOutsideFormBytes = std::size_t{1} << 20;

struct OutsidePrediction {
  int k = 1;
  int batch = 0;
  int context = 0;
  double t_step_us = 0;
  std::optional<TermShares> terms;  // when FILE has the term columns
  bool operator==(const OutsidePrediction&) const = default;
};

struct OutsideForm {
  std::string name;         // NAME: [a-z0-9_]+, neither built in nor reserved
  std::string source_name;  // FILE's base name
  std::string sha256;       // of `bytes`
  std::string bytes;        // FILE as read: what the rows are parsed from
  bool has_terms = false;
  std::vector<OutsidePrediction> rows;  // every grid cell once, in grid order (k, batch, context)
};

// The form of one `--form NAME=FILE`. UsageError, one line beginning
// "--form NAME" that names the bad value and where (FILE:LINE for a CSV
// row): a bad or taken NAME, FILE missing, unreadable, a directory, empty,
// over kMaxOutsideFormBytes or not a form of `grid` (parse_outside_form).
OutsideForm read_outside_form(std::string_view name_equals_file, const Grid& grid);

// Every --form of a command line, in order; UsageError also for a NAME given twice.
std::vector<OutsideForm> read_outside_forms(const std::vector<std::string>& name_equals_files, const Grid& grid);

// The form NAME in `bytes`, read from `path` (named in messages; its base
// name is recorded). UsageError "PATH:LINE: ..." (CSV) or "PATH:
// predictions[I]: ..." (JSON) for an unknown column or key, a term column
// without the other two, a value that is not a number, a time that is not
// finite or is negative (t_step_us must be > 0), a cell outside the grid, a
// cell twice, a grid cell missing, malformed JSON.
OutsideForm parse_outside_form(std::string_view name, std::string_view path, std::string bytes, const Grid& grid);

// The sealed records (registration, campaign.json), one per form in order:
// name, source_name, sha256, has_terms, the bytes as a string and the rows.
nlohmann::ordered_json outside_forms_json(const std::vector<OutsideForm>& forms);
// The sealed records, each one's bytes parsed again against `grid`:
// UsageError naming the form when they no longer hash to its sha256 or their
// rows are not its rows, or naming a NAME that two records share.
std::vector<OutsideForm> parse_sealed_outside_forms(const nlohmann::ordered_json& json, const Grid& grid);

}  // namespace tpb
