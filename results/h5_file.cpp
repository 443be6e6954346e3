#include "results/h5_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "common/error.hpp"
#include "results/h5_check.hpp"

namespace tpb {
namespace {

// HDF5 prints a multi-line error stack for every failed call; tpbench reports
// one line instead (H5_CHECK), and probes (H5Lexists) fail by design.
void silence_hdf5_error_stack() {
  static const bool once = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)once;
}

H5Handle string_type() {
  H5Handle type(H5_CHECK(H5Tcopy(H5T_C_S1)), H5Tclose);
  H5_CHECK(H5Tset_size(type.id(), H5T_VARIABLE));
  H5_CHECK(H5Tset_cset(type.id(), H5T_CSET_UTF8));
  return type;
}

H5Handle simple_space(const std::vector<std::uint64_t>& dims) {
  std::vector<hsize_t> h5dims(dims.begin(), dims.end());
  return H5Handle(H5_CHECK(H5Screate_simple(static_cast<int>(h5dims.size()), h5dims.data(), nullptr)), H5Sclose);
}

std::uint64_t element_count(const std::vector<std::uint64_t>& dims) {
  std::uint64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

std::pair<std::string, std::string> split_parent(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return {"/", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

void replace_attribute(hid_t object, const std::string& name) {
  if (H5_CHECK(H5Aexists(object, name.c_str())) > 0) H5_CHECK(H5Adelete(object, name.c_str()));
}

template <typename T>
void write_numeric_dataset(H5File& file, const std::string& path, const std::vector<T>& values,
                           const std::vector<std::uint64_t>& dims, hid_t mem_type, hid_t file_type) {
  TPB_CHECK(element_count(dims) == values.size(),
            fmt::format("dataset {}: {} values do not fill its shape", path, values.size()));
  const auto [parent, name] = split_parent(path);
  H5Handle group = file.group(parent);
  if (H5_CHECK(H5Lexists(group.id(), name.c_str(), H5P_DEFAULT)) > 0) H5_CHECK(H5Ldelete(group.id(), name.c_str(), H5P_DEFAULT));
  H5Handle space = simple_space(dims);
  H5Handle dataset(H5_CHECK(H5Dcreate2(group.id(), name.c_str(), file_type, space.id(), H5P_DEFAULT, H5P_DEFAULT,
                                       H5P_DEFAULT)),
                   H5Dclose);
  if (!values.empty()) H5_CHECK(H5Dwrite(dataset.id(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()));
}

template <typename T>
std::vector<T> read_numeric_dataset(const H5File& file, const std::string& path, std::vector<std::uint64_t>* dims,
                                    hid_t mem_type) {
  const std::vector<std::uint64_t> shape = file.dims(path);
  H5Handle dataset(H5_CHECK(H5Dopen2(file.id(), path.c_str(), H5P_DEFAULT)), H5Dclose);
  std::vector<T> values(element_count(shape));
  if (!values.empty()) H5_CHECK(H5Dread(dataset.id(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()));
  if (dims) *dims = shape;
  return values;
}

// A numeric attribute: a scalar when it holds one value, so that a single
// number and a list of one are stored alike.
template <typename T>
void write_numeric_attribute(hid_t object, const std::string& name, const std::vector<T>& values, hid_t file_type,
                             hid_t memory_type) {
  replace_attribute(object, name);
  H5Handle space = values.size() == 1 ? H5Handle(H5_CHECK(H5Screate(H5S_SCALAR)), H5Sclose) : simple_space({values.size()});
  H5Handle attr(H5_CHECK(H5Acreate2(object, name.c_str(), file_type, space.id(), H5P_DEFAULT, H5P_DEFAULT)), H5Aclose);
  if (!values.empty()) H5_CHECK(H5Awrite(attr.id(), memory_type, values.data()));
}

template <typename T>
std::vector<T> read_numeric_attribute(hid_t object, const std::string& name, hid_t memory_type) {
  H5Handle attr(H5_CHECK(H5Aopen(object, name.c_str(), H5P_DEFAULT)), H5Aclose);
  H5Handle space(H5_CHECK(H5Aget_space(attr.id())), H5Sclose);
  std::vector<T> values(static_cast<std::size_t>(H5_CHECK(H5Sget_simple_extent_npoints(space.id()))));
  if (!values.empty()) H5_CHECK(H5Aread(attr.id(), memory_type, values.data()));
  return values;
}

}  // namespace

H5Handle::~H5Handle() {
  if (id_ >= 0 && closer_) closer_(id_);
}

H5Handle::H5Handle(H5Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = H5I_INVALID_HID; }

H5Handle& H5Handle::operator=(H5Handle&& other) noexcept {
  if (this != &other) {
    if (id_ >= 0 && closer_) closer_(id_);
    id_ = other.id_;
    closer_ = other.closer_;
    other.id_ = H5I_INVALID_HID;
  }
  return *this;
}

H5File::H5File(const std::string& path, H5Mode mode) : path_(path) {
  silence_hdf5_error_stack();
  hid_t id = H5I_INVALID_HID;
  switch (mode) {
    case H5Mode::create_new:
      if (access(path.c_str(), F_OK) == 0)
        throw UsageError(fmt::format("-o: results file '{}' already exists (pass --overwrite to replace it)", path));
      id = H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
      break;
    case H5Mode::create_overwrite: id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT); break;
    case H5Mode::read_only: id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT); break;
    case H5Mode::read_write: id = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT); break;
  }
  if (id < 0) {
    const bool creating = mode == H5Mode::create_new || mode == H5Mode::create_overwrite;
    throw UsageError(fmt::format("{}: cannot {} HDF5 file '{}'", creating ? "-o" : "FILE",
                                 creating ? "create" : "open", path));
  }
  file_ = H5Handle(id, H5Fclose);
}

H5File open_input_file(const std::string& path, const std::string& option) {
  if (!std::filesystem::is_regular_file(path))
    throw UsageError(fmt::format("{}: results file '{}' does not exist", option, path));
  try {
    return H5File(path, H5Mode::read_only);
  } catch (const std::exception&) {  // UsageError or Error, by what HDF5 made of it
    throw UsageError(fmt::format("{}: '{}' is not an HDF5 results file", option, path));
  }
}

void H5File::flush() { H5_CHECK(H5Fflush(file_.id(), H5F_SCOPE_GLOBAL)); }

bool H5File::exists(const std::string& object_path) const {
  if (object_path == "/") return true;
  // Every prefix must exist before H5Lexists may be asked about the next level.
  std::size_t pos = 1;
  while (pos <= object_path.size()) {
    const auto next = std::min(object_path.find('/', pos), object_path.size());
    if (H5Lexists(file_.id(), object_path.substr(0, next).c_str(), H5P_DEFAULT) <= 0) return false;
    pos = next + 1;
  }
  return true;
}

H5Handle H5File::group(const std::string& path) {
  if (exists(path)) return H5Handle(H5_CHECK(H5Gopen2(file_.id(), path.c_str(), H5P_DEFAULT)), H5Gclose);
  H5Handle link_props(H5_CHECK(H5Pcreate(H5P_LINK_CREATE)), H5Pclose);
  H5_CHECK(H5Pset_create_intermediate_group(link_props.id(), 1));
  return H5Handle(H5_CHECK(H5Gcreate2(file_.id(), path.c_str(), link_props.id(), H5P_DEFAULT, H5P_DEFAULT)),
                  H5Gclose);
}

H5Handle H5File::open_object(const std::string& path) const {
  if (!exists(path)) throw_error("HDF5", -1, fmt::format("{}: no object '{}'", path_, path), __FILE__, __LINE__);
  return H5Handle(H5_CHECK(H5Oopen(file_.id(), path.c_str(), H5P_DEFAULT)), H5Oclose);
}

void H5File::write_dataset(const std::string& path, const std::vector<double>& values,
                           const std::vector<std::uint64_t>& dims) {
  write_numeric_dataset(*this, path, values, dims, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE);
}

void H5File::write_dataset(const std::string& path, const std::vector<std::int64_t>& values,
                           const std::vector<std::uint64_t>& dims) {
  write_numeric_dataset(*this, path, values, dims, H5T_NATIVE_INT64, H5T_STD_I64LE);
}

void H5File::write_strings(const std::string& path, const std::vector<std::string>& values) {
  const auto [parent, name] = split_parent(path);
  H5Handle grp = group(parent);
  if (H5_CHECK(H5Lexists(grp.id(), name.c_str(), H5P_DEFAULT)) > 0) H5_CHECK(H5Ldelete(grp.id(), name.c_str(), H5P_DEFAULT));
  std::vector<const char*> pointers;
  for (const auto& v : values) pointers.push_back(v.c_str());
  H5Handle type = string_type();
  H5Handle space = simple_space({values.size()});
  H5Handle dataset(H5_CHECK(H5Dcreate2(grp.id(), name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT,
                                       H5P_DEFAULT)),
                   H5Dclose);
  if (!values.empty()) H5_CHECK(H5Dwrite(dataset.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()));
}

std::vector<std::uint64_t> H5File::dims(const std::string& path) const {
  H5Handle dataset(H5_CHECK(H5Dopen2(file_.id(), path.c_str(), H5P_DEFAULT)), H5Dclose);
  H5Handle space(H5_CHECK(H5Dget_space(dataset.id())), H5Sclose);
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5_CHECK(H5Sget_simple_extent_ndims(space.id()))));
  H5_CHECK(H5Sget_simple_extent_dims(space.id(), dims.data(), nullptr));
  return {dims.begin(), dims.end()};
}

std::vector<double> H5File::read_doubles(const std::string& path, std::vector<std::uint64_t>* dims) const {
  return read_numeric_dataset<double>(*this, path, dims, H5T_NATIVE_DOUBLE);
}

std::vector<std::int64_t> H5File::read_integers(const std::string& path, std::vector<std::uint64_t>* dims) const {
  return read_numeric_dataset<std::int64_t>(*this, path, dims, H5T_NATIVE_INT64);
}

std::vector<std::string> H5File::read_strings(const std::string& path) const {
  H5Handle dataset(H5_CHECK(H5Dopen2(file_.id(), path.c_str(), H5P_DEFAULT)), H5Dclose);
  H5Handle space(H5_CHECK(H5Dget_space(dataset.id())), H5Sclose);
  const auto n = static_cast<std::size_t>(H5_CHECK(H5Sget_simple_extent_npoints(space.id())));
  std::vector<char*> raw(n, nullptr);
  H5Handle type = string_type();
  if (n > 0) H5_CHECK(H5Dread(dataset.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()));
  // An element never written reads as a null pointer: an empty string.
  std::vector<std::string> values;
  values.reserve(n);
  for (const char* text : raw) values.emplace_back(text ? text : "");
  if (n > 0) H5Dvlen_reclaim(type.id(), space.id(), H5P_DEFAULT, raw.data());
  return values;
}

std::vector<std::string> H5File::list(const std::string& group_path) const {
  std::vector<std::string> names;
  if (!exists(group_path)) return names;
  H5Handle grp(H5_CHECK(H5Gopen2(file_.id(), group_path.c_str(), H5P_DEFAULT)), H5Gclose);
  H5G_info_t info{};
  H5_CHECK(H5Gget_info(grp.id(), &info));
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t length =
        H5_CHECK(H5Lget_name_by_idx(grp.id(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT));
    std::string name(static_cast<std::size_t>(length), '\0');
    H5_CHECK(H5Lget_name_by_idx(grp.id(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size() + 1,
                                H5P_DEFAULT));
    names.push_back(name);
  }
  return names;
}

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  replace_attribute(object, name);
  H5Handle type = string_type();
  H5Handle space(H5_CHECK(H5Screate(H5S_SCALAR)), H5Sclose);
  H5Handle attr(H5_CHECK(H5Acreate2(object, name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT)), H5Aclose);
  const char* text = value.c_str();
  H5_CHECK(H5Awrite(attr.id(), type.id(), &text));
}

void write_attribute(hid_t object, const std::string& name, const std::vector<std::string>& values) {
  replace_attribute(object, name);
  std::vector<const char*> pointers;
  for (const auto& v : values) pointers.push_back(v.c_str());
  H5Handle type = string_type();
  // An empty list is a null dataspace: HDF5 cannot read back a zero-length simple one.
  H5Handle space = values.empty() ? H5Handle(H5_CHECK(H5Screate(H5S_NULL)), H5Sclose) : simple_space({values.size()});
  H5Handle attr(H5_CHECK(H5Acreate2(object, name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT)), H5Aclose);
  if (!values.empty()) H5_CHECK(H5Awrite(attr.id(), type.id(), pointers.data()));
}

void write_attribute(hid_t object, const std::string& name, std::int64_t value) {
  write_attribute(object, name, std::vector<std::int64_t>{value});
}

void write_attribute(hid_t object, const std::string& name, double value) {
  write_attribute(object, name, std::vector<double>{value});
}

void write_attribute(hid_t object, const std::string& name, const std::vector<double>& values) {
  write_numeric_attribute(object, name, values, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE);
}

void write_attribute(hid_t object, const std::string& name, const std::vector<std::int64_t>& values) {
  write_numeric_attribute(object, name, values, H5T_STD_I64LE, H5T_NATIVE_INT64);
}

void write_attributes(hid_t object, std::initializer_list<NamedAttribute> attributes) {
  for (const NamedAttribute& a : attributes)
    std::visit([&](const auto& value) { write_attribute(object, a.name, value); }, a.value);
}

bool has_attribute(hid_t object, const std::string& name) { return H5_CHECK(H5Aexists(object, name.c_str())) > 0; }

std::string read_string_attribute(hid_t object, const std::string& name) {
  const auto values = read_string_list_attribute(object, name);
  return values.empty() ? std::string{} : values.front();
}

std::vector<std::string> read_string_list_attribute(hid_t object, const std::string& name) {
  H5Handle attr(H5_CHECK(H5Aopen(object, name.c_str(), H5P_DEFAULT)), H5Aclose);
  H5Handle space(H5_CHECK(H5Aget_space(attr.id())), H5Sclose);
  const auto n = static_cast<std::size_t>(H5_CHECK(H5Sget_simple_extent_npoints(space.id())));
  if (n == 0) return {};
  std::vector<char*> raw(n, nullptr);
  H5Handle type = string_type();
  H5_CHECK(H5Aread(attr.id(), type.id(), raw.data()));
  std::vector<std::string> values;
  for (char* s : raw) values.emplace_back(s ? s : "");
  H5Dvlen_reclaim(type.id(), space.id(), H5P_DEFAULT, raw.data());
  return values;
}

std::int64_t read_integer_attribute(hid_t object, const std::string& name) {
  H5Handle attr(H5_CHECK(H5Aopen(object, name.c_str(), H5P_DEFAULT)), H5Aclose);
  std::int64_t value = 0;
  H5_CHECK(H5Aread(attr.id(), H5T_NATIVE_INT64, &value));
  return value;
}

double read_double_attribute(hid_t object, const std::string& name) {
  const auto values = read_double_list_attribute(object, name);
  TPB_CHECK(!values.empty(), fmt::format("attribute {} is empty", name));
  return values.front();
}

std::vector<double> read_double_list_attribute(hid_t object, const std::string& name) {
  return read_numeric_attribute<double>(object, name, H5T_NATIVE_DOUBLE);
}

std::vector<std::int64_t> read_integer_list_attribute(hid_t object, const std::string& name) {
  return read_numeric_attribute<std::int64_t>(object, name, H5T_NATIVE_INT64);
}

}  // namespace tpb
