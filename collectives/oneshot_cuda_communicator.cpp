#include "collectives/oneshot_cuda_communicator.hpp"

#include <exception>
#include <vector>

#include "collectives/device_memory_communicator.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/node_check.hpp"
#include "collectives/oneshot_cuda_kernels.hpp"
#include "common/cuda_check.hpp"

namespace tpb {
namespace {

// Every rank's buffer (control, slot 0, slot 1), this rank's allocated here
// and its peers' opened through CUDA IPC. Collective over `comm`, which
// outlives it.
class IpcPeerBuffers {
 public:
  IpcPeerBuffers(MPI_Comm comm, std::size_t capacity_bytes) : comm_(comm) {
    require_one_node(comm, "--collective oneshot");
    int rank = 0, size = 1;
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    MPI_CHECK(MPI_Comm_size(comm, &size));
    CUDA_CHECK(cudaMalloc(&own_, oneshot_cuda_buffer_bytes(capacity_bytes)));
    CUDA_CHECK(cudaMemset(own_, 0, kOneshotCudaHeaderBytes));
    cudaIpcMemHandle_t mine{};
    CUDA_CHECK(cudaIpcGetMemHandle(&mine, own_));
    std::vector<cudaIpcMemHandle_t> handles(static_cast<std::size_t>(size));
    MPI_CHECK(MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, handles.data(), sizeof(mine), MPI_BYTE, comm));
    host_bases_.assign(static_cast<std::size_t>(size), nullptr);
    for (int r = 0; r < size; ++r) {
      auto& base = host_bases_[static_cast<std::size_t>(r)];
      if (r == rank) {
        base = static_cast<char*>(own_);
        continue;
      }
      void* opened = nullptr;
      CUDA_CHECK(cudaIpcOpenMemHandle(&opened, handles[static_cast<std::size_t>(r)],
                                      cudaIpcMemLazyEnablePeerAccess));
      base = static_cast<char*>(opened);
    }
    CUDA_CHECK(cudaMalloc(&device_bases_, oneshot_cuda_peer_table_bytes(size)));
    CUDA_CHECK(cudaMemcpy(device_bases_, host_bases_.data(), oneshot_cuda_peer_table_bytes(size),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());  // zeroed flags in place before anyone polls them
    MPI_CHECK(MPI_Barrier(comm));
    peers_ = OneshotCudaPeers{static_cast<char* const*>(device_bases_), size, rank, capacity_bytes};
  }
  ~IpcPeerBuffers() {
    // Not checked: a destructor must not throw, and MPI may be finalizing.
    // Every rank's kernels done and every rank here before any buffer goes:
    // a peer may still be reading this rank's last slot. Unwinding from an
    // error, peers may never get here: leave everything to the job's end.
    if (std::uncaught_exceptions() > 0) return;
    cudaDeviceSynchronize();
    MPI_Barrier(comm_);
    for (char* base : host_bases_)
      if (base != nullptr && base != own_) cudaIpcCloseMemHandle(base);
    if (device_bases_ != nullptr) cudaFree(device_bases_);
    if (own_ != nullptr) cudaFree(own_);
  }
  IpcPeerBuffers(const IpcPeerBuffers&) = delete;
  IpcPeerBuffers& operator=(const IpcPeerBuffers&) = delete;

  const OneshotCudaPeers& peers() const { return peers_; }

 private:
  MPI_Comm comm_;
  void* own_ = nullptr;            // this rank's buffer: control, slot 0, slot 1
  std::vector<char*> host_bases_;  // every rank's buffer in this process (peers' opened by IPC)
  void* device_bases_ = nullptr;   // the same pointers, on the device, for the kernels
  OneshotCudaPeers peers_{};
};

class OneshotCudaCommunicator final : public DeviceMemoryCommunicator {
 public:
  OneshotCudaCommunicator(MPI_Comm parent, std::size_t capacity_bytes)
      : DeviceMemoryCommunicator(parent), capacity_bytes_(capacity_bytes) {}

  std::string backend_name() const override { return "oneshot"; }

  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle stream) override {
    const OneshotCudaPeers& peers = peer_buffers().peers();
    for_each_reduce_chunk(send, recv, count, type, capacity_bytes_, [&](const void* in, void* out, std::size_t n) {
      const std::uint64_t epoch = ++epoch_;
      // Published before recv is written: in place is safe.
      launch_oneshot_publish(peers, epoch, in, n * element_size(type), stream);
      launch_oneshot_reduce(peers, epoch, out, n, type, stream);
    });
  }

  void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type,
                  StreamHandle stream) override {
    const OneshotCudaPeers& peers = peer_buffers().peers();
    for_each_gather_chunk(send, recv, count_per_rank, type, capacity_bytes_,
                          [&](const void* in, void* out, std::size_t bytes, std::size_t stride_bytes) {
                            const std::uint64_t epoch = ++epoch_;
                            launch_oneshot_publish(peers, epoch, in, bytes, stream);
                            launch_oneshot_gather(peers, epoch, out, bytes, stride_bytes, stream);
                          });
  }

  void synchronize(StreamHandle stream) override {
    CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  }

  std::unique_ptr<Communicator> split(int color, int key) override {
    return std::make_unique<OneshotCudaCommunicator>(split_group(color, key).get(), capacity_bytes_);
  }

 private:
  // Opened by the first collective call (collective, like the call): a
  // communicator only split into groups, as the world of a TP sweep or step
  // is, never opens a peer's buffer and may span nodes.
  const IpcPeerBuffers& peer_buffers() {
    if (!buffers_) buffers_ = std::make_unique<IpcPeerBuffers>(mpi_comm(), capacity_bytes_);
    return *buffers_;
  }

  std::size_t capacity_bytes_;
  std::unique_ptr<IpcPeerBuffers> buffers_;
  std::uint64_t epoch_ = 0;
};

}  // namespace

std::unique_ptr<Communicator> make_oneshot_cuda_communicator(MPI_Comm comm, std::size_t capacity_bytes) {
  require_oneshot_capacity(capacity_bytes);
  return std::make_unique<OneshotCudaCommunicator>(comm, capacity_bytes);
}

}  // namespace tpb
