// mpi_bench sweep: standalone collective sweeps in nccl-tests' conventions
// (flags, columns, busbw), for every TP degree of the launch in one run, with
// every sample kept, a latency-bandwidth fit per degree and HDF5 output.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>

#include "collectives/communicator_factory.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/node_check.hpp"
#include "collectives/sweep_table.hpp"
#include "collectives/tp_sweep.hpp"
#include "common/cuda_info.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"
#include "mpi_bench/checked_option.hpp"
#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/provenance.hpp"
#include "mpi_bench/rank_context.hpp"
#include "mpi_bench/mpi_thread_level.hpp"
#include "mpi_bench/sweep_output.hpp"
#include "mpi_bench/watchdog.hpp"
#include "results/results_file.hpp"
#include "tpb_version.hpp"

namespace tpb {
namespace {

// Typed and checked as every rank parses them (checked_option.hpp); what
// depends on the launch (the TP degrees against the ranks) is checked in
// parse_plan.
struct SweepCommandOptions {
  ByteSize min_bytes{8, "8"};                  // -b
  ByteSize max_bytes{16 << 20, "16M"};         // -e
  int step_factor = 2;                         // -f
  std::optional<ByteSize> step_bytes;          // -i (wins over -f when given)
  SweepOptions sweep;                          // -w, -n, -c, -G, -z, --batch-calls; parse_plan sets the rest
  std::string datatype = "float";              // -d
  std::optional<CollectiveKind> collective;    // --collective; absent: nccl with a GPU, else mpi
  std::optional<CollectiveKind> backend;       // --backend: the former spelling of --collective (hidden)
  std::string timing = "per-call";             // --timing
  std::vector<int> tp;                         // empty: every k dividing the world size
  std::string operations = "allreduce";
  std::string output;                          // -o FILE.h5
  bool overwrite = false;
  std::string csv;
  std::string json;
};

// The options after parsing.
struct SweepPlan {
  SweepOptions sweep;
  CollectiveKind collective = CollectiveKind::mpi;
  MemoryKind memory = MemoryKind::host;  // where the swept buffers live (device: each rank binds a GPU)
  std::vector<int> tp_degrees;
  std::vector<const CollectiveSpec*> specs;
  std::size_t min_bytes = 0, max_bytes = 0, step_factor = 0, step_bytes = 0;
};

constexpr std::size_t kMaxSizes = 4096;
// Open MPI's all-reduce temporary buffer at or above this size is always
// mmap-ed by glibc (its dynamic mmap threshold tops out at 32 MiB, and
// glibc.malloc.mmap_threshold cannot be set higher), then unmapped on free:
// every call faults in fresh pages.
constexpr std::size_t kMmapThresholdMax = std::size_t{32} << 20;
// Measured to lift it: no mmap at all, and no trimming of the heap top (the
// default 128 KiB trim threshold would hand the pages back on every free).
constexpr const char* kLiftMmapCliff = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296";

// "allreduce,allgather" -> {"allreduce", "allgather"}.
std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    names.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

SweepPlan parse_plan(const SweepCommandOptions& o, int world_size) {
  SweepPlan plan;
  plan.sweep = o.sweep;
  plan.min_bytes = o.min_bytes.bytes;
  plan.max_bytes = o.max_bytes.bytes;
  if (plan.min_bytes == 0) throw UsageError("-b/--minbytes: 0 is not a payload (expected at least one element)");
  if (plan.min_bytes > plan.max_bytes)
    throw UsageError(
        fmt::format("-b/--minbytes: {} is larger than -e/--maxbytes {}", o.min_bytes.text, o.max_bytes.text));
  if (o.step_bytes)
    plan.step_bytes = o.step_bytes->bytes;
  else
    plan.step_factor = static_cast<std::size_t>(o.step_factor);
  if (o.step_bytes && plan.step_bytes == 0) throw UsageError("-i/--stepbytes: 0 would never advance");
  plan.sweep.sizes_bytes = sweep_sizes(plan.min_bytes, plan.max_bytes, plan.step_factor, plan.step_bytes);
  if (plan.sweep.sizes_bytes.size() > kMaxSizes)
    throw UsageError(fmt::format("-i/--stepbytes: {} gives {} sizes from {} to {} (at most {})",
                                 o.step_bytes ? o.step_bytes->text : "", plan.sweep.sizes_bytes.size(),
                                 o.min_bytes.text, o.max_bytes.text, kMaxSizes));
  plan.sweep.type = parse_datatype(o.datatype);
  plan.sweep.timing = parse_sweep_timing(o.timing);

  if (o.collective && o.backend)
    throw UsageError(fmt::format("--collective: '{}' given together with --backend '{}' (give one)",
                                 to_string(*o.collective), to_string(*o.backend)));
  // Messages name the flag the user typed.
  const std::string_view flag = o.backend ? "--backend" : "--collective";
  const std::optional<CollectiveKind>& named = o.backend ? o.backend : o.collective;
  plan.collective = named.value_or(default_collective_kind(default_backend_kind()));
  require_built(plan.collective, flag);
  // The buffers live in device memory when the collective works there: nccl
  // always, oneshot (CUDA IPC) when this build has CUDA and a GPU is visible.
  plan.memory = collective_memory(plan.collective, default_backend_kind());
  // The host-memory communicators sum float only; only NCCL calls can be
  // captured in a CUDA graph (a one-shot call carries its epoch).
  if (plan.memory == MemoryKind::host && plan.sweep.type != DataType::f32)
    throw UsageError(fmt::format("-d/--datatype: '{}' needs {} nccl (the {} communicator on host memory sums float "
                                 "only)",
                                 o.datatype, flag, to_string(plan.collective)));
  if (plan.collective != CollectiveKind::nccl && plan.sweep.graph_calls > 0)
    throw UsageError(fmt::format("-G/--cudagraph: {} needs {} nccl (CUDA graphs)", o.sweep.graph_calls, flag));

  plan.tp_degrees = o.tp.empty() ? tp_degrees_for(world_size) : o.tp;
  for (int k : plan.tp_degrees) require_tp_degree(k, world_size);
  for (const std::string& name : split_names(o.operations)) plan.specs.push_back(&collective_spec_named(name));

  // The smallest payload must hold one element per rank (all-gather splits it k ways).
  const std::size_t element_bytes = element_size(plan.sweep.type);
  for (const CollectiveSpec* spec : plan.specs)
    for (int k : plan.tp_degrees)
      if (spec->send_count(plan.min_bytes, element_bytes, k) == 0)
        throw UsageError(fmt::format("-b/--minbytes: {} is less than one {} per rank for {} at k={}", o.min_bytes.text,
                                     to_string(plan.sweep.type), spec->name, k));
  return plan;
}

// Rank 0's progress for long sweeps: one updating line on a terminal, plain
// lines (at most one every few seconds) otherwise. Silent for short sweeps.
class ProgressDisplay {
 public:
  explicit ProgressDisplay(bool enabled) : enabled_(enabled), terminal_(isatty(STDERR_FILENO) == 1) {}

  void point(const SweepProgress& p) {
    if (!enabled_) return;
    const Clock::time_point now = Clock::now();
    if (now - start_ < kQuiet) return;
    if (!terminal_ && now - last_line_ < kPlainInterval) return;
    last_line_ = now;
    const std::string text = fmt::format("# sweep {} k={}: {} ({}/{})", *p.operation, p.group_size,
                                         format_bytes(p.bytes), p.index + 1, p.total);
    std::fprintf(stderr, terminal_ ? "\r%-60s" : "%s\n", text.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  // Clears the updating line before the table of a finished group is printed.
  void finish_group() {
    if (enabled_ && terminal_ && shown_) std::fprintf(stderr, "\r%-60s\r", "");
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kQuiet{3};
  static constexpr std::chrono::seconds kPlainInterval{5};
  bool enabled_;
  bool terminal_;
  bool shown_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_line_{};
};

// First size at or above 32 MiB whose algbw falls more than 2.5x below the
// previous size's: on the MPI backend, glibc handing Open MPI's temporary
// buffer to mmap on every call. 0 when there is none.
std::size_t find_bandwidth_cliff(const TpSweep& tp) {
  for (std::size_t s = 1; s < tp.bytes.size(); ++s)
    if (tp.bytes[s] >= kMmapThresholdMax && tp.out_of_place[s].algbw_GBps * 2.5 < tp.out_of_place[s - 1].algbw_GBps)
      return tp.bytes[s];
  return 0;
}

void print_header(const SweepPlan& plan, const RankContext& ranks) {
  fmt::print("# tpbench {} sweep: {} ranks, collective {} on {} memory, TP degrees {}\n", TPB_TOOL_VERSION,
             ranks.size, to_string(plan.collective), to_string(plan.memory),
             fmt::join(plan.tp_degrees, ","));
  fmt::print("#  minBytes {} maxBytes {} step: {} warmup iters: {} iters: {} check iters: {} datatype: {} "
             "cudagraph: {} blocking: {}\n",
             plan.min_bytes, plan.max_bytes,
             plan.step_bytes > 0 ? fmt::format("{}(bytes)", plan.step_bytes)
                                 : fmt::format("{}(factor)", plan.step_factor),
             plan.sweep.warmup_iters, plan.sweep.iters, plan.sweep.check_iters, to_string(plan.sweep.type),
             plan.sweep.graph_calls, plan.sweep.blocking ? 1 : 0);
  fmt::print("#  timing: {}{}\n", to_string(plan.sweep.timing),
             plan.sweep.timing == SweepTiming::batch ? fmt::format(" ({} calls per sample)", plan.sweep.batch_calls)
                                                     : std::string());
  for (const RankPlacement& p : ranks.rank_map)
    fmt::print("#  Rank {:>3} on {} local rank {} device {}\n", p.rank, p.node, p.local_rank, p.device);
  fmt::print("#  GLIBC_TUNABLES={}\n", glibc_tunables());
  fmt::print("#  MPI thread level: {} (TPB_MPI_THREAD)\n#\n", provided_mpi_thread_level());
}

void print_fits(const TpSweep& tp, const std::optional<SweepFits>& maybe_fits) {
  if (!maybe_fits) {
    fmt::print("# fit {} k={}: skipped, {}\n", tp.operation, tp.k, fit_skipped_reason(tp));
    return;
  }
  const SweepFits& fits = *maybe_fits;
  fmt::print("# fit {} k={}: t(n) = alpha + n/beta: alpha {:.3f} us, beta {:.3f} GB/s, R2 {:.4f} ({} sizes)\n",
             tp.operation, tp.k, fits.line.alpha_us, fits.line.beta_GBps, fits.line.r2, tp.bytes.size());
  fmt::print("# piecewise {} k={}: {} segment(s), R2 {:.4f}\n", tp.operation, tp.k, fits.piecewise.segments.size(),
             fits.piecewise.r2);
  for (const PiecewiseSegment& segment : fits.piecewise.segments)
    fmt::print("#   {:>10} .. {:<10} alpha {:9.3f} us, beta {:9.3f} GB/s, R2 {:.4f}\n",
               format_bytes(static_cast<std::uint64_t>(segment.min_bytes)),
               format_bytes(static_cast<std::uint64_t>(segment.max_bytes)), segment.fit.alpha_us,
               segment.fit.beta_GBps, segment.fit.r2);
}

int run_sweep(const SweepCommandOptions& options, const Invocation& invocation) {
  int world_size = 1;
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
  SweepPlan plan;
  RankContext ranks;
  validate_collectively(MPI_COMM_WORLD, [&] {
    plan = parse_plan(options, world_size);
    ranks = bootstrap_ranks(MPI_COMM_WORLD, plan.memory == MemoryKind::device);
    if (plan.collective == CollectiveKind::oneshot)
      require_tp_groups_on_one_node(MPI_COMM_WORLD, plan.tp_degrees, "--collective oneshot");
  });
  const RunMeta meta = collect_run_meta(ranks, invocation.argc, invocation.argv);
  const std::unique_ptr<ResultsFile> results =
      open_results_on_root(ranks, options.output, options.overwrite, meta);
  validate_collectively(MPI_COMM_WORLD, [&] {
    if (!ranks.is_root()) return;
    // Fail now, not after the sweep, when a table file cannot be written.
    for (const std::string& path : {options.csv, options.json})
      if (!path.empty() && !std::ofstream(path, std::ios::app).good())
        throw UsageError(fmt::format("--csv/--json: cannot write '{}'", path));
  });

  const std::unique_ptr<Communicator> world = make_communicator(plan.collective, plan.memory, MPI_COMM_WORLD);
  ProgressDisplay progress(ranks.is_root());
  plan.sweep.on_point = [&](const SweepProgress& p) {
    report_progress("sweep", fmt::format("{} k={} bytes={}", *p.operation, p.group_size, p.bytes));  // -T watchdog
    progress.point(p);
  };
  if (ranks.is_root()) print_header(plan, ranks);

  std::vector<TpSweep> sweeps;  // world rank 0 keeps each for --csv and --json
  std::int64_t total_wrong = 0;
  for (const CollectiveSpec* spec : plan.specs)
    for (int k : plan.tp_degrees) {
      TpSweep tp = run_tp_sweep(*world, k, *spec, plan.sweep);
      progress.finish_group();
      for (std::size_t s = 0; s < tp.bytes.size(); ++s) total_wrong += tp.wrong[s] + tp.wrong_inplace[s];
      if (!ranks.is_root()) continue;
      const std::optional<SweepFits> fits = fit_sweep(tp);
      SweepParameters parameters = sweep_parameters(plan.sweep);
      parameters.bandwidth_cliff_bytes = plan.collective == CollectiveKind::mpi ? find_bandwidth_cliff(tp) : 0;
      fmt::print("# {} k={}: {} group(s) of {} rank(s), the slowest group reported\n{}", tp.operation, k,
                 tp.n_groups, k, table_header());
      for (std::size_t s = 0; s < tp.bytes.size(); ++s) fmt::print("{}", table_line(tp, s));
      print_fits(tp, fits);
      fmt::print("# timing overhead k={}: {:.4f} us per call (an empty timed region, {} timing)\n", k,
                 tp.timing_overhead_us, to_string(plan.sweep.timing));
      if (parameters.bandwidth_cliff_bytes > 0)
        fmt::print("# note: algbw falls more than 2.5x at {}: glibc mmaps (and unmaps) Open MPI's temporary buffer on "
                   "every call at >= 32 MiB; GLIBC_TUNABLES={} lifts it (README: the 32 MiB cliff)\n",
                   format_bytes(parameters.bandwidth_cliff_bytes), kLiftMmapCliff);
      std::fflush(stdout);
      if (results) {
        write_tp_sweep(results->h5(), tp, fits, parameters);
        results->flush();  // a killed job keeps every finished group
      }
      sweeps.push_back(std::move(tp));
    }

  const int exit_code = total_wrong == 0 ? 0 : kExitRuntime;
  if (!ranks.is_root()) return exit_code;
  fmt::print("# wrong elements: {} {}\n", total_wrong, total_wrong == 0 ? "OK" : "FAILED");
  if (!options.csv.empty()) write_rows_csv(options.csv, sweeps);
  if (!options.json.empty()) write_rows_json(options.json, sweeps);
  complete_results(results, options.output);
  return exit_code;
}

}  // namespace

void add_sweep_command(CLI::App& root, CommandList& commands) {
  add_command<SweepCommandOptions>(
      root, commands, "sweep", "Collective sweeps (nccl-tests flags and columns) for every TP degree, fitted, to HDF5",
      [](CLI::App& app, SweepCommandOptions& o) {
        add_byte_size_option(app, "-b,--minbytes", "-b/--minbytes", o.min_bytes,
                             "Smallest payload, K/M/G suffixes (1024-based)");
        add_byte_size_option(app, "-e,--maxbytes", "-e/--maxbytes", o.max_bytes, "Largest payload");
        add_count_option(app, "-f,--stepfactor", "-f/--stepfactor", o.step_factor, 2, "Multiply the size by this factor");
        add_checked_option(app, "-i,--stepbytes", o.step_bytes, "Add this many bytes per step (instead of -f)",
                           [](const std::string& text) { return ByteSize{parse_bytes("-i/--stepbytes", text), text}; });
        add_count_option(app, "-w,--warmup_iters", "-w/--warmup_iters", o.sweep.warmup_iters, 0,
                         "Untimed calls at each end of the range");
        add_count_option(app, "-n,--iters", "-n/--iters", o.sweep.iters, 1, "Timed samples per size, each kept");
        add_count_option(app, "-c,--check", "-c/--check", o.sweep.check_iters, 0,
                         "Verified calls per size (outside the timed loop)");
        app.add_option("-d,--datatype", o.datatype, "float, bf16 or half (bf16/half: device memory only)")
            ->capture_default_str();
        add_count_option(app, "-G,--cudagraph", "-G/--cudagraph", o.sweep.graph_calls, 0,
                         "Capture N calls in a CUDA graph, one replay per sample (NCCL)");
        add_checked_option(app, "-z,--blocking", o.sweep.blocking, "1: barrier (untimed) before every sample",
                           [](const std::string& text) {
                             if (text != "0" && text != "1")
                               throw UsageError(
                                   fmt::format("-z/--blocking: invalid value '{}' (expected 0 or 1)", text));
                             return text == "1";
                           })
            ->default_str("0");
        app.add_option("--timing", o.timing,
                       "per-call: one clock read per call, every call kept; batch: --batch-calls calls between two "
                       "clock reads per sample (IMB, nccl-tests)")
            ->capture_default_str();
        add_count_option(app, "--batch-calls", "--batch-calls", o.sweep.batch_calls, 1,
                         "Back-to-back calls per sample with --timing batch");
        add_checked_option(app, "--collective", o.collective,
                           "mpi, nccl or oneshot (default: nccl when a GPU is visible, else mpi); oneshot works "
                           "on device memory (CUDA IPC) when a GPU is visible, else on host memory",
                           [](const std::string& text) { return parse_collective_kind("--collective", text); });
        add_checked_option(app, "--backend", o.backend, "",
                           [](const std::string& text) { return parse_collective_kind("--backend", text); })
            ->group("");  // the former spelling of --collective
        add_int_list_option(app, "--tp", "--tp", o.tp, 1,
                            "TP degrees, e.g. 1,2,4 (default: every k dividing the rank count)");
        app.add_option("--op", o.operations, "allreduce, allgather or both (comma-separated)")->capture_default_str();
        app.add_option("-o,--output", o.output, "Results file (.h5)");
        app.add_flag("--overwrite", o.overwrite, "Replace an existing results file");
        app.add_option("--csv", o.csv, "Also write every row as CSV");
        app.add_option("--json", o.json, "Also write every row as JSON");
      },
      run_sweep);
}

}  // namespace tpb
