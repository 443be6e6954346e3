#pragma once
// Synthetic weights generated in place on the device: a 70B shard is tens of
// GiB, far too slow to draw on the host and copy. Element values come from the
// same synthetic_value() the CPU backend calls (tp_decoder/synthetic_weights.hpp),
// so a CUDA tensor is the CPU tensor rounded once to bf16.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "tp_decoder/shard_plan.hpp"         // TensorSlice
#include "tp_decoder/synthetic_weights.hpp"  // SyntheticInit, synthetic_value

namespace tpb::gpu {

// dst: slice.rows x slice.cols row-major (the caller offsets it to the first row
// to fill); element (r, c) = synthetic_value(seed, tensor_key, slice.row_begin + r,
// slice.col_begin + c, slice.global_cols, init).
void fill_synthetic(__nv_bfloat16* dst, const TensorSlice& slice, std::uint64_t seed, std::uint64_t tensor_key,
                    SyntheticInit init, cudaStream_t stream);
void fill_synthetic(float* dst, const TensorSlice& slice, std::uint64_t seed, std::uint64_t tensor_key,
                    SyntheticInit init, cudaStream_t stream);

}  // namespace tpb::gpu
