#pragma once
// Typed command-line options, checked as CLI11 reads them. Every rank parses
// the same argv, so a bad value ends every rank's parse the same way: the
// parser's UsageError becomes a CLI11 ValidationError carrying the same one
// line (naming the flag and the value), which main prints as
// `tpbench: error: ...` with exit 2. The field holds the typed value, and
// --help shows the command's default as a user would type it.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/parse.hpp"

namespace tpb {

// The whole of `text` as a number (std::stod's syntax); nullopt when any of
// it is not. The caller words the refusal, naming its flag and what it expects.
inline std::optional<double> whole_number(const std::string& text) {
  std::size_t used = 0;
  try {
    const double value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {  // std::invalid_argument, std::out_of_range
  }
  return std::nullopt;
}

// How --help shows a typed default.
inline std::string default_text(const std::vector<int>& values) { return fmt::format("{}", fmt::join(values, ",")); }
inline std::string default_text(long long value) { return std::to_string(value); }
inline std::string default_text(int value) { return std::to_string(value); }
inline std::string default_text(double value) { return fmt::format("{:g}", value); }

// A payload size as typed ("64K") and in bytes: messages quote what the user wrote.
struct ByteSize {
  std::uint64_t bytes = 0;
  std::string text;
};

// Declares `names` (e.g. "-n,--iters") storing `parse(text)` into `target`;
// `parse` throws UsageError naming the flag and the value. The last of
// repeated occurrences wins, as for a plain option.
template <typename T, typename Parse>
CLI::Option* add_checked_option(CLI::App& app, const std::string& names, T& target, const std::string& help,
                                Parse parse) {
  CLI::Option* option = app.add_option(
      names,
      [&target, parse](const CLI::results_t& results) {
        try {
          target = parse(results.back());
        } catch (const UsageError& error) {
          throw CLI::ValidationError(error.what());
        }
        return true;
      },
      help);
  option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  return option;
}

// The common shapes, each with its default shown in --help.
inline CLI::Option* add_count_option(CLI::App& app, const std::string& names, const std::string& flag, int& target,
                                     int min_value, const std::string& help) {
  return add_checked_option(app, names, target, help,
                            [flag, min_value](const std::string& text) {
                              return static_cast<int>(parse_integer(flag, text, min_value));
                            })
      ->default_str(default_text(target));
}

inline CLI::Option* add_int_list_option(CLI::App& app, const std::string& names, const std::string& flag,
                                        std::vector<int>& target, int min_value, const std::string& help) {
  CLI::Option* option = add_checked_option(
      app, names, target, help, [flag, min_value](const std::string& text) { return parse_int_list(flag, text, min_value); });
  if (!target.empty()) option->default_str(default_text(target));
  return option;
}

inline CLI::Option* add_byte_size_option(CLI::App& app, const std::string& names, const std::string& flag,
                                         ByteSize& target, const std::string& help) {
  CLI::Option* option = add_checked_option(app, names, target, help, [flag](const std::string& text) {
    return ByteSize{parse_bytes(flag, text), text};
  });
  if (!target.text.empty()) option->default_str(target.text);
  return option;
}

// The flags of a bandwidth command (membw, d2d): the bytes one pass moves,
// untimed and timed passes, and the results file. `bytes_help` says what
// --bytes sizes, `passes` what one pass is ("copies"), `output_help` what -o holds.
struct BandwidthOptions {
  BandwidthOptions(ByteSize default_bytes, int default_warmup, int default_iters)
      : bytes(std::move(default_bytes)), warmup(default_warmup), iters(default_iters) {}
  ByteSize bytes;      // --bytes
  int warmup;          // -w
  int iters;           // -n
  std::string output;  // -o FILE.h5
  bool overwrite = false;

  // The probe's options (MembwOptions, D2dCopyOptions) as typed; UsageError
  // when --bytes is below `min_bytes`, the least one pass can move.
  template <typename ProbeOptions>
  ProbeOptions probe_options(std::uint64_t min_bytes) const {
    if (bytes.bytes < min_bytes)
      throw UsageError(fmt::format("--bytes: invalid value '{}' (expected at least {})", bytes.text, min_bytes));
    return {.bytes = static_cast<std::size_t>(bytes.bytes), .warmup = warmup, .iters = iters};
  }
};
inline void add_bandwidth_options(CLI::App& app, BandwidthOptions& o, const std::string& bytes_help,
                                  const std::string& passes, const std::string& output_help) {
  add_byte_size_option(app, "--bytes", "--bytes", o.bytes, bytes_help + " (K/M/G suffixes)");
  add_count_option(app, "-w,--warmup", "-w/--warmup", o.warmup, 0, "Untimed " + passes);
  add_count_option(app, "-n,--iters", "-n/--iters", o.iters, 1, "Timed " + passes);
  app.add_option("-o,--output", o.output, "Results file (HDF5): " + output_help);
  app.add_flag("--overwrite", o.overwrite, "Replace an existing results file");
}

}  // namespace tpb
