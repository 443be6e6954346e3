#include "predictor/form_applicability.hpp"

#include <fmt/format.h>

namespace tpb {

bool host_synchronous_backend(BackendKind backend) { return backend == BackendKind::cpu; }

std::string not_applicable_reason(std::string_view form, BackendKind backend) {
  const bool uses_host_term = form == "host_floor" || form == "max_form";
  if (!uses_host_term || !host_synchronous_backend(backend)) return "";
  return fmt::format(
      "t_host(k) is not a separate term on the host-synchronous {} backend: its issue loop runs the compute, so "
      "t_host contains t_compute and '{}' would count the compute twice",
      to_string(backend), form);
}

}  // namespace tpb
