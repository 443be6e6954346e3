#pragma once
// The report's line on `roofline`'s ceilings, from what the registration
// sealed: the bandwidth and peak, what measured them, and which bytes the
// bandwidth counts (a host read: reads only, writes priced as reads; a device
// copy: bytes read plus bytes written, as the ledger's bytes are priced).
#include <string>

#include "predictor/registration.hpp"

namespace tpb {

std::string roofline_ceilings_line(const RooflineCeilings& ceilings);

}  // namespace tpb
