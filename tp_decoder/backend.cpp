#include "tp_decoder/backend.hpp"

#include <fmt/format.h>

#include "common/enum_table.hpp"
#include "common/error.hpp"
#include "tp_decoder/cpu/cpu_backend.hpp"  // make_cpu_backend
#if defined(TPB_CUDA_BACKEND)
#include "tp_decoder/cuda/cuda_backend.hpp"  // make_cuda_backend
#endif

namespace tpb {

namespace {
constexpr std::pair<ElementType, const char*> kElementTypeNames[] = {
    {ElementType::f32, "f32"}, {ElementType::bf16, "bf16"}, {ElementType::i32, "i32"}};
static_assert(lists_enum_in_order(kElementTypeNames, ElementType::i32), "every element type once, in enum order");
}  // namespace

std::size_t element_size(ElementType type) { return type == ElementType::bf16 ? 2 : 4; }

std::string to_string(ElementType type) { return kElementTypeNames[static_cast<std::size_t>(type)].second; }

DataType comm_datatype(ElementType type) {
  switch (type) {
    case ElementType::f32: return DataType::f32;
    case ElementType::bf16: return DataType::bf16;
    case ElementType::i32: break;
  }
  TPB_CHECK(false, "collectives carry only f32 or bf16 tensors");
  return DataType::f32;
}

Tensor Backend::shaped(std::int64_t rows, std::int64_t cols, TensorRole role) const {
  TPB_CHECK(rows > 0 && cols > 0, fmt::format("{} allocate: empty shape ({}, {})", name(), rows, cols));
  return Tensor{nullptr, rows, cols, storage_type(role)};
}

std::unique_ptr<Backend> make_backend(BackendKind kind) {
  switch (kind) {
    case BackendKind::cpu: return make_cpu_backend();
    case BackendKind::cuda:
#if defined(TPB_CUDA_BACKEND)
      return make_cuda_backend();
#else
      throw UsageError(
          "--backend cuda: this build has no CUDA support (rebuild where nvcc is found, TPB_CUDA=AUTO or ON)");
#endif
  }
  throw UsageError("--backend: unknown backend");
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  return make_backend(parse_backend_kind("--backend", name));
}

std::unique_ptr<Backend> make_backend(BackendKind kind, const ModelConfig& config) {
  if (kind == BackendKind::cuda && config.is_moe())
    throw UsageError(fmt::format("--backend cuda: {} has mixture-of-experts layers, which are not implemented on cuda "
                                 "(use --backend cpu)",
                                 config.name));
  return make_backend(kind);
}

}  // namespace tpb
