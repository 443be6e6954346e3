// mpi_bench campaign init: seals a campaign's design (the study every launch
// runs, and L launches) into DIR/campaign.json and its SHA-256, before the
// first launch.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>

#include <memory>

#include "mpi_bench/collective_validation.hpp"
#include "mpi_bench/commands.hpp"
#include "mpi_bench/pipeline/campaign.hpp"
#include "mpi_bench/pipeline/study_options.hpp"

namespace tpb {
namespace {

struct CampaignInitOptions {
  StudyFlags study;
  std::string kill_switch = default_kill_switch_text();
  int launches = 0;  // L
  std::string dir;
  std::vector<std::string> forms;  // --form NAME=FILE, repeatable
};

int run_campaign_init(const CampaignInitOptions& options) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  SealedCampaign sealed;
  validate_collectively(MPI_COMM_WORLD, [&] {
    const StudyDeclaration declaration = parse_study_flags(options.study);
    const CampaignDesign design =
        campaign_design_for(declaration, parse_kill_switch(options.kill_switch), options.launches,
                            read_outside_forms(options.forms, declaration.grid));
    if (rank == 0) sealed = seal_campaign(options.dir, design);
  });
  if (rank == 0)
    fmt::print("# campaign sealed: {}/campaign.json, sha256 {}\n# {} launches of {} (tp {}, {} rounds each); "
               "run each with 'mpi_bench run --campaign {}', then 'mpi_bench verdict --campaign {}'\n",
               options.dir, sealed.sha256, sealed.design.launches, sealed.design.model,
               fmt::format("{}", fmt::join(sealed.design.grid.tp, ",")), sealed.design.rounds, options.dir, options.dir);
  return 0;
}

}  // namespace

void add_campaign_command(CLI::App& root, CommandList& commands) {
  CLI::App* campaign = root.add_subcommand(
      "campaign", "A campaign: L launches of one sealed study, pooled into one verdict about the machine");
  campaign->require_subcommand(1);
  add_command<CampaignInitOptions>(
      *campaign, commands, "init",
      "Seal the design (the study's flags and L launches) into DIR/campaign.json and its SHA-256, before any launch",
      [](CLI::App& app, CampaignInitOptions& options) {
        app.add_option("DIR", options.dir, "Campaign directory (refused when it already holds launches)")
            ->required();
        app.add_option("--launches", options.launches, "L, the number of launches the campaign pools (2 to 999)")
            ->required();
        add_study_flags(&app, options.study);
        app.add_option("--kill-switch", options.kill_switch, "K in percent, the margin every launch is judged at")
            ->capture_default_str();
        add_outside_form_option(app, options.forms);
      },
      [](const CampaignInitOptions& options, const Invocation&) { return run_campaign_init(options); });
}

}  // namespace tpb
