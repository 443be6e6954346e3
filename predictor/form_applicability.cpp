#include "predictor/form_applicability.hpp"

#include <fmt/format.h>

namespace tpb {

std::string not_applicable_reason(std::string_view form, BackendKind backend) {
  const bool uses_host_term = form == "host_floor" || form == "max_form";
  const bool host_synchronous = backend == BackendKind::cpu;  // its issue loop runs the work
  if (!uses_host_term || !host_synchronous) return "";
  return fmt::format(
      "t_host(k) is not a separate term on the host-synchronous {} backend: its issue loop runs the compute, so "
      "t_host contains t_compute and '{}' would count the compute twice",
      to_string(backend), form);
}

}  // namespace tpb
