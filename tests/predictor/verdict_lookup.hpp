#pragma once
// The tests' lookup of one verdict in an evaluation.
#include <fmt/format.h>

#include <string_view>

#include "common/error.hpp"
#include "predictor/round_evaluation.hpp"

namespace tpb {

// The verdict of (form, k); tpb::Error when absent.
inline const FormKVerdict& find_verdict(const RoundsEvaluation& evaluation, std::string_view form, int k) {
  for (const FormKVerdict& cell : evaluation.cells)
    if (cell.form == form && cell.k == k) return cell;
  throw_error("tpbench", 1, fmt::format("no verdict for form {} at k={}", form, k), __FILE__, __LINE__);
}

}  // namespace tpb
