#include "mpi_bench/kv_output.hpp"

#include <fmt/format.h>

#include "mpi_bench/memory_ledger.hpp"

namespace tpb {
namespace {

// Per-sequence rows are printed up to this many sequences; beyond, they are in -o and --json only.
constexpr std::size_t kMaxPrintedSequences = 32;

nlohmann::json paged_json(const PagedAllocation& p) {
  nlohmann::json sequences = nlohmann::json::array();
  for (const PagedSequence& s : p.sequences)
    sequences.push_back({{"tokens", s.tokens},
                         {"payload_bytes", s.payload_bytes},
                         {"allocated_bytes", s.allocated_bytes},
                         {"tail_waste_bytes", s.tail_waste_bytes},
                         {"table_entries", s.table_entries}});
  return {{"block_tokens", p.block_tokens},       {"payload_bytes", p.payload_bytes},
          {"allocated_bytes", p.allocated_bytes}, {"tail_waste_bytes", p.tail_waste_bytes},
          {"table_entries", p.table_entries},     {"metadata_bytes", p.metadata_bytes},
          {"sequences", sequences}};
}

nlohmann::json degree_json(const KvAnswer& answer, const KvDegreeAnswer& d) {
  nlohmann::json entry = {{"k", d.share.k},
                          {"kv_bytes_per_token", d.share.kv_bytes_per_token},
                          {"kv_replication", d.share.kv_replication},
                          {"kv_heads_per_device", d.share.kv_heads_per_device},
                          {"weight_bytes_per_device", d.line.weight_bytes},
                          {"fixed_bytes", d.line.fixed_bytes},
                          {"sequence_bytes", d.line.sequence_bytes},
                          {"scratch_bytes_per_token", d.line.scratch_bytes_per_token},
                          {"reserve_bytes", d.capacity.reserve_bytes},
                          {"fits", d.capacity.fits}};
  if (!d.capacity.fits) return entry;
  entry["kv_budget_bytes"] = d.capacity.kv_budget_bytes;
  entry["kv_tokens_per_device"] = d.capacity.kv_tokens_per_device;
  nlohmann::json admissible = nlohmann::json::array();
  const KvQuestion& q = answer.question;
  for (std::size_t c = 0; c < q.contexts.size(); ++c)
    for (std::size_t b = 0; b < q.blocks.size(); ++b)
      admissible.push_back({{"context", q.contexts[c]},
                            {"block_tokens", q.blocks[b]},
                            {"sequences", d.admissible_sequences[c][b]}});
  entry["admissible_sequences"] = admissible;
  return entry;
}

}  // namespace

nlohmann::json kv_answer_json(const KvAnswer& answer, const KvPrintLabels& labels) {
  const KvQuestion& q = answer.question;
  nlohmann::json blocks = nlohmann::json::array();
  for (const PagedAllocation& p : answer.paged) blocks.push_back(paged_json(p));
  nlohmann::json tp = nlohmann::json::array();
  for (const KvDegreeAnswer& d : answer.degrees) tp.push_back(degree_json(answer, d));
  return {{"model", labels.file.model},
          {"dtype", labels.file.dtype},
          {"dtype_source", labels.file.dtype_source},
          {"kv_bytes_per_token", q.logical_kv_bytes_per_token},
          {"kv_bytes_per_token_source", labels.bytes_per_token_source},
          {"kv_heads", q.kv_heads},
          {"table_entry_bytes", q.table_entry_bytes},
          {"budget_bytes", q.budget_bytes},
          {"budget_source", labels.file.budget_source},
          {"reserve_pct", q.reserve_pct},
          {"estimator", labels.estimator},
          {"lengths_source", labels.file.lengths_source},
          {"contexts", q.contexts},
          {"blocks", blocks},
          {"tp", tp}};
}

void print_kv_tables(const KvAnswer& answer, const KvPrintLabels& labels) {
  const KvQuestion& q = answer.question;
  fmt::print("# tpbench kv: {}, dtype {} ({})\n", labels.file.model, labels.file.dtype, labels.file.dtype_source);
  fmt::print("# kv_bytes_per_token (logical): {} B = {}\n", q.logical_kv_bytes_per_token,
             labels.bytes_per_token_source);
  fmt::print("# budget per device: {} ({}), reserve {} %; other bytes from the memory estimator ({})\n",
             readable_bytes(q.budget_bytes), labels.file.budget_source, q.reserve_pct, labels.estimator);

  fmt::print("#\n# paged allocation of {} sequences ({}) at the logical bytes per token, {} B per table entry\n",
             q.lengths.size(), labels.file.lengths_source, q.table_entry_bytes);
  fmt::print("# {:>12} {:>15} {:>15} {:>16} {:>13} {:>14}\n", "block_tokens", "payload_bytes", "allocated_bytes",
             "tail_waste_bytes", "table_entries", "metadata_bytes");
  for (const PagedAllocation& p : answer.paged)
    fmt::print("  {:>12} {:>15} {:>15} {:>16} {:>13} {:>14}\n", p.block_tokens, p.payload_bytes, p.allocated_bytes,
               p.tail_waste_bytes, p.table_entries, p.metadata_bytes);
  if (q.lengths.size() <= kMaxPrintedSequences) {
    fmt::print("# per sequence\n# {:>12} {:>8} {:>15} {:>15} {:>16} {:>13}\n", "block_tokens", "tokens",
               "payload_bytes", "allocated_bytes", "tail_waste_bytes", "table_entries");
    for (const PagedAllocation& p : answer.paged)
      for (const PagedSequence& s : p.sequences)
        fmt::print("  {:>12} {:>8} {:>15} {:>15} {:>16} {:>13}\n", p.block_tokens, s.tokens, s.payload_bytes,
                   s.allocated_bytes, s.tail_waste_bytes, s.table_entries);
  } else {
    fmt::print("# per-sequence rows: in -o FILE (/kv/blocks) and --json\n");
  }

  fmt::print("#\n# capacity per device (kv_bytes_per_token: per device, as allocated)\n");
  fmt::print("# {:>3} {:>8} {:>14} {:>18} {:>23} {:>14} {:>14} {:>20}\n", "k", "kv_heads", "kv_replication",
             "kv_bytes_per_token", "weight_bytes_per_device", "other_fixed", "per_sequence", "kv_tokens_per_device");
  for (const KvDegreeAnswer& d : answer.degrees)
    fmt::print("  {:>3} {:>8} {:>14} {:>18} {:>23} {:>14} {:>14} {:>20}\n", d.share.k, d.share.kv_heads_per_device,
               d.share.kv_replication, d.share.kv_bytes_per_token, readable_bytes(d.line.weight_bytes),
               readable_bytes(d.line.fixed_bytes), readable_bytes(d.line.sequence_bytes),
               d.capacity.fits ? fmt::format("{}", d.capacity.kv_tokens_per_device) : "does not fit");

  fmt::print("#\n# sequences admissible per device (a sequence at context c holds c + 1 tokens)\n# {:>3} {:>8}", "k",
             "context");
  for (int block : q.blocks) fmt::print(" {:>12}", fmt::format("block {}", block));
  fmt::print("\n");
  for (const KvDegreeAnswer& d : answer.degrees)
    for (std::size_t c = 0; c < q.contexts.size(); ++c) {
      fmt::print("  {:>3} {:>8}", d.share.k, q.contexts[c]);
      for (std::size_t b = 0; b < q.blocks.size(); ++b)
        fmt::print(" {:>12}", d.capacity.fits ? fmt::format("{}", d.admissible_sequences[c][b]) : "-");
      fmt::print("\n");
    }
}

}  // namespace tpb
