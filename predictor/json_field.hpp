#pragma once
// A field of a registration's JSON by name, or a UsageError in one line that
// names it: "<where>: missing field 'x'", "<where>: field 'x' has the wrong
// type". `where` says which document or section ("registration",
// "registration: transfer").
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace tpb {

// `text` as a JSON document, or a UsageError "<where>: not valid JSON: ...".
inline nlohmann::ordered_json parse_json_document(std::string_view text, std::string_view where) {
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw UsageError(fmt::format("{}: not valid JSON: {}", where, error.what()));
  }
}

inline const nlohmann::ordered_json& json_section(const nlohmann::ordered_json& object, const char* name,
                                                  const char* where) {
  if (!object.contains(name)) throw UsageError(fmt::format("{}: missing field '{}'", where, name));
  return object.at(name);
}

template <typename T>
T json_field(const nlohmann::ordered_json& object, const char* name, const char* where) {
  const nlohmann::ordered_json& value = json_section(object, name, where);
  try {
    return value.get<T>();
  } catch (const nlohmann::json::exception&) {
    throw UsageError(fmt::format("{}: field '{}' has the wrong type", where, name));
  }
}

// `read()`'s value; a UsageError it throws comes out as "<where>: <its
// message>", so a nested reader's error says which document or flag it is in.
template <typename Read>
auto prefix_usage_errors(std::string_view where, Read&& read) {
  try {
    return read();
  } catch (const UsageError& error) {
    throw UsageError(fmt::format("{}: {}", where, error.what()));
  }
}

// One list of a struct's members drives both its writer and its reader, so
// each key is spelled once, in document order: `members(visit, s)` calls
// visit(key, s.member) for every member (s is const when writing).
template <typename S, typename Members>
nlohmann::ordered_json members_json(const S& s, const Members& members) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  members([&](const char* key, const auto& value) { out[key] = value; }, s);
  return out;
}

// The members of `object` by the same list, each by json_field.
template <typename S, typename Members>
void read_members(const nlohmann::ordered_json& object, const char* where, S& s, const Members& members) {
  members([&](const char* key, auto& value) {
    value = json_field<std::remove_reference_t<decltype(value)>>(object, key, where);
  }, s);
}

}  // namespace tpb
