#pragma once
// The communicator interface: the only way the decoder and the sweeps talk to
// peers. Implementations: MPI (host buffers), NCCL (device buffers) and the
// one-shot, on host buffers (CPU) or device buffers (CUDA IPC); the factory
// (communicator_factory.hpp) picks one. Backends never call MPI or NCCL directly.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace tpb {

enum class DataType { f32, bf16, f16 };
std::size_t element_size(DataType type);
std::string to_string(DataType type);
DataType parse_datatype(const std::string& text);  // "float"/"f32", "bf16", "half"/"f16"; UsageError otherwise

enum class MemoryKind { host, device };
std::string_view to_string(MemoryKind memory);  // "host" or "device"

// cudaStream_t for NCCL, ignored (nullptr) for MPI. Kept opaque so that this
// header compiles without CUDA.
using StreamHandle = void*;

// Work captured once and replayed as a unit (a CUDA graph on NCCL).
class ReplayableWork {
 public:
  virtual ~ReplayableWork() = default;
  // Enqueues one replay of everything captured on `stream`.
  virtual void replay(StreamHandle stream) = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual std::string backend_name() const = 0;  // "mpi", "nccl" or "oneshot", as --collective spells it
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual MemoryKind memory_kind() const = 0;  // where all_reduce buffers must live

  // Sum over the group of `count` elements; in place when send == recv.
  // MPI: returns when done. NCCL: enqueued on `stream`; call synchronize().
  virtual void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle stream) = 0;
  // Concatenates `count_per_rank` elements from each rank, in rank order. In
  // place (NCCL's convention) when send == recv + rank() * count_per_rank elements.
  virtual void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type,
                          StreamHandle stream) = 0;
  // Host-side barrier over the group (always through MPI).
  virtual void barrier() = 0;
  // Waits for work enqueued on `stream` (no-op for MPI).
  virtual void synchronize(StreamHandle stream) = 0;

  // Groups ranks by `color` (same meaning as MPI_Comm_split); collective over this group.
  virtual std::unique_ptr<Communicator> split(int color, int key) = 0;

  // Buffers in the memory this communicator works on.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* buffer) = 0;
  // Blocking copies ordered on `stream`, the one the collectives run on: on NCCL
  // a copy on any other stream could still be in flight when a collective on a
  // non-blocking work stream reads the buffer.
  virtual void copy_from_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) = 0;
  virtual void copy_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) = 0;

  // A stream to enqueue work on: a new CUDA stream on NCCL, nullptr on MPI.
  virtual StreamHandle create_stream() { return nullptr; }
  virtual void destroy_stream(StreamHandle) {}
  // Records the calls `issue` makes on `stream` for replay (CUDA graph
  // capture on NCCL). Backends without capture throw UsageError.
  virtual std::unique_ptr<ReplayableWork> capture(StreamHandle stream, const std::function<void()>& issue);
};

}  // namespace tpb
