#include "predictor/outside_form.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "common/error.hpp"
#include "common/parse.hpp"
#include "predictor/json_field.hpp"
#include "predictor/registration.hpp"
#include "predictor/sha256.hpp"

namespace tpb {
namespace {

using nlohmann::ordered_json;

// A name an outside form may not take besides the built-in forms': `aa` is
// the A/A control's place beside the forms (/campaign/aa, the report).
constexpr std::string_view kReservedNames[] = {"aa"};
constexpr std::string_view kCellKeys[] = {"k", "batch", "context", "t_step_us"};
constexpr std::string_view kTermKeys[] = {"compute_us", "collective_us", "host_us"};

using Cell = std::tuple<long long, long long, long long>;

std::string cell_text(const Cell& cell) {
  return fmt::format("k={},batch={},context={}", std::get<0>(cell), std::get<1>(cell), std::get<2>(cell));
}

// One prediction as FILE states it, before the grid is consulted; `where`
// says where it stands ("f.csv:3", "f.json: predictions[2]").
struct StatedRow {
  Cell cell;
  double t_step_us = 0;
  std::optional<TermShares> terms;
  std::string where;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

// A time in µs: finite, and > 0 for t_step_us or >= 0 for a term. `text` is the value as FILE spells it.
double checked_time(std::string_view where, std::string_view key, std::string_view text, double value) {
  const bool step = key == "t_step_us";
  if (!std::isfinite(value) || value < 0 || (step && value == 0))
    throw UsageError(fmt::format("{}: {} '{}' is not a finite time {} 0 µs", where, key, text, step ? ">" : ">="));
  return value;
}

double parse_time_text(std::string_view where, std::string_view key, std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    throw UsageError(fmt::format("{}: {} '{}' is not a number (µs)", where, key, text));
  return checked_time(where, key, text, value);
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trimmed(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

// CSV: the header k,batch,context,t_step_us, optionally followed by the three
// term columns, then one row per cell. Blank lines are skipped.
std::vector<StatedRow> csv_rows(std::string_view path, std::string_view bytes, bool* has_terms) {
  std::vector<StatedRow> rows;
  std::size_t header_fields = 0;
  int line_number = 0;
  for (std::size_t start = 0; start < bytes.size();) {
    const std::size_t end = std::min(bytes.find('\n', start), bytes.size());
    const std::string_view line = trimmed(bytes.substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, line_number);
    const std::vector<std::string_view> fields = split_fields(line);
    if (header_fields == 0) {
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string_view expected = i < 4 ? kCellKeys[i] : i < 7 ? kTermKeys[i - 4] : std::string_view();
        if (fields[i] != expected)
          throw UsageError(fmt::format("{}: column '{}' where the header has '{}' (the header is "
                                       "k,batch,context,t_step_us, optionally followed by "
                                       "compute_us,collective_us,host_us)",
                                       where, fields[i], expected.empty() ? "nothing" : expected));
      }
      if (fields.size() != 4 && fields.size() != 7)
        throw UsageError(fmt::format("{}: the header '{}' has {} columns: it is k,batch,context,t_step_us, "
                                     "optionally followed by compute_us,collective_us,host_us (all three or none)",
                                     where, line, fields.size()));
      header_fields = fields.size();
      *has_terms = header_fields == 7;
      continue;
    }
    if (fields.size() != header_fields)
      throw UsageError(fmt::format("{}: {} fields where the header has {}", where, fields.size(), header_fields));
    StatedRow row;
    row.where = where;
    row.cell = {parse_integer(fmt::format("{}: k", where), fields[0], 1),
                parse_integer(fmt::format("{}: batch", where), fields[1], 1),
                parse_integer(fmt::format("{}: context", where), fields[2], 1)};
    row.t_step_us = parse_time_text(where, "t_step_us", fields[3]);
    if (*has_terms)
      row.terms = TermShares{parse_time_text(where, kTermKeys[0], fields[4]),
                             parse_time_text(where, kTermKeys[1], fields[5]),
                             parse_time_text(where, kTermKeys[2], fields[6])};
    rows.push_back(row);
  }
  return rows;
}

long long json_whole_number(const ordered_json& row, std::string_view key, const std::string& where) {
  const auto found = row.find(std::string(key));
  if (found == row.end()) throw UsageError(fmt::format("{}: no '{}'", where, key));
  if (!found->is_number_integer() || found->get<long long>() < 1)
    throw UsageError(fmt::format("{}: {} {} is not a whole number >= 1", where, key, found->dump()));
  return found->get<long long>();
}

double json_time(const ordered_json& row, std::string_view key, const std::string& where) {
  const auto found = row.find(std::string(key));
  if (found == row.end()) throw UsageError(fmt::format("{}: no '{}'", where, key));
  if (!found->is_number()) throw UsageError(fmt::format("{}: {} {} is not a number (µs)", where, key, found->dump()));
  return checked_time(where, key, found->dump(), found->get<double>());
}

// The rows of a "predictions" array: FILE's own, or the ones a registration sealed.
std::vector<StatedRow> json_prediction_rows(std::string_view path, const ordered_json& predictions, bool* has_terms) {
  if (!predictions.is_array()) throw UsageError(fmt::format("{}: \"predictions\" is not an array", path));
  std::vector<StatedRow> rows;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const ordered_json& row = predictions[i];
    const std::string where = fmt::format("{}: predictions[{}]", path, i);
    if (!row.is_object()) throw UsageError(fmt::format("{} is not an object", where));
    for (const auto& item : row.items()) {
      const auto known = [&](std::string_view key) { return key == item.key(); };
      if (std::none_of(std::begin(kCellKeys), std::end(kCellKeys), known) &&
          std::none_of(std::begin(kTermKeys), std::end(kTermKeys), known))
        throw UsageError(fmt::format("{}: unknown key '{}' (the keys are k, batch, context, t_step_us and "
                                     "optionally compute_us, collective_us, host_us)",
                                     where, item.key()));
    }
    const auto terms_given = std::count_if(std::begin(kTermKeys), std::end(kTermKeys),
                                           [&](std::string_view key) { return row.contains(std::string(key)); });
    if (terms_given != 0 && terms_given != 3)
      throw UsageError(fmt::format("{}: the terms compute_us, collective_us, host_us come all three or none", where));
    if (i == 0) *has_terms = terms_given == 3;
    if (*has_terms != (terms_given == 3))
      throw UsageError(fmt::format("{}: the terms come in every row or in none (predictions[0] has {})", where,
                                   *has_terms ? "them" : "none"));
    StatedRow stated;
    stated.where = where;
    stated.cell = {json_whole_number(row, "k", where), json_whole_number(row, "batch", where),
                   json_whole_number(row, "context", where)};
    stated.t_step_us = json_time(row, "t_step_us", where);
    if (*has_terms)
      stated.terms = TermShares{json_time(row, kTermKeys[0], where), json_time(row, kTermKeys[1], where),
                                json_time(row, kTermKeys[2], where)};
    rows.push_back(stated);
  }
  return rows;
}

std::vector<StatedRow> json_rows(std::string_view path, std::string_view bytes, bool* has_terms) {
  const ordered_json document = parse_json_document(bytes, path);
  if (!document.is_object()) throw UsageError(fmt::format("{}: not a JSON object {{\"predictions\": [...]}}", path));
  for (const auto& item : document.items())
    if (item.key() != "predictions")
      throw UsageError(fmt::format("{}: unknown key '{}' (the document holds \"predictions\" only)", path, item.key()));
  if (!document.contains("predictions")) throw UsageError(fmt::format("{}: no \"predictions\" array", path));
  return json_prediction_rows(path, document.at("predictions"), has_terms);
}

// The stated rows as the grid's cells, each once, in grid order.
std::vector<OutsidePrediction> grid_rows(std::string_view path, const std::vector<StatedRow>& stated,
                                         const Grid& grid) {
  const auto in = [](const std::vector<int>& values, long long v) {
    return std::find(values.begin(), values.end(), v) != values.end();
  };
  std::map<Cell, const StatedRow*> by_cell;
  for (const StatedRow& row : stated) {
    const auto [k, b, c] = row.cell;
    if (!in(grid.tp, k) || !in(grid.batch, b) || !in(grid.context, c))
      throw UsageError(fmt::format("{}: cell {} is not in the grid (--tp {} --batch {} --context {})", row.where,
                                   cell_text(row.cell), fmt::join(grid.tp, ","), fmt::join(grid.batch, ","),
                                   fmt::join(grid.context, ",")));
    const auto [first, inserted] = by_cell.emplace(row.cell, &row);
    if (!inserted)
      throw UsageError(fmt::format("{}: cell {} is given twice (first at {})", row.where, cell_text(row.cell),
                                   first->second->where));
  }
  std::vector<OutsidePrediction> rows;
  for (int k : grid.tp)
    for (int b : grid.batch)
      for (int c : grid.context) {
        const auto found = by_cell.find({k, b, c});
        if (found == by_cell.end())
          throw UsageError(fmt::format("{}: no prediction for cell {} (every cell of the grid, once)", path,
                                       cell_text({k, b, c})));
        rows.push_back({k, b, c, found->second->t_step_us, found->second->terms});
      }
  return rows;
}

// FILE's bytes, never more than kMaxOutsideFormBytes + 1 of them read.
std::string read_bounded(const std::string& path) {
  if (path.empty()) throw UsageError("no FILE after '='");
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw UsageError(fmt::format("'{}' is a directory, not a file of predictions", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::string bytes(kMaxOutsideFormBytes + 1, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (in.bad()) throw UsageError(fmt::format("cannot read '{}'", path));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (bytes.size() > kMaxOutsideFormBytes)
    throw UsageError(fmt::format("'{}' is larger than 1 MiB ({} bytes), the most a form's file may hold", path,
                                 kMaxOutsideFormBytes));
  return bytes;
}

// UsageError unless NAME is [a-z0-9_]+ and neither a built-in form's name
// (transfer included) nor reserved.
void check_outside_form_name(std::string_view name) {
  if (name.empty()) throw UsageError("the form's NAME is empty");
  const auto allowed = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; };
  if (!std::all_of(name.begin(), name.end(), allowed))
    throw UsageError(fmt::format("NAME '{}' is not lower-case letters, digits and _ ([a-z0-9_]+)", name));
  std::vector<std::string> taken;
  for (const ModelForm& form : registered_forms(true, true)) taken.emplace_back(form.name);
  taken.insert(taken.end(), std::begin(kReservedNames), std::end(kReservedNames));
  if (std::find(taken.begin(), taken.end(), name) != taken.end())
    throw UsageError(fmt::format("NAME '{}' is taken (built in or reserved: {})", name, fmt::join(taken, ", ")));
}

// UsageError naming the first NAME that two forms share.
void check_distinct_outside_form_names(const std::vector<OutsideForm>& forms) {
  for (std::size_t i = 0; i < forms.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (forms[i].name == forms[j].name)
        throw UsageError(fmt::format("NAME '{}' is given twice (from {} and {})", forms[i].name,
                                     forms[j].source_name, forms[i].source_name));
}

ordered_json outside_form_json(const OutsideForm& form) {
  ordered_json rows = ordered_json::array();
  for (const OutsidePrediction& row : form.rows) {
    ordered_json out = {{"k", row.k}, {"batch", row.batch}, {"context", row.context}, {"t_step_us", row.t_step_us}};
    if (row.terms) {
      out[std::string(kTermKeys[0])] = row.terms->compute_us;
      out[std::string(kTermKeys[1])] = row.terms->collective_us;
      out[std::string(kTermKeys[2])] = row.terms->host_us;
    }
    rows.push_back(out);
  }
  return {{"name", form.name},     {"source_name", form.source_name}, {"sha256", form.sha256},
          {"has_terms", form.has_terms}, {"bytes", form.bytes},       {"rows", rows}};
}

OutsideForm parse_sealed_outside_form(const ordered_json& json, const Grid& grid) {
  const std::string name = json_field<std::string>(json, "name", "sealed outside form");
  const std::string where = fmt::format("sealed outside form '{}'", name);
  prefix_usage_errors(where, [&] { check_outside_form_name(name); });
  // The record's own fields: a missing one is named under `where` already.
  const auto source_name = json_field<std::string>(json, "source_name", where.c_str());
  const auto sealed_sha256 = json_field<std::string>(json, "sha256", where.c_str());
  const auto bytes = json_field<std::string>(json, "bytes", where.c_str());
  const bool has_terms = json_field<bool>(json, "has_terms", where.c_str());
  const ordered_json& sealed_rows_json = json_section(json, "rows", where.c_str());
  return prefix_usage_errors(where, [&] {
    if (const std::string actual = sha256_hex(bytes); actual != sealed_sha256)
      throw UsageError(fmt::format("its bytes hash to {}, not its sealed sha256 {} (edited after sealing)", actual,
                                   sealed_sha256));
    OutsideForm form = parse_outside_form(name, source_name, bytes, grid);
    bool sealed_has_terms = false;
    const std::vector<OutsidePrediction> sealed_rows =
        grid_rows("its rows", json_prediction_rows("its rows", sealed_rows_json, &sealed_has_terms), grid);
    if (has_terms != form.has_terms || sealed_has_terms != form.has_terms || sealed_rows != form.rows)
      throw UsageError(fmt::format("its rows are not the rows of its sealed bytes ({})", source_name));
    return form;
  });
}

}  // namespace

OutsideForm parse_outside_form(std::string_view name, std::string_view path, std::string bytes, const Grid& grid) {
  if (trimmed(bytes).empty()) throw UsageError(fmt::format("{}: the file is empty", path));
  OutsideForm form;
  form.name = std::string(name);
  form.source_name = std::filesystem::path(path).filename().string();
  form.sha256 = sha256_hex(bytes);
  const bool json = trimmed(bytes).front() == '{';
  const std::vector<StatedRow> stated =
      json ? json_rows(path, bytes, &form.has_terms) : csv_rows(path, bytes, &form.has_terms);
  form.rows = grid_rows(path, stated, grid);
  form.bytes = std::move(bytes);
  return form;
}

OutsideForm read_outside_form(std::string_view name_equals_file, const Grid& grid) {
  return prefix_usage_errors(fmt::format("--form {}", name_equals_file), [&] {
    const std::size_t equals = name_equals_file.find('=');
    if (equals == std::string_view::npos) throw UsageError("expected NAME=FILE");
    const std::string_view name = name_equals_file.substr(0, equals);
    const std::string path(name_equals_file.substr(equals + 1));
    check_outside_form_name(name);
    return parse_outside_form(name, path, read_bounded(path), grid);
  });
}

std::vector<OutsideForm> read_outside_forms(const std::vector<std::string>& name_equals_files, const Grid& grid) {
  std::vector<OutsideForm> forms;
  for (const std::string& arg : name_equals_files) {
    forms.push_back(read_outside_form(arg, grid));
    prefix_usage_errors(fmt::format("--form {}", arg), [&] { check_distinct_outside_form_names(forms); });
  }
  return forms;
}

nlohmann::ordered_json outside_forms_json(const std::vector<OutsideForm>& forms) {
  ordered_json sealed = ordered_json::array();
  for (const OutsideForm& form : forms) sealed.push_back(outside_form_json(form));
  return sealed;
}

std::vector<OutsideForm> parse_sealed_outside_forms(const nlohmann::ordered_json& json, const Grid& grid) {
  std::vector<OutsideForm> forms;
  for (const auto& sealed : json) forms.push_back(parse_sealed_outside_form(sealed, grid));
  check_distinct_outside_form_names(forms);
  return forms;
}

}  // namespace tpb
