#include "tp_decoder/cpu/weight_arena.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpb {
namespace {

constexpr std::size_t kAlignment = 64;  // SIMD loads, as the backend's other tensors

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
std::size_t round_up(std::size_t bytes, std::size_t unit) { return (bytes + unit - 1) / unit * unit; }

}  // namespace

std::size_t scattered_run_stride(std::size_t runs) {
  if (runs <= 2) return 1;
  // The golden ratio's fraction of the runs keeps consecutive touches about
  // 0.38 or 0.62 of the region apart, never in one neighbourhood.
  std::size_t stride = static_cast<std::size_t>(static_cast<double>(runs) * 0.6180339887498949) | 1;
  while (std::gcd(stride, runs) != 1) stride += 2;
  return stride % runs;
}

WeightArena::WeightArena(std::size_t bytes) {
  const std::size_t page = page_size();
  size_ = round_up(bytes == 0 ? 1 : bytes, page);
  void* mapped = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED)
    throw_error("cpu", 0, fmt::format("out of host memory mapping a weight arena of {} bytes", size_), __FILE__,
                __LINE__);
  base_ = static_cast<char*>(mapped);
  const std::size_t pages = size_ / page;
  const std::size_t runs = (pages + kPagesPerTouchRun - 1) / kPagesPerTouchRun;
  const std::size_t stride = scattered_run_stride(runs);
  std::size_t run = 0;
  for (std::size_t i = 0; i < runs; ++i) {
    const std::size_t first = run * kPagesPerTouchRun;
    const std::size_t end = std::min(first + kPagesPerTouchRun, pages);
    for (std::size_t p = first; p < end; ++p) base_[p * page] = 0;  // the first touch is what places the page
    run = (run + stride) % runs;
  }
  free_.emplace(0, size_);
}

WeightArena::~WeightArena() {
  if (base_) munmap(base_, size_);
}

void* WeightArena::take(std::size_t bytes) {
  const std::size_t need = round_up(bytes == 0 ? 1 : bytes, kAlignment);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need) continue;
    const std::size_t offset = it->first;
    const std::size_t left = it->second - need;
    free_.erase(it);
    if (left > 0) free_.emplace(offset + need, left);
    return base_ + offset;
  }
  return nullptr;
}

void WeightArena::give(void* data, std::size_t bytes) {
  TPB_CHECK(owns(data), "weight arena: give() of memory it did not take");
  std::size_t offset = static_cast<std::size_t>(static_cast<char*>(data) - base_);
  std::size_t length = round_up(bytes == 0 ? 1 : bytes, kAlignment);
  auto after = free_.lower_bound(offset);
  TPB_CHECK(after == free_.end() || after->first >= offset + length, "weight arena: give() of a free block");
  if (after != free_.end() && after->first == offset + length) {
    length += after->second;
    after = free_.erase(after);
  }
  if (after != free_.begin()) {
    auto before = std::prev(after);
    TPB_CHECK(before->first + before->second <= offset, "weight arena: give() of a free block");
    if (before->first + before->second == offset) {
      offset = before->first;
      length += before->second;
      free_.erase(before);
    }
  }
  free_.emplace(offset, length);
}

bool WeightArena::owns(const void* data) const {
  const char* p = static_cast<const char*>(data);
  return base_ && p >= base_ && p < base_ + size_;
}

}  // namespace tpb
