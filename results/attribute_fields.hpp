#pragma once
// One list of a record's attributes drives both their writer and their
// reader, so that each attribute's name, type and member are named once. The
// list is a generic lambda naming the attributes in the order they are written:
//
//   constexpr auto kPreregFields = [](auto& f, auto& r) {
//     f("sha256", r.sha256);
//     f("registered_at", r.registered_at);
//   };
//
// that write_fields calls with the record const and read_fields with one to
// fill. A field may depend on one listed before it (`if (g.fits) f(...)`): the
// reader has read it by then. Integers and bools are stored as int64 (bool: 0
// or 1), std::vector<int> as a list of doubles (the /study grid's
// convention), std::optional<T> as T or nothing; f.unless_empty(name, value)
// stores a string or list only when it is not empty, and reads it as empty
// when absent.
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "results/h5_file.hpp"

namespace tpb {

class AttributeWriter {
 public:
  explicit AttributeWriter(hid_t object) : object_(object) {}
  template <typename T>
  void operator()(const char* name, const T& value) const {
    if constexpr (std::is_integral_v<T>)
      write_attribute(object_, name, static_cast<std::int64_t>(value));
    else if constexpr (std::is_same_v<T, std::vector<int>>)
      write_attribute(object_, name, std::vector<double>(value.begin(), value.end()));
    else
      write_attribute(object_, name, value);
  }
  template <typename T>
  void operator()(const char* name, const std::optional<T>& value) const {
    if (value) (*this)(name, *value);
  }
  template <typename T>
  void unless_empty(const char* name, const T& value) const {
    if (!value.empty()) (*this)(name, value);
  }

 private:
  hid_t object_;
};

class AttributeReader {
 public:
  explicit AttributeReader(hid_t object) : object_(object) {}
  template <typename T>
  void operator()(const char* name, T& value) const {
    value = read<T>(name);
  }
  template <typename T>
  void operator()(const char* name, std::optional<T>& value) const {
    value = has_attribute(object_, name) ? std::optional<T>(read<T>(name)) : std::nullopt;
  }
  template <typename T>
  void unless_empty(const char* name, T& value) const {
    value = has_attribute(object_, name) ? read<T>(name) : T();
  }

 private:
  template <typename T>
  T read(const char* name) const {
    if constexpr (std::is_same_v<T, bool>) return read_integer_attribute(object_, name) != 0;
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(read_integer_attribute(object_, name));
    else if constexpr (std::is_same_v<T, double>) return read_double_attribute(object_, name);
    else if constexpr (std::is_same_v<T, std::string>) return read_string_attribute(object_, name);
    else if constexpr (std::is_same_v<T, std::vector<std::string>>) return read_string_list_attribute(object_, name);
    else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) return read_integer_list_attribute(object_, name);
    else {  // std::vector<double> or std::vector<int>
      const std::vector<double> values = read_double_list_attribute(object_, name);
      return T(values.begin(), values.end());
    }
  }
  hid_t object_;
};

template <typename Record, typename Fields>
void write_fields(hid_t object, const Record& record, Fields fields) {
  const AttributeWriter writer(object);
  fields(writer, record);
}
// `record` as `fields` reads it back from `object`, starting from `initial`.
template <typename Record, typename Fields>
Record read_fields(hid_t object, Fields fields, Record initial = {}) {
  const AttributeReader reader(object);
  fields(reader, initial);
  return initial;
}

}  // namespace tpb
