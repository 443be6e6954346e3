#include <fmt/format.h>

#include "collectives/communicator.hpp"
#include "common/error.hpp"

namespace tpb {

std::size_t element_size(DataType type) {
  switch (type) {
    case DataType::f32: return 4;
    case DataType::bf16: return 2;
    case DataType::f16: return 2;
  }
  return 0;
}

std::string to_string(DataType type) {
  switch (type) {
    case DataType::f32: return "float";
    case DataType::bf16: return "bfloat16";
    case DataType::f16: return "half";
  }
  return "?";
}

DataType parse_datatype(const std::string& text) {
  if (text == "float" || text == "f32" || text == "float32") return DataType::f32;
  if (text == "bf16" || text == "bfloat16") return DataType::bf16;
  if (text == "half" || text == "f16" || text == "float16") return DataType::f16;
  throw UsageError(fmt::format("--datatype: invalid value '{}' (expected float, bf16 or half)", text));
}

}  // namespace tpb
