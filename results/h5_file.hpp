#pragma once
// Thin RAII layer over the HDF5 C API: files, groups created on demand, string
// and numeric attributes, and whole numeric datasets. Everything tpbench
// stores is one of those, so any HDF5 reader (h5py, h5dump) can read it.
#include <hdf5.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

namespace tpb {

// Owns one hid_t and closes it with the right H5*close.
class H5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Handle() = default;
  H5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~H5Handle();
  H5Handle(H5Handle&& other) noexcept;
  H5Handle& operator=(H5Handle&& other) noexcept;
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  hid_t id() const { return id_; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

enum class H5Mode { create_new, create_overwrite, read_only, read_write };

class H5File {
 public:
  H5File(const std::string& path, H5Mode mode);
  hid_t id() const { return file_.id(); }
  const std::string& path() const { return path_; }
  // Pushes everything written so far to disk: after this, a killed job leaves a readable file.
  void flush();

  bool exists(const std::string& object_path) const;
  // Group at `path`, created with its parents when missing.
  H5Handle group(const std::string& path);
  H5Handle open_object(const std::string& path) const;

  void write_dataset(const std::string& path, const std::vector<double>& values, const std::vector<std::uint64_t>& dims);
  void write_dataset(const std::string& path, const std::vector<std::int64_t>& values,
                     const std::vector<std::uint64_t>& dims);
  void write_strings(const std::string& path, const std::vector<std::string>& values);
  // The shape of the dataset at `path`, outermost axis first.
  std::vector<std::uint64_t> dims(const std::string& path) const;
  std::vector<double> read_doubles(const std::string& path, std::vector<std::uint64_t>* dims = nullptr) const;
  std::vector<std::int64_t> read_integers(const std::string& path, std::vector<std::uint64_t>* dims = nullptr) const;
  std::vector<std::string> read_strings(const std::string& path) const;
  // Names of the links directly under a group, in name order.
  std::vector<std::string> list(const std::string& group_path) const;

 private:
  std::string path_;
  H5Handle file_;
};

// An existing file opened read-only for the command-line input `option`
// ("FILE", "--transfer-from"): UsageError naming the path when it is missing
// or not HDF5.
H5File open_input_file(const std::string& path, const std::string& option);

// Attributes on any object (file root "/", group or dataset); replaced when present.
void write_attribute(hid_t object, const std::string& name, const std::string& value);
void write_attribute(hid_t object, const std::string& name, const std::vector<std::string>& values);
void write_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_attribute(hid_t object, const std::string& name, double value);
void write_attribute(hid_t object, const std::string& name, const std::vector<double>& values);
void write_attribute(hid_t object, const std::string& name, const std::vector<std::int64_t>& values);
// A block of attributes as one table of names and values (an integer or a
// bool is stored as int64, 0 or 1), written in order.
struct NamedAttribute {
  std::string name;
  std::variant<std::int64_t, double, std::string, std::vector<double>, std::vector<std::int64_t>,
               std::vector<std::string>>
      value;
};
void write_attributes(hid_t object, std::initializer_list<NamedAttribute> attributes);

bool has_attribute(hid_t object, const std::string& name);
std::string read_string_attribute(hid_t object, const std::string& name);
std::vector<std::string> read_string_list_attribute(hid_t object, const std::string& name);
std::int64_t read_integer_attribute(hid_t object, const std::string& name);
double read_double_attribute(hid_t object, const std::string& name);
std::vector<double> read_double_list_attribute(hid_t object, const std::string& name);
std::vector<std::int64_t> read_integer_list_attribute(hid_t object, const std::string& name);

}  // namespace tpb
