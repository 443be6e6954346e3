#pragma once
// The two ends of the step: token embedding lookup and greedy sampling (argmax).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tpb::gpu {

// out[b, :] = table[tokens[b], :]. out: (batch, hidden); table: (vocab, hidden).
// A token outside [0, vocab) yields a row of NaN (visible in every later check)
// instead of reading out of bounds.
void embedding(__nv_bfloat16* out, const std::int32_t* tokens, const __nv_bfloat16* table, int batch, int hidden,
               int vocab, cudaStream_t stream);

// tokens[b] = argmax over the vocabulary of row b; ties go to the lowest index,
// NaN never wins. logits are the all-gathered vocab-parallel LM-head outputs,
// shard-major: (shards, batch, vocab_per_shard), so vocabulary index
// v = shard * vocab_per_shard + j is at logits[(shard * batch + b) * vocab_per_shard + j].
void argmax(std::int32_t* tokens, const float* logits, int batch, int vocab_per_shard, int shards, cudaStream_t stream);

}  // namespace tpb::gpu
