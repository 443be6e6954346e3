#include "results/kv_file.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "results/layout.hpp"
#include "results/stored_lists.hpp"

namespace tpb {
namespace {

void write_column(H5File& file, const std::string& path, const std::vector<std::int64_t>& values) {
  file.write_dataset(path, values, {values.size()});
}

void write_paged(H5File& file, const PagedAllocation& paged) {
  const std::string path = kv_block_path(paged.block_tokens);
  {
    H5Handle group = file.group(path);
    const hid_t g = group.id();
    write_attributes(g, {{"block_tokens", paged.block_tokens}, {"payload_bytes", paged.payload_bytes},
                         {"allocated_bytes", paged.allocated_bytes}, {"tail_waste_bytes", paged.tail_waste_bytes},
                         {"table_entries", paged.table_entries}, {"metadata_bytes", paged.metadata_bytes}});
  }
  const std::vector<PagedSequence>& rows = paged.sequences;
  write_column(file, path + "/tokens", member_column(rows, &PagedSequence::tokens));
  write_column(file, path + "/payload_bytes", member_column(rows, &PagedSequence::payload_bytes));
  write_column(file, path + "/allocated_bytes", member_column(rows, &PagedSequence::allocated_bytes));
  write_column(file, path + "/tail_waste_bytes", member_column(rows, &PagedSequence::tail_waste_bytes));
  write_column(file, path + "/table_entries", member_column(rows, &PagedSequence::table_entries));
}

void write_degree(H5File& file, const KvDegreeAnswer& d, std::size_t contexts, std::size_t blocks) {
  const std::string path = kv_degree_path(d.share.k);
  {
    H5Handle group = file.group(path);
    const hid_t g = group.id();
    write_attributes(g, {{"k", d.share.k}, {"kv_heads_per_device", d.share.kv_heads_per_device},
                         {"kv_replication", d.share.kv_replication},
                         {"kv_bytes_per_token", d.share.kv_bytes_per_token},
                         {"weight_bytes_per_device", d.line.weight_bytes}, {"fixed_bytes", d.line.fixed_bytes},
                         {"sequence_bytes", d.line.sequence_bytes},
                         {"scratch_bytes_per_token", d.line.scratch_bytes_per_token},
                         {"reserve_bytes", d.capacity.reserve_bytes}, {"fits", d.capacity.fits}});
    // A capacity that does not exist is absent, never 0.
    if (!d.capacity.fits) return;
    write_attribute(g, "kv_budget_bytes", d.capacity.kv_budget_bytes);
    write_attribute(g, "kv_tokens_per_device", d.capacity.kv_tokens_per_device);
  }
  std::vector<std::int64_t> admissible;
  for (const std::vector<std::int64_t>& row : d.admissible_sequences) admissible.insert(admissible.end(), row.begin(), row.end());
  file.write_dataset(path + "/admissible_sequences", admissible, {contexts, blocks});
}

}  // namespace

void write_kv_answer(H5File& file, const KvAnswer& answer, const KvLabels& labels) {
  const KvQuestion& q = answer.question;
  {
    H5Handle group = file.group(kKvGroup);
    const hid_t g = group.id();
    write_attributes(g, {{"model", labels.model}, {"dtype", labels.dtype}, {"dtype_source", labels.dtype_source},
                         {"kv_bytes_per_token", q.logical_kv_bytes_per_token}, {"kv_heads", q.kv_heads},
                         {"table_entry_bytes", q.table_entry_bytes}, {"budget_bytes", q.budget_bytes},
                         {"budget_source", labels.budget_source}, {"reserve_pct", q.reserve_pct},
                         {"lengths_source", labels.lengths_source}, {"backend", labels.backend},
                         {"collective", labels.collective}});
  }
  write_column(file, kv_dataset_path("lengths"), q.lengths);
  write_column(file, kv_dataset_path("contexts"), std::vector<std::int64_t>(q.contexts.begin(), q.contexts.end()));
  write_column(file, kv_dataset_path("block_tokens"), std::vector<std::int64_t>(q.blocks.begin(), q.blocks.end()));
  for (const PagedAllocation& paged : answer.paged) write_paged(file, paged);
  for (const KvDegreeAnswer& degree : answer.degrees) write_degree(file, degree, q.contexts.size(), q.blocks.size());
}

}  // namespace tpb
