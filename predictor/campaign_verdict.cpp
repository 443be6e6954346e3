#include "predictor/campaign_verdict.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpb {

CampaignVerdict pool_campaign(const CampaignDesign& design, const std::vector<LaunchEvaluation>& launches) {
  TPB_CHECK(!launches.empty(), "a campaign pooled over zero launches");
  CampaignVerdict v;
  v.launches_sealed = design.launches;
  const RoundsEvaluation& first = launches.front().evaluation;
  v.rule = first.rule;
  v.family_cells = first.family_cells;
  for (int i = 1, next = 0; i <= design.launches; ++i) {
    if (next < static_cast<int>(launches.size()) && launches[static_cast<std::size_t>(next)].index == i) {
      v.counted.push_back(i);
      ++next;
    } else {
      v.missing.push_back(i);
    }
  }
  TPB_CHECK(v.counted.size() == launches.size(), "launch indices outside 1..L or out of order");

  // The A/A: each (rank, batch, context) cell a family of its own.
  v.aa_holds = first.aa.run;
  for (std::size_t c = 0; c < first.aa.cells.size(); ++c) {
    std::vector<double> medians;
    for (const LaunchEvaluation& l : launches) {
      TPB_CHECK(l.evaluation.aa.cells.size() == first.aa.cells.size(),
                fmt::format("launch {} judged another A/A", l.index));
      medians.push_back(l.evaluation.aa.cells[c].judgement.median_log);
    }
    const AaCell& cell = first.aa.cells[c];
    PooledAaCell pooled{cell.rank, cell.batch, cell.context, pool_cell(medians, v.rule, 1)};
    v.aa_holds = v.aa_holds && pooled.pooled.judged.outcome == Outcome::holds;
    v.aa_falsified = v.aa_falsified || pooled.pooled.judged.outcome == Outcome::falsified;
    v.aa.push_back(std::move(pooled));
  }

  for (std::size_t f = 0; f < first.cells.size(); ++f) {
    const FormKVerdict& head = first.cells[f];
    PooledFormK out{head.form, head.k, Outcome::inconclusive, "", {}, {}};
    for (const LaunchEvaluation& l : launches) {
      TPB_CHECK(l.evaluation.cells.size() == first.cells.size() && l.evaluation.cells[f].form == head.form &&
                    l.evaluation.cells[f].k == head.k,
                fmt::format("launch {} judged other forms or degrees", l.index));
      if (l.evaluation.cells[f].outcome == Outcome::not_applicable && out.not_applicable_reason.empty())
        out.not_applicable_reason = l.evaluation.cells[f].not_applicable_reason;
    }
    if (!out.not_applicable_reason.empty()) {
      out.outcome = Outcome::not_applicable;
      v.cells.push_back(std::move(out));
      continue;
    }
    std::vector<CellJudgement> judged;
    for (std::size_t c = 0; c < head.judged.cells.size(); ++c) {
      std::vector<double> medians;
      for (const LaunchEvaluation& l : launches) {
        TPB_CHECK(l.evaluation.cells[f].judged.cells.size() == head.judged.cells.size(),
                  fmt::format("launch {} judged other cells of {} at k={}", l.index, head.form, head.k));
        medians.push_back(l.evaluation.cells[f].judged.cells[c].median_log);
      }
      out.cells.push_back(pool_cell(medians, v.rule, v.family_cells));
      judged.push_back(out.cells.back().judged);
    }
    out.judged = judge_form_at_k(std::move(judged), v.aa_holds);
    out.outcome = out.judged.outcome;
    v.cells.push_back(std::move(out));
  }
  return v;
}

}  // namespace tpb
