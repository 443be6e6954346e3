#include "collectives/sweep_harness.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>

#include "collectives/element_codec.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/mpi_communicator.hpp"
#include "common/error.hpp"
#include "common/samples.hpp"

namespace tpb {
namespace {

using Clock = std::chrono::steady_clock;

// Every timed and checked call of one group at one payload, on buffers
// allocated once at the largest payload of the sweep.
class GroupBench {
 public:
  GroupBench(Communicator& group, const CollectiveSpec& spec, const SweepOptions& options)
      : group_(group), spec_(spec), options_(options), element_bytes_(element_size(options.type)) {
    const std::size_t max_bytes = options.sizes_bytes.empty() ? 0 : options.sizes_bytes.back();
    const std::size_t max_send = spec.send_count(max_bytes, element_bytes_, group.size());
    const std::size_t max_recv = spec.recv_count(max_send, group.size());
    send_ = group.allocate(max_send * element_bytes_);
    recv_ = group.allocate(max_recv * element_bytes_);
    if (options.timing == SweepTiming::batch) {
      send_alt_ = group.allocate(max_send * element_bytes_);
      recv_alt_ = group.allocate(max_recv * element_bytes_);
    }
    host_send_.resize(max_send * element_bytes_);
    host_recv_.resize(max_recv * element_bytes_);
    stream_ = group.create_stream();
    // Largest value per rank such that the sum over the group stays exact.
    modulus_ = static_cast<int>(std::clamp<std::int64_t>(exact_integer_limit(options.type) / group.size(), 1, 16));
    // A second input set for the batch check: values that differ from the first's.
    modulus_alt_ = modulus_ > 2 ? modulus_ - 1 : modulus_;
  }
  ~GroupBench() {
    // Not checked: a destructor must not throw.
    try {
      group_.destroy_stream(stream_);
      group_.release(send_);
      group_.release(recv_);
      if (send_alt_ != nullptr) group_.release(send_alt_);
      if (recv_alt_ != nullptr) group_.release(recv_alt_);
    } catch (...) {
    }
  }
  GroupBench(const GroupBench&) = delete;
  GroupBench& operator=(const GroupBench&) = delete;

  std::size_t send_count(std::size_t bytes) const { return spec_.send_count(bytes, element_bytes_, group_.size()); }

  // Untimed calls at one payload: first-call setup (connections, protocol
  // buffers, page faults) stays out of the samples.
  void warm_up(std::size_t count, int calls) {
    for (int i = 0; i < calls; ++i) issue(count, false, send_, recv_);
    group_.synchronize(stream_);
  }

  // Wrong elements on this rank over options.check_iters verified calls (or
  // batches, with batch timing).
  std::int64_t check(std::size_t count, bool in_place) {
    std::int64_t wrong = 0;
    for (int c = 0; c < options_.check_iters; ++c) {
      if (options_.timing == SweepTiming::batch) {
        wrong += check_batch(count, in_place);
        continue;
      }
      fill_inputs(count, in_place, modulus_, send_, recv_);
      issue(count, in_place, send_, recv_);
      group_.synchronize(stream_);
      wrong += count_wrong(count, modulus_, recv_);
    }
    return wrong;
  }

  // Calls back to back, as a timed batch issues them, on inputs that change
  // from one call to the next: two input sets with their own output buffers,
  // alternated, so that a call that returned the previous call's result (a
  // stale slot, a flag reused too early) leaves the wrong values behind.
  // Out of place every call of the batch runs; in place each input is
  // consumed by its call, so the batch is one call per set.
  std::int64_t check_batch(std::size_t count, bool in_place) {
    fill_inputs(count, in_place, modulus_, send_, recv_);
    fill_inputs(count, in_place, modulus_alt_, send_alt_, recv_alt_);
    group_.barrier();
    const int calls = in_place ? 2 : std::max(2, options_.batch_calls);
    for (int call = 0; call < calls; ++call) {
      if (call % 2 == 0)
        issue(count, in_place, send_, recv_);
      else
        issue(count, in_place, send_alt_, recv_alt_);
    }
    group_.synchronize(stream_);
    return count_wrong(count, modulus_, recv_) + count_wrong(count, modulus_alt_, recv_alt_);
  }

  // One sample per iteration: this rank's time for one call (or one graph
  // replay divided by the calls it holds, or one batch divided by its calls).
  std::vector<double> time(std::size_t count, bool in_place) {
    if (options_.timing == SweepTiming::batch) return time_batches(count, in_place);
    const std::unique_ptr<ReplayableWork> graph = capture_graph(count, in_place);
    const double calls_per_sample = graph ? options_.graph_calls : 1;
    std::vector<double> samples(static_cast<std::size_t>(options_.iters));
    // Back to back, one sample ends where the next starts: one clock read per
    // call, as cheap as a bare timed loop (that matters at ~0.5 us latencies).
    Clock::time_point start = Clock::now();
    for (double& sample : samples) {
      if (options_.blocking) {
        group_.barrier();
        start = Clock::now();
      }
      if (graph)
        graph->replay(stream_);
      else
        issue(count, in_place, send_, recv_);
      group_.synchronize(stream_);
      const Clock::time_point end = Clock::now();
      sample = std::chrono::duration<double, std::micro>(end - start).count() / calls_per_sample;
      start = end;
    }
    return samples;
  }

  // The timing loops with nothing inside: what a sample costs the harness.
  std::vector<double> time_empty() {
    std::vector<double> samples(static_cast<std::size_t>(options_.iters));
    const int calls = options_.timing == SweepTiming::batch ? options_.batch_calls : 1;
    Clock::time_point start = Clock::now();
    for (double& sample : samples) {
      if (options_.timing == SweepTiming::batch) start = Clock::now();
      const Clock::time_point end = Clock::now();
      sample = std::chrono::duration<double, std::micro>(end - start).count() / calls;
      start = end;
    }
    return samples;
  }

 private:
  // With -G, options.graph_calls calls captured once and launched once
  // (untimed: the first launch uploads the graph); nullptr without -G.
  std::unique_ptr<ReplayableWork> capture_graph(std::size_t count, bool in_place) {
    if (options_.graph_calls == 0) return nullptr;
    std::unique_ptr<ReplayableWork> graph = group_.capture(stream_, [&] {
      for (int g = 0; g < options_.graph_calls; ++g) issue(count, in_place, send_, recv_);
    });
    graph->replay(stream_);
    group_.synchronize(stream_);
    return graph;
  }

  // Each sample: an untimed barrier, then batch_calls calls (graph replays
  // with -G) between one pair of clock reads.
  std::vector<double> time_batches(std::size_t count, bool in_place) {
    const std::unique_ptr<ReplayableWork> graph = capture_graph(count, in_place);
    const double calls_per_sample = static_cast<double>(options_.batch_calls) * (graph ? options_.graph_calls : 1);
    std::vector<double> samples(static_cast<std::size_t>(options_.iters));
    for (double& sample : samples) {
      group_.barrier();
      const Clock::time_point start = Clock::now();
      for (int call = 0; call < options_.batch_calls; ++call) {
        if (graph)
          graph->replay(stream_);
        else
          issue(count, in_place, send_, recv_);
      }
      group_.synchronize(stream_);
      sample = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / calls_per_sample;
    }
    return samples;
  }

  void issue(std::size_t count, bool in_place, void* send, void* recv) {
    if (!in_place) {
      spec_.issue(group_, send, recv, count, options_.type, stream_);
      return;
    }
    const std::size_t offset = spec_.in_place_offset(group_.rank(), count) * element_bytes_;
    spec_.issue(group_, static_cast<char*>(recv) + offset, recv, count, options_.type, stream_);
  }

  // Inputs in place (inside the receive buffer) or in the send buffer, and a
  // sentinel everywhere else in the receive buffer, so that an element the
  // collective never wrote is counted wrong.
  void fill_inputs(std::size_t count, bool in_place, int modulus, void* send, void* recv) {
    const std::size_t recv_count = spec_.recv_count(count, group_.size());
    for (std::size_t j = 0; j < recv_count; ++j) store_element(host_recv_.data(), j, options_.type, -1.0);
    const std::size_t offset = in_place ? spec_.in_place_offset(group_.rank(), count) : 0;
    void* inputs = in_place ? static_cast<void*>(host_recv_.data()) : static_cast<void*>(host_send_.data());
    for (std::size_t i = 0; i < count; ++i)
      store_element(inputs, offset + i, options_.type, input_value(group_.rank(), i, modulus));
    if (!in_place) group_.copy_from_host(send, host_send_.data(), count * element_bytes_, stream_);
    group_.copy_from_host(recv, host_recv_.data(), recv_count * element_bytes_, stream_);
  }

  std::int64_t count_wrong(std::size_t count, int modulus, const void* recv) {
    const std::size_t recv_count = spec_.recv_count(count, group_.size());
    group_.copy_to_host(host_recv_.data(), recv, recv_count * element_bytes_, stream_);
    std::int64_t wrong = 0;
    for (std::size_t j = 0; j < recv_count; ++j)
      if (load_element(host_recv_.data(), j, options_.type) != spec_.expected(j, count, group_.size(), modulus))
        ++wrong;
    return wrong;
  }

  Communicator& group_;
  const CollectiveSpec& spec_;
  const SweepOptions& options_;
  std::size_t element_bytes_;
  void* send_ = nullptr;
  void* recv_ = nullptr;
  void* send_alt_ = nullptr;  // the batch check's second input set and its output
  void* recv_alt_ = nullptr;
  std::vector<unsigned char> host_send_;
  std::vector<unsigned char> host_recv_;
  StreamHandle stream_ = nullptr;
  int modulus_ = 1;
  int modulus_alt_ = 1;
};

// Every rank's samples, [iteration][rank], on every rank of the group.
std::vector<double> gather_samples(MPI_Comm comm, const std::vector<double>& mine, int ranks) {
  const int iters = static_cast<int>(mine.size());
  std::vector<double> by_rank(mine.size() * static_cast<std::size_t>(ranks));
  MPI_CHECK(MPI_Allgather(mine.data(), iters, MPI_DOUBLE, by_rank.data(), iters, MPI_DOUBLE, comm));
  std::vector<double> by_iteration(by_rank.size());
  for (int r = 0; r < ranks; ++r)
    for (int i = 0; i < iters; ++i)
      by_iteration[static_cast<std::size_t>(i * ranks + r)] = by_rank[static_cast<std::size_t>(r * iters + i)];
  return by_iteration;
}

std::vector<std::int64_t> gather_counts(MPI_Comm comm, std::int64_t mine, int ranks) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(ranks));
  MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm));
  return all;
}

}  // namespace

std::string to_string(SweepTiming timing) { return timing == SweepTiming::batch ? "batch" : "per-call"; }

SweepTiming parse_sweep_timing(const std::string& text) {
  if (text == "per-call") return SweepTiming::per_call;
  if (text == "batch") return SweepTiming::batch;
  throw UsageError(fmt::format("--timing: invalid value '{}' (expected per-call or batch)", text));
}

PointSummary summarize_times(const std::vector<double>& time_us, int ranks, std::size_t bytes, double bus_factor) {
  const auto columns = static_cast<std::size_t>(ranks);
  std::vector<double> rank_medians(columns);
  for (std::size_t r = 0; r < columns; ++r) rank_medians[r] = median(select_columns(time_us, columns, r, 1));
  PointSummary summary;
  summary.time_us = median(slowest_rank_per_iteration(time_us, columns));
  summary.rank_min_us = *std::min_element(rank_medians.begin(), rank_medians.end());
  summary.rank_max_us = *std::max_element(rank_medians.begin(), rank_medians.end());
  summary.rank_avg_us = std::accumulate(rank_medians.begin(), rank_medians.end(), 0.0) / static_cast<double>(columns);
  // bytes per us / 1e3 = GB/s
  summary.algbw_GBps = summary.time_us > 0.0 ? static_cast<double>(bytes) / summary.time_us / 1e3 : 0.0;
  summary.busbw_GBps = summary.algbw_GBps * bus_factor;
  return summary;
}

std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, std::size_t step_factor,
                                     std::size_t step_bytes) {
  TPB_CHECK(min_bytes > 0 && min_bytes <= max_bytes && (step_bytes > 0 || step_factor > 1),
            fmt::format("sweep_sizes: invalid range {}..{} (factor {}, step {})", min_bytes, max_bytes, step_factor,
                        step_bytes));
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = min_bytes; bytes <= max_bytes;) {
    sizes.push_back(bytes);
    const std::size_t next = step_bytes > 0 ? bytes + step_bytes : bytes * step_factor;
    if (next <= bytes) break;  // overflow
    bytes = next;
  }
  return sizes;
}

SweepResult run_collective_sweep(Communicator& group, const CollectiveSpec& spec, const SweepOptions& options) {
  TPB_CHECK(!options.sizes_bytes.empty() && options.iters >= 1 && options.batch_calls >= 1,
            "run_collective_sweep needs at least one size, one iteration and one call per batch");
  const MPI_Comm comm = mpi_comm_of(group);
  const int ranks = group.size();
  SweepResult result;
  result.operation = spec.name;
  result.backend = group.backend_name();
  result.memory = to_string(group.memory_kind());
  result.datatype = to_string(options.type);
  result.group_size = ranks;
  result.iters = options.iters;
  result.bus_factor = spec.bus_factor(ranks);

  GroupBench bench(group, spec, options);
  const std::vector<double> overhead = gather_samples(comm, bench.time_empty(), ranks);
  result.timing_overhead_us = summarize_times(overhead, ranks, 0, 0.0).time_us;
  // Both ends of the range: the largest size sets up the big protocol
  // buffers, the smallest the latency path the first samples take.
  bench.warm_up(bench.send_count(options.sizes_bytes.back()), options.warmup_iters);
  bench.warm_up(bench.send_count(options.sizes_bytes.front()), options.warmup_iters);

  for (std::size_t s = 0; s < options.sizes_bytes.size(); ++s) {
    SweepPoint point;
    point.count = bench.send_count(options.sizes_bytes[s]);
    point.bytes = spec.payload_bytes(point.count, element_size(options.type), ranks);
    if (options.on_point) options.on_point(SweepProgress{&spec.name, ranks, point.bytes, s, options.sizes_bytes.size()});
    const std::int64_t wrong = bench.check(point.count, false);
    const std::vector<double> samples = bench.time(point.count, false);
    const std::int64_t wrong_inplace = bench.check(point.count, true);
    const std::vector<double> samples_inplace = bench.time(point.count, true);

    point.time_us = gather_samples(comm, samples, ranks);
    point.time_inplace_us = gather_samples(comm, samples_inplace, ranks);
    point.wrong = gather_counts(comm, wrong, ranks);
    point.wrong_inplace = gather_counts(comm, wrong_inplace, ranks);
    point.out_of_place = summarize_times(point.time_us, ranks, point.bytes, result.bus_factor);
    point.in_place = summarize_times(point.time_inplace_us, ranks, point.bytes, result.bus_factor);
    result.points.push_back(std::move(point));
  }
  return result;
}

}  // namespace tpb
