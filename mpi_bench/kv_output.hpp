#pragma once
// What `mpi_bench kv` prints: the tables, or one JSON object (--json) with
// the `blocks` and `tp` lists.
#include <nlohmann/json.hpp>

#include "predictor/kv_answer.hpp"
#include "results/kv_file.hpp"

namespace tpb {

// Labels beyond the file's: where the logical bytes per token came from and
// whose buffers the estimator counted.
struct KvPrintLabels {
  KvLabels file;
  std::string bytes_per_token_source;  // "80 layers x 2 x 8 KV heads x 128 head_dim x 2 B", "--bytes-per-token 1024"
  std::string estimator;               // "cpu backend buffers with mpi collectives at bf16"
};

void print_kv_tables(const KvAnswer& answer, const KvPrintLabels& labels);
nlohmann::json kv_answer_json(const KvAnswer& answer, const KvPrintLabels& labels);

}  // namespace tpb
