#include "collectives/device_memory_communicator.hpp"

#include "common/cuda_check.hpp"

namespace tpb {

void* DeviceMemoryCommunicator::allocate(std::size_t bytes) {
  void* buffer = nullptr;
  CUDA_CHECK(cudaMalloc(&buffer, bytes > 0 ? bytes : 1));
  return buffer;
}

void DeviceMemoryCommunicator::release(void* buffer) { CUDA_CHECK(cudaFree(buffer)); }

void DeviceMemoryCommunicator::copy_from_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, static_cast<cudaStream_t>(stream)));
  synchronize(stream);
}

void DeviceMemoryCommunicator::copy_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, static_cast<cudaStream_t>(stream)));
  synchronize(stream);
}

StreamHandle DeviceMemoryCommunicator::create_stream() {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}

void DeviceMemoryCommunicator::destroy_stream(StreamHandle stream) {
  CUDA_CHECK(cudaStreamDestroy(static_cast<cudaStream_t>(stream)));
}

}  // namespace tpb
