#include "collectives/oneshot_cuda_communicator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <vector>

#include "collectives/mpi_check.hpp"
#include "collectives/mpi_communicator.hpp"
#include "collectives/node_check.hpp"
#include "collectives/oneshot_cuda_kernels.hpp"
#include "common/cuda_check.hpp"

namespace tpb {
namespace {

class OneshotCudaCommunicator final : public Communicator, public MpiBacked {
 public:
  OneshotCudaCommunicator(MPI_Comm parent, std::size_t capacity_bytes) : capacity_bytes_(capacity_bytes) {
    require_one_node(parent, "--collective oneshot");
    MPI_CHECK(MPI_Comm_dup(parent, &comm_));
    MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    MPI_CHECK(MPI_Comm_size(comm_, &size_));
    open_peer_buffers();
  }
  ~OneshotCudaCommunicator() override {
    // Not checked: a destructor must not throw, and MPI may be finalizing.
    // Every rank's kernels done and every rank here before any buffer goes:
    // a peer may still be reading this rank's last slot. Unwinding from an
    // error, peers may never get here: leave everything to the job's end.
    if (std::uncaught_exceptions() > 0) return;
    cudaDeviceSynchronize();
    if (comm_ != MPI_COMM_NULL) MPI_Barrier(comm_);
    for (int r = 0; r < size_; ++r)
      if (r != rank_ && host_bases_[static_cast<std::size_t>(r)] != nullptr)
        cudaIpcCloseMemHandle(host_bases_[static_cast<std::size_t>(r)]);
    if (device_bases_ != nullptr) cudaFree(device_bases_);
    if (own_ != nullptr) cudaFree(own_);
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  OneshotCudaCommunicator(const OneshotCudaCommunicator&) = delete;
  OneshotCudaCommunicator& operator=(const OneshotCudaCommunicator&) = delete;

  std::string backend_name() const override { return "oneshot"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MemoryKind memory_kind() const override { return MemoryKind::device; }
  MPI_Comm mpi_comm() const override { return comm_; }

  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle stream) override {
    const std::size_t element_bytes = element_size(type);
    const std::size_t chunk = capacity_bytes_ / element_bytes;
    for (std::size_t offset = 0; offset < count; offset += chunk) {
      const std::size_t n = std::min(chunk, count - offset);
      const std::uint64_t epoch = ++epoch_;
      // Published before recv is written: in place is safe.
      launch_oneshot_publish(peers_, epoch, static_cast<const char*>(send) + offset * element_bytes,
                             n * element_bytes, stream);
      launch_oneshot_reduce(peers_, epoch, static_cast<char*>(recv) + offset * element_bytes, n, type, stream);
    }
  }

  void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type,
                  StreamHandle stream) override {
    const std::size_t rank_bytes = count_per_rank * element_size(type);
    for (std::size_t offset = 0; offset < rank_bytes; offset += capacity_bytes_) {
      const std::size_t n = std::min(capacity_bytes_, rank_bytes - offset);
      const std::uint64_t epoch = ++epoch_;
      launch_oneshot_publish(peers_, epoch, static_cast<const char*>(send) + offset, n, stream);
      launch_oneshot_gather(peers_, epoch, static_cast<char*>(recv) + offset, n, rank_bytes, stream);
    }
  }

  void barrier() override { MPI_CHECK(MPI_Barrier(comm_)); }
  void synchronize(StreamHandle stream) override {
    CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  }

  std::unique_ptr<Communicator> split(int color, int key) override {
    MPI_Comm child = MPI_COMM_NULL;
    MPI_CHECK(MPI_Comm_split(comm_, color, key, &child));
    std::unique_ptr<Communicator> result;
    try {
      result = std::make_unique<OneshotCudaCommunicator>(child, capacity_bytes_);
    } catch (...) {
      MPI_Comm_free(&child);
      throw;
    }
    MPI_CHECK(MPI_Comm_free(&child));
    return result;
  }

  void* allocate(std::size_t bytes) override {
    void* buffer = nullptr;
    CUDA_CHECK(cudaMalloc(&buffer, bytes > 0 ? bytes : 1));
    return buffer;
  }
  void release(void* buffer) override { CUDA_CHECK(cudaFree(buffer)); }
  // On the work stream, then waited for: a synchronous cudaMemcpy from pageable
  // memory runs on the legacy stream, which a non-blocking work stream does not
  // wait for, and may return before the copy has landed.
  void copy_from_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, static_cast<cudaStream_t>(stream)));
    synchronize(stream);
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) override {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, static_cast<cudaStream_t>(stream)));
    synchronize(stream);
  }
  StreamHandle create_stream() override {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return stream;
  }
  void destroy_stream(StreamHandle stream) override {
    CUDA_CHECK(cudaStreamDestroy(static_cast<cudaStream_t>(stream)));
  }

 private:
  // Allocates this rank's buffer (flags zeroed), exchanges IPC handles and
  // opens every peer's; returns once every rank can poll every flag.
  void open_peer_buffers() {
    CUDA_CHECK(cudaMalloc(&own_, kOneshotCudaHeaderBytes + 2 * capacity_bytes_));
    CUDA_CHECK(cudaMemset(own_, 0, kOneshotCudaHeaderBytes));
    cudaIpcMemHandle_t mine{};
    CUDA_CHECK(cudaIpcGetMemHandle(&mine, own_));
    std::vector<cudaIpcMemHandle_t> handles(static_cast<std::size_t>(size_));
    MPI_CHECK(MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, handles.data(), sizeof(mine), MPI_BYTE, comm_));
    host_bases_.assign(static_cast<std::size_t>(size_), nullptr);
    for (int r = 0; r < size_; ++r) {
      auto& base = host_bases_[static_cast<std::size_t>(r)];
      if (r == rank_) {
        base = static_cast<char*>(own_);
        continue;
      }
      void* opened = nullptr;
      CUDA_CHECK(cudaIpcOpenMemHandle(&opened, handles[static_cast<std::size_t>(r)],
                                      cudaIpcMemLazyEnablePeerAccess));
      base = static_cast<char*>(opened);
    }
    CUDA_CHECK(cudaMalloc(&device_bases_, host_bases_.size() * sizeof(char*)));
    CUDA_CHECK(cudaMemcpy(device_bases_, host_bases_.data(), host_bases_.size() * sizeof(char*),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());  // zeroed flags in place before anyone polls them
    MPI_CHECK(MPI_Barrier(comm_));
    peers_ = OneshotCudaPeers{static_cast<char* const*>(device_bases_), size_, rank_, capacity_bytes_};
  }

  std::size_t capacity_bytes_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  void* own_ = nullptr;                 // this rank's buffer: control, slot 0, slot 1
  std::vector<char*> host_bases_;       // every rank's buffer in this process (peers' opened by IPC)
  void* device_bases_ = nullptr;        // the same pointers, on the device, for the kernels
  OneshotCudaPeers peers_{};
  std::uint64_t epoch_ = 0;
};

}  // namespace

std::unique_ptr<Communicator> make_oneshot_cuda_communicator(MPI_Comm comm, std::size_t capacity_bytes) {
  if (capacity_bytes == 0 || capacity_bytes % 64 != 0)
    throw UsageError(fmt::format("one-shot capacity: {} bytes is not a positive multiple of 64", capacity_bytes));
  return std::make_unique<OneshotCudaCommunicator>(comm, capacity_bytes);
}

}  // namespace tpb
