// KV write, decode-attention and combine kernels and their launchers (attention.cuh).
#include <cmath>
#include <cstdint>

#include "common/cuda_check.hpp"
#include "tp_decoder/cuda/attention.cuh"
#include "tp_decoder/cuda/device_math.cuh"

namespace tpb::gpu {
namespace {

constexpr int kKvWriteThreads = 256;
constexpr int kCombineThreads = 128;
// A lane holds head-dim pairs lane, lane + 32, ...: 4 pairs cover kMaxAttentionHeadDim.
constexpr int kMaxPairsPerLane = kMaxAttentionHeadDim / (2 * kWarpSize);

struct AttentionParams {
  bf16* out;
  const bf16* qkv;
  QkvLayout layout;
  const bf16* k_cache;
  const bf16* v_cache;
  AttentionShape shape;
  int n_ctx;  // positions attended
  int chunk;
  int num_splits;
  float scale;  // 1/sqrt(head_dim)
  AttentionWorkspace workspace;
};

__host__ __device__ inline std::size_t cache_offset(const AttentionShape& s, int seq, int kv_head, int position) {
  return ((static_cast<std::size_t>(seq) * s.kv_heads + kv_head) * s.positions + position) * s.head_dim;
}

__global__ void kv_write_kernel(bf16* k_cache, bf16* v_cache, const bf16* qkv, QkvLayout layout, AttentionShape shape,
                                int position) {
  const int per_seq = shape.kv_heads * shape.head_dim;
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= per_seq) return;
  const int seq = blockIdx.y;
  const int head = index / shape.head_dim;
  const int d = index % shape.head_dim;
  const bf16* row = qkv + static_cast<std::size_t>(seq) * layout.row_stride;
  const std::size_t dst = cache_offset(shape, seq, head, position) + d;
  k_cache[dst] = row[layout.k_offset + index];
  v_cache[dst] = row[layout.v_offset + index];
}

// One block per (kv head, split) x sequence. The block holds the q vectors of
// every q head sharing this kv head, so each K and V row is read from memory
// once per group rather than once per q head.
//   1. scores[g][t] = q_g . k_t * scale, one warp per position t
//   2. per q head: max over the chunk, exponentials, their sum
//   3. out_g = sum_t exp(score) v_t: one thread per (q head, pair of dims)
// With one split the result is normalised and written as bf16; otherwise the
// un-normalised sum, max and sum of exponentials go to the workspace for combine.
__global__ void __launch_bounds__(kAttentionThreads) decode_attention_kernel(AttentionParams p) {
  const AttentionShape& s = p.shape;
  const int group = s.q_heads / s.kv_heads;
  const int half_dim = s.head_dim / 2;
  const int kv_head = blockIdx.x / p.num_splits;
  const int split = blockIdx.x % p.num_splits;
  const int seq = blockIdx.y;
  const int t_begin = split * p.chunk;
  const int len = min(p.chunk, p.n_ctx - t_begin);  // >= 1 by construction of the plan
  const int first_q_head = kv_head * group;
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int n_warps = blockDim.x / kWarpSize;

  extern __shared__ float4 smem_raw[];              // float4: 16-byte aligned, so float2 views below are aligned
  float* q_s = reinterpret_cast<float*>(smem_raw);  // (group, head_dim), pre-scaled
  float* scores = q_s + group * s.head_dim;         // (group, chunk)
  float* row_max = scores + group * p.chunk;        // (group)
  float* row_sum = row_max + group;                 // (group)

  const bf16* q_row =
      p.qkv + static_cast<std::size_t>(seq) * p.layout.row_stride + static_cast<std::size_t>(first_q_head) * s.head_dim;
  for (int i = threadIdx.x; i < group * s.head_dim; i += blockDim.x) q_s[i] = to_float(q_row[i]) * p.scale;
  __syncthreads();

  const bf16* k_chunk = p.k_cache + cache_offset(s, seq, kv_head, t_begin);
  const bf16* v_chunk = p.v_cache + cache_offset(s, seq, kv_head, t_begin);

  // 1. Scores.
  for (int t = warp; t < len; t += n_warps) {
    const auto* k_row = reinterpret_cast<const __nv_bfloat162*>(k_chunk + static_cast<std::size_t>(t) * s.head_dim);
    float2 k[kMaxPairsPerLane];
#pragma unroll
    for (int j = 0; j < kMaxPairsPerLane; ++j) {
      const int pair = lane + j * kWarpSize;
      k[j] = pair < half_dim ? __bfloat1622float2(k_row[pair]) : make_float2(0.0f, 0.0f);
    }
    for (int g = 0; g < group; ++g) {
      const auto* q = reinterpret_cast<const float2*>(q_s + g * s.head_dim);
      float dot = 0.0f;
#pragma unroll
      for (int j = 0; j < kMaxPairsPerLane; ++j) {
        const int pair = lane + j * kWarpSize;
        if (pair < half_dim) dot += q[pair].x * k[j].x + q[pair].y * k[j].y;
      }
      dot = warp_sum(dot);
      if (lane == 0) scores[g * p.chunk + t] = dot;
    }
  }
  __syncthreads();

  // 2. Softmax numerators over the chunk, one warp per q head.
  for (int g = warp; g < group; g += n_warps) {
    float* row = scores + g * p.chunk;
    float m = -INFINITY;
    for (int t = lane; t < len; t += kWarpSize) m = fmaxf(m, row[t]);
    m = warp_max(m);
    float sum = 0.0f;
    for (int t = lane; t < len; t += kWarpSize) {
      const float e = expf(row[t] - m);
      row[t] = e;
      sum += e;
    }
    sum = warp_sum(sum);
    if (lane == 0) {
      row_max[g] = m;
      row_sum[g] = sum;
    }
  }
  __syncthreads();

  // 3. Weighted sum of V rows; consecutive threads read consecutive pairs of a row.
  for (int item = threadIdx.x; item < group * half_dim; item += blockDim.x) {
    const int g = item / half_dim;
    const int pair = item % half_dim;
    const float* weight = scores + g * p.chunk;
    const auto* v = reinterpret_cast<const __nv_bfloat162*>(v_chunk) + pair;
    float2 acc = make_float2(0.0f, 0.0f);
#pragma unroll 8  // independent loads of successive rows in flight together
    for (int t = 0; t < len; ++t) {
      const float2 value = __bfloat1622float2(v[static_cast<std::size_t>(t) * half_dim]);
      acc.x += weight[t] * value.x;
      acc.y += weight[t] * value.y;
    }
    const int q_head = first_q_head + g;
    if (p.num_splits == 1) {
      const float inv_sum = 1.0f / row_sum[g];
      auto* out = reinterpret_cast<__nv_bfloat162*>(p.out + (static_cast<std::size_t>(seq) * s.q_heads + q_head) *
                                                                s.head_dim);
      out[pair] = __floats2bfloat162_rn(acc.x * inv_sum, acc.y * inv_sum);
    } else {
      const std::size_t row = (static_cast<std::size_t>(seq) * s.q_heads + q_head) * p.num_splits + split;
      reinterpret_cast<float2*>(p.workspace.partial_out + row * s.head_dim)[pair] = acc;
      if (pair == 0) {
        p.workspace.partial_max[row] = row_max[g];
        p.workspace.partial_sum[row] = row_sum[g];
      }
    }
  }
}

// One block per (sequence, q head): rescales each split's partial sums to the
// global max (the flash-decoding merge) and normalises.
__global__ void combine_kernel(bf16* out, AttentionWorkspace workspace, int num_splits, int head_dim) {
  const std::size_t row = blockIdx.x;  // seq * q_heads + q_head
  const float* maxes = workspace.partial_max + row * num_splits;
  const float* sums = workspace.partial_sum + row * num_splits;
  float m = -INFINITY;
  for (int split = 0; split < num_splits; ++split) m = fmaxf(m, maxes[split]);
  float denominator = 0.0f;
  for (int split = 0; split < num_splits; ++split) denominator += expf(maxes[split] - m) * sums[split];
  const float inv_denominator = 1.0f / denominator;
  const float* partial = workspace.partial_out + row * num_splits * head_dim;
  for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
    float acc = 0.0f;
    for (int split = 0; split < num_splits; ++split)
      acc += expf(maxes[split] - m) * partial[static_cast<std::size_t>(split) * head_dim + d];
    out[row * head_dim + d] = to_bf16(acc * inv_denominator);
  }
}

bool aligned(const void* pointer, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0; }

void check_layout(const QkvLayout& layout, const AttentionShape& shape) {
  const int kv_elements = shape.kv_heads * shape.head_dim;
  TPB_CHECK(layout.k_offset >= shape.q_heads * shape.head_dim, "attention: k heads overlap the q heads");
  TPB_CHECK(layout.v_offset >= layout.k_offset + kv_elements, "attention: v heads overlap the k heads");
  TPB_CHECK(layout.row_stride >= layout.v_offset + kv_elements, "attention: row_stride too small for q, k and v");
}

}  // namespace

void kv_write(bf16* k_cache, bf16* v_cache, const bf16* qkv, const QkvLayout& layout, const AttentionShape& shape,
              int position, cudaStream_t stream) {
  TPB_CHECK(shape.batch > 0 && shape.kv_heads > 0 && shape.head_dim > 0, "kv_write: empty shape");
  TPB_CHECK(position >= 0 && position < shape.positions, "kv_write: position outside the cache");
  check_layout(layout, shape);
  const dim3 grid(ceil_div(shape.kv_heads * shape.head_dim, kKvWriteThreads), shape.batch);
  kv_write_kernel<<<grid, kKvWriteThreads, 0, stream>>>(k_cache, v_cache, qkv, layout, shape, position);
  CUDA_CHECK_LAUNCH();
}

void decode_attention(bf16* out, const bf16* qkv, const QkvLayout& layout, const bf16* k_cache, const bf16* v_cache,
                      const AttentionShape& shape, int n_ctx, const AttentionPlan& plan,
                      const AttentionWorkspace& workspace, cudaStream_t stream) {
  TPB_CHECK(shape.batch > 0 && shape.kv_heads > 0 && shape.q_heads % shape.kv_heads == 0,
            "decode_attention: kv_heads must divide q_heads");
  TPB_CHECK(shape.head_dim > 0 && shape.head_dim % 2 == 0 && shape.head_dim <= kMaxAttentionHeadDim,
            "decode_attention: head_dim must be even and at most kMaxAttentionHeadDim");
  TPB_CHECK(n_ctx >= 1 && n_ctx <= shape.positions, "decode_attention: n_ctx outside the cache");
  check_layout(layout, shape);
  TPB_CHECK(plan.chunk > 0 && plan.num_splits == ceil_div(n_ctx, plan.chunk),
            "decode_attention: plan does not match n_ctx");
  const int group = shape.q_heads / shape.kv_heads;
  TPB_CHECK(plan.smem_bytes == (static_cast<std::size_t>(group) * (shape.head_dim + plan.chunk + 2)) * sizeof(float) &&
                plan.smem_bytes <= kAttentionSmemBytes,
            "decode_attention: plan shared memory does not match the shape");
  // bf16x2 and float2 accesses: rows start at even element offsets (head_dim is even).
  TPB_CHECK(aligned(k_cache, 4) && aligned(v_cache, 4) && aligned(out, 4), "decode_attention: misaligned buffer");
  if (plan.num_splits > 1)
    TPB_CHECK(
        workspace.partial_out && workspace.partial_max && workspace.partial_sum && aligned(workspace.partial_out, 8),
        "decode_attention: a split plan needs its workspace");

  const AttentionParams params{out,
                               qkv,
                               layout,
                               k_cache,
                               v_cache,
                               shape,
                               n_ctx,
                               plan.chunk,
                               plan.num_splits,
                               1.0f / std::sqrt(static_cast<float>(shape.head_dim)),
                               workspace};
  const dim3 grid(shape.kv_heads * plan.num_splits, shape.batch);
  decode_attention_kernel<<<grid, kAttentionThreads, plan.smem_bytes, stream>>>(params);
  CUDA_CHECK_LAUNCH();
  if (plan.num_splits > 1) {
    combine_kernel<<<shape.batch * shape.q_heads, kCombineThreads, 0, stream>>>(out, workspace, plan.num_splits,
                                                                                  shape.head_dim);
    CUDA_CHECK_LAUNCH();
  }
}

}  // namespace tpb::gpu
