#include "mpi_bench/kv_cli.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <limits>

#include "collectives/communicator_factory.hpp"
#include "common/choices.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"
#include "mpi_bench/checked_option.hpp"
#include "mpi_bench/grid_options.hpp"
#include "mpi_bench/memory_ledger.hpp"
#include "predictor/kv_ledger.hpp"
#include "tp_decoder/shard_plan.hpp"

namespace tpb {
namespace {

constexpr long long kMaxLength = std::numeric_limits<std::int32_t>::max();

std::int64_t parse_length(const std::string& where, const std::string& item) {
  std::string digits = item;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.erase(0, 1);
  const bool whole = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  if (!whole || negative || digits.size() > 10 || std::stoll(digits) > kMaxLength)
    throw UsageError(fmt::format("{}: invalid value '{}' (expected a whole number of tokens from 0 to {})", where,
                                 item, kMaxLength));
  return std::stoll(digits);
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::int64_t> lengths_from_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("--lengths: cannot read lengths file '{}'", path));
  std::vector<std::int64_t> lengths;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string item = trimmed(line.substr(0, line.find('#')));
    if (item.empty()) continue;
    lengths.push_back(parse_length(fmt::format("--lengths: {} line {}", path, number), item));
  }
  if (in.bad()) throw UsageError(fmt::format("--lengths: cannot read lengths file '{}'", path));
  if (lengths.empty()) throw UsageError(fmt::format("--lengths: '{}' holds no lengths", path));
  return lengths;
}

double parse_reserve_pct(const std::string& text) {
  const std::optional<double> value = whole_number(text);
  if (!value || !(*value >= 0 && *value < 100))
    throw UsageError(fmt::format("--reserve-pct: invalid value '{}' (expected a percentage from 0 to below 100)", text));
  return *value;
}

// --lengths: a LIST when the text holds only digits, commas and minus signs
// ("1,15,16"), otherwise a FILE of one whole number per line, where '#'
// starts a comment and blank lines are skipped. Each length is a whole number
// of tokens from 0 to 2^31 − 1. UsageError naming the flag, the file and line,
// and the bad value; a file holding no length is refused too.
std::vector<std::int64_t> parse_lengths(const std::string& text) {
  const bool is_list = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == ',' || c == '-';
  });
  if (!is_list) return lengths_from_file(text);
  std::vector<std::int64_t> lengths;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    lengths.push_back(parse_length(fmt::format("--lengths '{}'", text), text.substr(start, comma - start)));
    start = comma + 1;
  }
  return lengths;
}

// The model's torch_dtype as the ledger's dtype: bfloat16 and float16 (both
// 2 bytes) as bf16, float32 as f32; absent or anything else: bf16.
ElementType dtype_of_model(const ModelConfig& config, std::string* source) {
  const nlohmann::json json = nlohmann::json::parse(config.json_text, nullptr, false);
  const std::string torch_dtype =
      json.is_object() && json.contains("torch_dtype") && json["torch_dtype"].is_string() ? json["torch_dtype"].get<std::string>() : "";
  if (torch_dtype == "float32" || torch_dtype == "bfloat16" || torch_dtype == "float16") {
    *source = fmt::format("the model's torch_dtype {}", torch_dtype);
    return torch_dtype == "float32" ? ElementType::f32 : ElementType::bf16;
  }
  *source = torch_dtype.empty() ? "no torch_dtype in the model: bf16" : fmt::format("torch_dtype {} unknown: bf16", torch_dtype);
  return ElementType::bf16;
}

}  // namespace

void add_kv_cli_options(CLI::App& app, KvCliOptions& o) {
  app.add_option("--model", o.model, "Hugging Face config.json (tp_decoder/configs/*.json)")->required();
  add_int_list_option(app, "--tp", "--tp", o.tp, 1, "TP degrees k to size, e.g. 1,2,4,8 (no ranks needed)")
      ->required();
  add_int_list_option(app, "--context", "--context", o.question.contexts, 0,
                      "Contexts c: sequences admissible at each (c + 1 tokens each)");
  app.add_option("--lengths", o.lengths,
                 "Request lengths: a LIST (1,15,16) or a FILE of one whole number per line, '#' comments "
                 "(default: one sequence per context)");
  add_int_list_option(app, "--block", "--block", o.question.blocks, 1, "Block sizes in tokens, e.g. 8,16");
  add_checked_option(app, "--bytes-per-token", o.bytes_per_token, "Logical KV bytes per token instead of the model's",
                     [](const std::string& text) { return std::int64_t{parse_integer("--bytes-per-token", text, 1)}; });
  add_checked_option(app, "--mem-per-device", o.mem_per_device,
                     "Memory per device, e.g. 120G (default: CUDA free memory, or MemAvailable / cgroup limit, "
                     "shared by the ranks of the node)",
                     [](const std::string& text) { return mem_per_device_budget(text); });
  add_checked_option(app, "--reserve-pct", o.question.reserve_pct, "Percent of the budget kept free",
                     parse_reserve_pct)
      ->default_str(default_text(o.question.reserve_pct));
  app.add_option("--dtype", o.dtype, "bf16 or f32 (default: the model's torch_dtype, else bf16)");
  add_checked_option(app, "--backend", o.backend,
                     "Whose buffers to count: cpu or cuda (default: cuda when a GPU is visible)",
                     [](const std::string& text) { return parse_backend_kind("--backend", text); });
  add_checked_option(app, "--collective", o.collective,
                     "Whose communication buffers each TP group holds: mpi, nccl or oneshot (default: nccl for "
                     "cuda, mpi for cpu)",
                     [](const std::string& text) { return parse_collective_kind("--collective", text); });
  add_checked_option(app, "--table-entry-bytes", o.question.table_entry_bytes, "Bytes per block-table entry",
                     [](const std::string& text) {
                       return std::int64_t{parse_integer("--table-entry-bytes", text, 1)};
                     })
      ->default_str(std::to_string(o.question.table_entry_bytes));
  app.add_option("-o,--output", o.output, "Results file (.h5), the ledger under /kv");
  app.add_flag("--overwrite", o.overwrite, "Replace an existing results file");
  app.add_flag("--json", o.json, "Print one JSON object instead of the tables");
}

KvCliPlan parse_kv_cli(const KvCliOptions& o) {
  KvCliPlan plan;
  plan.tp = o.tp;
  plan.question = o.question;
  KvQuestion& q = plan.question;
  plan.backend = o.backend.value_or(default_backend_kind());
  plan.collective = o.collective.value_or(default_collective_kind(plan.backend));
  require_collective_for_backend(plan.collective, plan.backend, "--collective");

  plan.config = load_model_config(o.model);
  check_grid_fits_model(plan.config, plan.tp, q.contexts);

  if (o.dtype.empty()) {
    plan.dtype = dtype_of_model(plan.config, &plan.labels.file.dtype_source);
  } else if (o.dtype == "bf16" || o.dtype == "f32") {
    plan.dtype = o.dtype == "bf16" ? ElementType::bf16 : ElementType::f32;
    plan.labels.file.dtype_source = fmt::format("--dtype {}", o.dtype);
  } else {
    throw UsageError(fmt::format("--dtype: invalid value '{}' (expected bf16 or f32)", o.dtype));
  }

  const ModelConfig& m = plan.config;
  q.kv_heads = m.num_kv_heads;
  if (!o.bytes_per_token) {
    q.logical_kv_bytes_per_token = kv_bytes_per_token(kv_cache_shape(m, plan.dtype));
    plan.labels.bytes_per_token_source = fmt::format("{} layers x 2 x {} KV heads x {} head_dim x {} B",
                                                     m.num_layers, m.num_kv_heads, m.head_dim, element_size(plan.dtype));
  } else {
    q.logical_kv_bytes_per_token = *o.bytes_per_token;
    if (q.logical_kv_bytes_per_token % m.num_kv_heads != 0)
      throw UsageError(fmt::format("--bytes-per-token: {} does not split evenly over the {} KV heads of {}",
                                   q.logical_kv_bytes_per_token, m.num_kv_heads, m.name));
    plan.labels.bytes_per_token_source = fmt::format("--bytes-per-token {}", *o.bytes_per_token);
  }

  if (o.lengths.empty()) {
    for (int c : q.contexts) q.lengths.push_back(std::int64_t{c} + 1);
    plan.labels.file.lengths_source = "the --context grid (c + 1 tokens each)";
  } else {
    q.lengths = parse_lengths(o.lengths);
    plan.labels.file.lengths_source = fmt::format("--lengths {}", o.lengths);
  }
  plan.labels.file.model = m.name;
  plan.labels.file.dtype = to_string(plan.dtype);
  plan.labels.file.backend = to_string(plan.backend);
  plan.labels.file.collective = to_string(plan.collective);
  plan.labels.estimator = fmt::format("{} backend buffers with {} collectives at {}", to_string(plan.backend),
                                      to_string(plan.collective), to_string(plan.dtype));
  return plan;
}

}  // namespace tpb
