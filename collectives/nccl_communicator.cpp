#include "collectives/nccl_communicator.hpp"

#include <fmt/format.h>

#include "collectives/device_memory_communicator.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/stream_wait.hpp"
#include "collectives/teardown.hpp"
#include "common/cuda_check.hpp"

namespace tpb {
namespace {

ncclDataType_t to_nccl(DataType type) {
  switch (type) {
    case DataType::f32: return ncclFloat32;
    case DataType::bf16: return ncclBfloat16;
    case DataType::f16: return ncclFloat16;
  }
  throw UsageError("--datatype: unknown datatype");
}

cudaStream_t cuda_stream(StreamHandle stream) { return static_cast<cudaStream_t>(stream); }

// A CUDA graph of everything captured on one stream.
class CudaGraphWork final : public ReplayableWork {
 public:
  CudaGraphWork(cudaStream_t stream, const std::function<void()>& issue) {
    // Relaxed: the sweep allocates nothing while capturing, and other threads
    // (the watchdog) must stay free to call CUDA.
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    try {
      issue();
    } catch (...) {
      cudaGraph_t abandoned = nullptr;
      cudaStreamEndCapture(stream, &abandoned);  // not checked: already failing
      if (abandoned != nullptr) cudaGraphDestroy(abandoned);
      throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  ~CudaGraphWork() override {
    // Not checked: a destructor must not throw.
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  CudaGraphWork(const CudaGraphWork&) = delete;
  CudaGraphWork& operator=(const CudaGraphWork&) = delete;

  void replay(StreamHandle stream) override { CUDA_CHECK(cudaGraphLaunch(exec_, cuda_stream(stream))); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

class NcclCommunicator final : public DeviceMemoryCommunicator {
 public:
  explicit NcclCommunicator(MPI_Comm parent) : DeviceMemoryCommunicator(parent) {
    ncclUniqueId id{};
    if (rank() == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_CHECK(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, mpi_comm()));
    NCCL_CHECK(ncclCommInitRank(&nccl_, size(), id, rank()));
  }
  ~NcclCommunicator() override {
    // Not checked: a destructor must not throw. While an exception unwinds a
    // peer may be dead, and ncclCommDestroy would wait for it: abort.
    if (nccl_ == nullptr) return;
    if (teardown_.on_destruction() == Teardown::abort)
      ncclCommAbort(nccl_);
    else
      ncclCommDestroy(nccl_);
  }

  std::string backend_name() const override { return "nccl"; }

  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, StreamHandle stream) override {
    require_alive();
    NCCL_CHECK(ncclAllReduce(send, recv, count, to_nccl(type), ncclSum, nccl_, cuda_stream(stream)));
  }
  void all_gather(const void* send, void* recv, std::size_t count_per_rank, DataType type,
                  StreamHandle stream) override {
    require_alive();
    NCCL_CHECK(ncclAllGather(send, recv, count_per_rank, to_nccl(type), nccl_, cuda_stream(stream)));
  }

  void synchronize(StreamHandle stream) override {
    const cudaStream_t waited = cuda_stream(stream);
    wait_watching_async_errors(
        "NCCL",
        [waited] {
          const cudaError_t status = cudaStreamQuery(waited);
          if (status == cudaErrorNotReady) return false;
          CUDA_CHECK(status);
          return true;
        },
        [this]() -> std::optional<AsyncFailure> {
          if (nccl_ == nullptr) return std::nullopt;  // aborted earlier: nothing of ours is left on the stream
          ncclResult_t result = ncclSuccess;
          NCCL_CHECK(ncclCommGetAsyncError(nccl_, &result));
          if (result == ncclSuccess || result == ncclInProgress) return std::nullopt;
          return AsyncFailure{result, fmt::format("{}: {}", ncclGetErrorString(result), ncclGetLastError(nccl_))};
        },
        [this] {
          ncclCommAbort(nccl_);  // not checked: already failing, and the reason is the async error
          nccl_ = nullptr;
        });
  }

  std::unique_ptr<Communicator> split(int color, int key) override {
    return std::make_unique<NcclCommunicator>(split_group(color, key).get());
  }

  std::unique_ptr<ReplayableWork> capture(StreamHandle stream, const std::function<void()>& issue) override {
    TPB_CHECK(stream != nullptr, "CUDA graph capture needs a stream from create_stream()");
    return std::make_unique<CudaGraphWork>(cuda_stream(stream), issue);
  }

 private:
  void require_alive() const {
    TPB_CHECK(nccl_ != nullptr, "NCCL communicator used after it was aborted on an asynchronous error");
  }

  ncclComm_t nccl_ = nullptr;
  TeardownWatch teardown_;  // abort, not destroy, when destroyed by an exception
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm comm) {
  return std::make_unique<NcclCommunicator>(comm);
}

}  // namespace tpb
