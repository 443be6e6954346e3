#pragma once
// One region of host memory for every weight tensor a rank holds, its pages
// first touched in a scattered order of short runs.
//
// Why: on a virtual machine, where a buffer's pages land in physical memory
// sets how fast a core streams it, and the kernel hands a new buffer the
// pages of one stretch of its free memory. Each shard drawn on its own then
// reads at its own speed: the median TP-2 step over t_compute(1) of llama-3.2-1b
// moved between 0.39 and 0.55 from launch to launch, and between two values
// when the same launch copied its shards back and forth (bench/archive/2026-12-04-verdict-rules-2-to-5,
// what moves between launches). Touching the region's pages in an order that
// jumps across it spreads every stretch the kernel hands out over the whole
// region, so every shard carved from it reads memory drawn from the same pool,
// and the ratio of two conditions no longer depends on where either landed.
#include <cstddef>
#include <map>

namespace tpb {

class WeightArena {
 public:
  // Maps `bytes` (rounded up to whole pages) and touches every page, in the
  // scattered order. Throws when the memory cannot be mapped.
  explicit WeightArena(std::size_t bytes);
  ~WeightArena();
  WeightArena(const WeightArena&) = delete;
  WeightArena& operator=(const WeightArena&) = delete;

  // 64-byte aligned, from the first free block that holds it; nullptr when
  // none does (the caller allocates elsewhere).
  void* take(std::size_t bytes);
  // Returns what take() gave, merging it with free neighbours.
  void give(void* data, std::size_t bytes);
  bool owns(const void* data) const;

  std::size_t size() const { return size_; }

 private:
  char* base_ = nullptr;
  std::size_t size_ = 0;
  std::map<std::size_t, std::size_t> free_;  // offset -> bytes, disjoint and never adjacent
};

// The constructor touches the region in runs of this many consecutive pages.
// One page at a time, the host's own first touch made the scatter dear: 5.8 GiB
// in two processes took 48-59 s scattered page by page, 27-31 s in scattered
// runs of 16 pages and 24-25 s in page order. A 64 KiB run still leaves every
// shard spread over the whole region.
constexpr std::size_t kPagesPerTouchRun = 16;

// The run order the constructor touches: run i of `runs` is touched at step
// (i * stride) mod runs, stride coprime to runs and near runs / φ, so
// consecutive touches land far apart and every run is touched once.
std::size_t scattered_run_stride(std::size_t runs);

}  // namespace tpb
