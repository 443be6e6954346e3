#include "predictor/kv_answer.hpp"

namespace tpb {

KvAnswer answer_kv_question(const KvQuestion& q) {
  KvAnswer answer;
  answer.question = q;
  for (int block : q.blocks)
    answer.paged.push_back(page_sequences(q.lengths, q.logical_kv_bytes_per_token, block, q.table_entry_bytes));
  for (const KvDegreeInput& degree : q.degrees) {
    KvDegreeAnswer a;
    a.share = kv_device_share(q.logical_kv_bytes_per_token, q.kv_heads, degree.k);
    a.line = degree.line;
    a.line.kv_bytes_per_token = a.share.kv_bytes_per_token;
    a.capacity = device_capacity(a.line, q.budget_bytes, q.reserve_pct);
    for (int context : q.contexts) {
      std::vector<std::int64_t> per_block;
      for (int block : q.blocks)
        per_block.push_back(admissible_sequences(a.line, a.capacity, std::int64_t{context} + 1, block));
      a.admissible_sequences.push_back(per_block);
    }
    answer.degrees.push_back(a);
  }
  return answer;
}

}  // namespace tpb
