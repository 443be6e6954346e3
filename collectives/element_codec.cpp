#include "collectives/element_codec.hpp"

#include <cmath>
#include <cstring>

#include "common/error.hpp"

namespace tpb {
namespace {

std::uint32_t float_bits(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float float_from_bits(std::uint32_t bits) {
  float value = 0.0f;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// bfloat16 is the top half of a float32: exact for values with <= 8 significant bits.
std::uint16_t to_bf16(double value) { return static_cast<std::uint16_t>(float_bits(static_cast<float>(value)) >> 16); }
double from_bf16(std::uint16_t bits) { return float_from_bits(static_cast<std::uint32_t>(bits) << 16); }

// IEEE binary16 for whole numbers up to 2^11 in magnitude (all normal or zero).
std::uint16_t to_f16(double value) {
  const std::uint16_t sign = value < 0 ? 0x8000 : 0;
  const double magnitude = std::fabs(value);
  if (magnitude == 0.0) return sign;
  int exponent = 0;
  const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent, fraction in [0.5, 1)
  const auto mantissa = static_cast<std::uint16_t>(std::lround((fraction * 2.0 - 1.0) * 1024.0));
  return static_cast<std::uint16_t>(sign | ((exponent - 1 + 15) << 10) | mantissa);
}

double from_f16(std::uint16_t bits) {
  const double sign = (bits & 0x8000) != 0 ? -1.0 : 1.0;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);  // zero and subnormals
  if (exponent == 0x1f) return mantissa == 0 ? sign * HUGE_VAL : NAN;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

}  // namespace

std::int64_t exact_integer_limit(DataType type) {
  switch (type) {
    case DataType::f32: return std::int64_t{1} << 24;
    case DataType::bf16: return std::int64_t{1} << 8;
    case DataType::f16: return std::int64_t{1} << 11;
  }
  return 0;
}

void store_element(void* buffer, std::size_t index, DataType type, double value) {
  TPB_CHECK(std::fabs(value) <= static_cast<double>(exact_integer_limit(type)) && value == std::floor(value),
            "store_element: value is not an exact integer for the datatype");
  switch (type) {
    case DataType::f32: static_cast<float*>(buffer)[index] = static_cast<float>(value); return;
    case DataType::bf16: static_cast<std::uint16_t*>(buffer)[index] = to_bf16(value); return;
    case DataType::f16: static_cast<std::uint16_t*>(buffer)[index] = to_f16(value); return;
  }
}

double load_element(const void* buffer, std::size_t index, DataType type) {
  switch (type) {
    case DataType::f32: return static_cast<const float*>(buffer)[index];
    case DataType::bf16: return from_bf16(static_cast<const std::uint16_t*>(buffer)[index]);
    case DataType::f16: return from_f16(static_cast<const std::uint16_t*>(buffer)[index]);
  }
  return NAN;
}

}  // namespace tpb
