#include "results/kv_file.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "results/layout.hpp"

namespace tpb {
namespace {

template <typename T, typename Field>
std::vector<std::int64_t> column(const std::vector<T>& rows, Field field) {
  std::vector<std::int64_t> values;
  for (const T& row : rows) values.push_back(static_cast<std::int64_t>(row.*field));
  return values;
}

void write_column(H5File& file, const std::string& path, const std::vector<std::int64_t>& values) {
  file.write_dataset(path, values, {values.size()});
}

void write_paged(H5File& file, const PagedAllocation& paged) {
  const std::string path = kv_block_path(paged.block_tokens);
  {
    H5Handle group = file.group(path);
    const hid_t g = group.id();
    write_attribute(g, "block_tokens", std::int64_t{paged.block_tokens});
    write_attribute(g, "payload_bytes", paged.payload_bytes);
    write_attribute(g, "allocated_bytes", paged.allocated_bytes);
    write_attribute(g, "tail_waste_bytes", paged.tail_waste_bytes);
    write_attribute(g, "table_entries", paged.table_entries);
    write_attribute(g, "metadata_bytes", paged.metadata_bytes);
  }
  const std::vector<PagedSequence>& rows = paged.sequences;
  write_column(file, path + "/tokens", column(rows, &PagedSequence::tokens));
  write_column(file, path + "/payload_bytes", column(rows, &PagedSequence::payload_bytes));
  write_column(file, path + "/allocated_bytes", column(rows, &PagedSequence::allocated_bytes));
  write_column(file, path + "/tail_waste_bytes", column(rows, &PagedSequence::tail_waste_bytes));
  write_column(file, path + "/table_entries", column(rows, &PagedSequence::table_entries));
}

void write_degree(H5File& file, const KvDegreeAnswer& d, std::size_t contexts, std::size_t blocks) {
  const std::string path = kv_degree_path(d.share.k);
  {
    H5Handle group = file.group(path);
    const hid_t g = group.id();
    write_attribute(g, "k", std::int64_t{d.share.k});
    write_attribute(g, "kv_heads_per_device", std::int64_t{d.share.kv_heads_per_device});
    write_attribute(g, "kv_replication", std::int64_t{d.share.kv_replication});
    write_attribute(g, "kv_bytes_per_token", d.share.kv_bytes_per_token);
    write_attribute(g, "weight_bytes_per_device", d.line.weight_bytes);
    write_attribute(g, "fixed_bytes", d.line.fixed_bytes);
    write_attribute(g, "sequence_bytes", d.line.sequence_bytes);
    write_attribute(g, "scratch_bytes_per_token", d.line.scratch_bytes_per_token);
    write_attribute(g, "reserve_bytes", d.capacity.reserve_bytes);
    write_attribute(g, "fits", std::int64_t{d.capacity.fits ? 1 : 0});
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
    write_attribute(g, "model", labels.model);
    write_attribute(g, "dtype", labels.dtype);
    write_attribute(g, "dtype_source", labels.dtype_source);
    write_attribute(g, "kv_bytes_per_token", q.logical_kv_bytes_per_token);
    write_attribute(g, "kv_heads", std::int64_t{q.kv_heads});
    write_attribute(g, "table_entry_bytes", q.table_entry_bytes);
    write_attribute(g, "budget_bytes", q.budget_bytes);
    write_attribute(g, "budget_source", labels.budget_source);
    write_attribute(g, "reserve_pct", q.reserve_pct);
    write_attribute(g, "lengths_source", labels.lengths_source);
    write_attribute(g, "backend", labels.backend);
    write_attribute(g, "collective", labels.collective);
  }
  write_column(file, kv_dataset_path("lengths"), q.lengths);
  write_column(file, kv_dataset_path("contexts"), std::vector<std::int64_t>(q.contexts.begin(), q.contexts.end()));
  write_column(file, kv_dataset_path("block_tokens"), std::vector<std::int64_t>(q.blocks.begin(), q.blocks.end()));
  for (const PagedAllocation& paged : answer.paged) write_paged(file, paged);
  for (const KvDegreeAnswer& degree : answer.degrees) write_degree(file, degree, q.contexts.size(), q.blocks.size());
}

}  // namespace tpb
