#pragma once
// Which model forms a backend can judge. A form is judged only where every
// term it uses can be measured apart from the others: on a host-synchronous
// backend (CPU) the host issue time t_host contains the compute it issues, so
// the forms built on a separate host term are NOT_APPLICABLE there.
#include <string>
#include <string_view>

#include "common/choices.hpp"

namespace tpb {

// Empty when `form` can be judged on `backend`; otherwise the reason it is
// NOT_APPLICABLE, naming the missing term.
std::string not_applicable_reason(std::string_view form, BackendKind backend);

}  // namespace tpb
