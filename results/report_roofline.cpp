#include "results/report_roofline.hpp"

#include <fmt/format.h>

namespace tpb {

std::string roofline_ceilings_line(const RooflineCeilings& c) {
  if (c.bandwidth == RooflineBandwidth::host_read)
    return fmt::format(
        "- `roofline` prices each phase of the TP-k shard's ledger at max((bytes read + bytes written) / {:.2f} GB/s, "
        "flops / {:.2f} GFLOP/s): the read bandwidth and the compute peak (threads × one core's FMA peak) measured at "
        "calibration ({}); reads and writes are both priced at the read bandwidth\n",
        c.bandwidth_GBps, c.peak_GFLOPs, c.bandwidth_probe);
  return fmt::format(
      "- `roofline` prices each phase of the TP-k shard's ledger at max((bytes read + bytes written) / {:.2f} GB/s, "
      "flops / {:.2f} GFLOP/s): the device-to-device copy bandwidth ({}) and the compute peak ({}) measured at "
      "calibration; the copy bandwidth counts bytes read plus bytes written, and reads plus writes are priced at it\n",
      c.bandwidth_GBps, c.peak_GFLOPs, c.bandwidth_probe, c.peak_probe);
}

}  // namespace tpb
