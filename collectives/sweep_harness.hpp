#pragma once
// The sweep harness shared by every collective (nccl-tests' common.cu role):
// buffers allocated once at the largest size, warm-up at both ends of the size
// range, a correctness check outside the timed loop, then every iteration's
// time kept per rank. One call sweeps one group; run_tp_sweep (tp_sweep.hpp)
// runs every group of a TP degree at once.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "collectives/communicator.hpp"
#include "common/sweep_record.hpp"

namespace tpb {

struct SweepProgress {
  const std::string* operation;  // spec name
  int group_size;
  std::size_t bytes;              // payload about to be measured
  std::size_t index;              // 0-based position in the size list
  std::size_t total;              // sizes in the list
};

// How samples are timed. per_call: one clock read per call, every call a
// sample. batch (IMB, nccl-tests): after an untimed barrier, batch_calls
// back-to-back calls between one pair of clock reads; the sample is the mean.
enum class SweepTiming { per_call, batch };
std::string to_string(SweepTiming timing);
SweepTiming parse_sweep_timing(const std::string& text);  // "per-call" or "batch"; UsageError otherwise

struct SweepOptions {
  std::vector<std::size_t> sizes_bytes;  // payloads, ascending; rounded down to whole elements per call
  DataType type = DataType::f32;
  int warmup_iters = 5;   // -w: untimed calls at the largest and at the smallest size before timing
  int iters = 20;         // -n: timed samples per size and placement
  int check_iters = 1;    // -c: verified calls per size and placement (untimed); 0 skips the check
  int graph_calls = 0;    // -G: calls captured into one CUDA graph, replayed once per sample; 0 = direct calls
  bool blocking = false;  // -z: barrier before each sample (untimed): each sample is one call's latency
  SweepTiming timing = SweepTiming::per_call;  // --timing
  int batch_calls = 100;  // --batch-calls: calls per sample with SweepTiming::batch
  // Called on every rank before each size (progress display, watchdog).
  std::function<void(const SweepProgress&)> on_point;
};

struct SweepPoint {
  std::size_t bytes = 0;              // payload, whole elements (nccl-tests' size column)
  std::size_t count = 0;              // elements each rank sends
  std::vector<double> time_us;        // [iteration][group rank], out of place
  std::vector<double> time_inplace_us;
  std::vector<std::int64_t> wrong;    // per group rank: wrong elements over all check calls
  std::vector<std::int64_t> wrong_inplace;
  PointSummary out_of_place;
  PointSummary in_place;
};

struct SweepResult : SweepHeader {
  int group_size = 1;
  std::vector<SweepPoint> points;  // one per size, ascending
};

// Collective over `group`; every rank passes the same options and gets the
// whole group's result.
SweepResult run_collective_sweep(Communicator& group, const CollectiveSpec& spec, const SweepOptions& options);

// time_us is [iteration][rank] with `ranks` columns; a point of payload `bytes`.
PointSummary summarize_times(const std::vector<double>& time_us, int ranks, std::size_t bytes, double bus_factor);

// nccl-tests' size list: min, min*factor, ... <= max, or min, min+step, ...
// <= max when step_bytes > 0.
std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, std::size_t step_factor,
                                     std::size_t step_bytes);

}  // namespace tpb
