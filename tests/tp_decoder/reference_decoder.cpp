#include "reference_decoder.hpp"

#include <algorithm>
#include <cmath>

#include "tp_decoder/decode_step.hpp"  // synthetic_token: the inputs are part of the workload's definition
#include "tp_decoder/shard_plan.hpp"
#include "tp_decoder/synthetic_weights.hpp"
#include "tp_decoder/weights.hpp"  // weight_key, weight_init: which synthetic draw each tensor is

namespace tpb::reference {
namespace {

using Matrix = std::vector<double>;  // row-major

// The whole (rows x cols) tensor `kind` of `layer`, as TP-1 holds it.
Matrix tensor(const ModelConfig& config, std::uint64_t seed, int layer, TensorKind kind, long rows, long cols) {
  const std::uint64_t key = weight_key(config, layer, kind);
  const SyntheticInit init = weight_init(config, kind);
  Matrix m(static_cast<std::size_t>(rows * cols));
  for (long r = 0; r < rows; ++r)
    for (long c = 0; c < cols; ++c)
      m[static_cast<std::size_t>(r * cols + c)] = synthetic_value(seed, key, static_cast<std::uint64_t>(r),
                                                                  static_cast<std::uint64_t>(c),
                                                                  static_cast<std::uint64_t>(cols), init);
  return m;
}

// y = W x (+ b): W is (out, in).
std::vector<double> linear(const Matrix& w, const std::vector<double>& x, long out, const Matrix* bias = nullptr) {
  const long in = static_cast<long>(x.size());
  std::vector<double> y(static_cast<std::size_t>(out));
  for (long o = 0; o < out; ++o) {
    double sum = bias ? (*bias)[static_cast<std::size_t>(o)] : 0.0;
    for (long i = 0; i < in; ++i) sum += w[static_cast<std::size_t>(o * in + i)] * x[static_cast<std::size_t>(i)];
    y[static_cast<std::size_t>(o)] = sum;
  }
  return y;
}

std::vector<double> rmsnorm(const std::vector<double>& x, const Matrix& gain, double eps) {
  double mean_square = 0;
  for (double v : x) mean_square += v * v;
  mean_square /= static_cast<double>(x.size());
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] / std::sqrt(mean_square + eps) * gain[i];
  return y;
}

// Rotates one head in place: pairs (i, i + d/2), angle = position * inv_freq_i.
void rotate(double* head, const ModelConfig& config, int position) {
  const int half = config.head_dim / 2;
  for (int i = 0; i < half; ++i) {
    // fp32 angle and frequency, as the published implementations compute them.
    const float angle = static_cast<float>(position) * static_cast<float>(rope_inv_freq(config, i));
    const double c = std::cos(static_cast<double>(angle));
    const double s = std::sin(static_cast<double>(angle));
    const double x0 = head[i];
    const double x1 = head[i + half];
    head[i] = x0 * c - x1 * s;
    head[i + half] = x1 * c + x0 * s;
  }
}

// SwiGLU of width `width` whose gate and up rows and down columns start at
// `first` of the (possibly stacked) tensors: down (gate x) * up x.
std::vector<double> swiglu(const Matrix& gate, const Matrix& up, const Matrix& down, long down_cols, long first,
                           long width, const std::vector<double>& x) {
  const long hidden = static_cast<long>(x.size());
  std::vector<double> act(static_cast<std::size_t>(width));
  for (long i = 0; i < width; ++i) {
    double g = 0, u = 0;
    for (long c = 0; c < hidden; ++c) {
      g += gate[static_cast<std::size_t>((first + i) * hidden + c)] * x[static_cast<std::size_t>(c)];
      u += up[static_cast<std::size_t>((first + i) * hidden + c)] * x[static_cast<std::size_t>(c)];
    }
    act[static_cast<std::size_t>(i)] = g / (1 + std::exp(-g)) * u;
  }
  std::vector<double> y(static_cast<std::size_t>(hidden), 0.0);
  for (long r = 0; r < hidden; ++r)
    for (long i = 0; i < width; ++i)
      y[static_cast<std::size_t>(r)] +=
          down[static_cast<std::size_t>(r * down_cols + first + i)] * act[static_cast<std::size_t>(i)];
  return y;
}

// One layer's MLP, dense or sparse, from its published definition: a sparse
// layer takes the softmax of the router logits over every expert, keeps the
// experts_per_token most probable (lowest index first on a tie), optionally
// renormalises their weights, sums their weighted SwiGLU outputs, and adds
// the shared expert scaled by sigmoid(shared gate · x).
class Mlp {
 public:
  Mlp(const ModelConfig& config, std::uint64_t seed, int layer) : config_(config) {
    const long hidden = config.hidden_size;
    const MoeConfig& moe = config.moe;
    width_ = config.is_moe() ? moe.expert_intermediate_size : config.intermediate_size;
    const long rows = config.is_moe() ? moe.num_experts * width_ : width_;
    const TensorKind gate = config.is_moe() ? TensorKind::expert_gate : TensorKind::w_gate;
    const TensorKind up = config.is_moe() ? TensorKind::expert_up : TensorKind::w_up;
    const TensorKind down = config.is_moe() ? TensorKind::expert_down : TensorKind::w_down;
    gate_ = tensor(config, seed, layer, gate, rows, hidden);
    up_ = tensor(config, seed, layer, up, rows, hidden);
    down_ = tensor(config, seed, layer, down, hidden, rows);
    if (!config.is_moe()) return;
    router_ = tensor(config, seed, layer, TensorKind::router, moe.num_experts, hidden);
    shared_width_ = moe.shared_expert_intermediate_size;
    if (shared_width_ == 0) return;
    shared_gate_ = tensor(config, seed, layer, TensorKind::shared_gate_proj, shared_width_, hidden);
    shared_up_ = tensor(config, seed, layer, TensorKind::shared_up_proj, shared_width_, hidden);
    shared_down_ = tensor(config, seed, layer, TensorKind::shared_down_proj, hidden, shared_width_);
    shared_expert_gate_ = tensor(config, seed, layer, TensorKind::shared_expert_gate, 1, hidden);
  }

  std::vector<double> operator()(const std::vector<double>& x) const {
    if (!config_.is_moe()) return swiglu(gate_, up_, down_, width_, 0, width_, x);
    const MoeConfig& moe = config_.moe;
    const long experts = moe.num_experts;
    const std::vector<double> logits = linear(router_, x, experts);
    const double peak = *std::max_element(logits.begin(), logits.end());
    std::vector<double> p(logits.size());
    double total = 0;
    for (std::size_t e = 0; e < p.size(); ++e) total += (p[e] = std::exp(logits[e] - peak));
    for (double& v : p) v /= total;
    std::vector<long> order(static_cast<std::size_t>(experts));
    for (long e = 0; e < experts; ++e) order[static_cast<std::size_t>(e)] = e;
    std::stable_sort(order.begin(), order.end(), [&p](long a, long b) {
      return p[static_cast<std::size_t>(a)] > p[static_cast<std::size_t>(b)];
    });
    order.resize(static_cast<std::size_t>(moe.experts_per_token));
    double kept = 0;
    for (long e : order) kept += p[static_cast<std::size_t>(e)];
    std::vector<double> y(x.size(), 0.0);
    for (long e : order) {
      const double weight = p[static_cast<std::size_t>(e)] / (moe.norm_topk_prob ? kept : 1.0);
      const std::vector<double> out = swiglu(gate_, up_, down_, experts * width_, e * width_, width_, x);
      for (std::size_t i = 0; i < y.size(); ++i) y[i] += weight * out[i];
    }
    if (shared_width_ == 0) return y;
    const double g = linear(shared_expert_gate_, x, 1)[0];
    const std::vector<double> shared = swiglu(shared_gate_, shared_up_, shared_down_, shared_width_, 0, shared_width_, x);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += shared[i] / (1 + std::exp(-g));
    return y;
  }

 private:
  const ModelConfig& config_;
  long width_ = 0;
  long shared_width_ = 0;
  Matrix gate_, up_, down_, router_;
  Matrix shared_gate_, shared_up_, shared_down_, shared_expert_gate_;
};

}  // namespace

double rope_inv_freq(const ModelConfig& config, int i) {
  const double base = 1.0 / std::pow(config.rope_theta, static_cast<double>(2 * i) / config.head_dim);
  const RopeScaling& s = config.rope_scaling;
  if (!s.llama3) return base;
  const double wavelen = 2 * M_PI / base;
  const double low_freq_wavelen = s.original_max_position_embeddings / s.low_freq_factor;
  const double high_freq_wavelen = s.original_max_position_embeddings / s.high_freq_factor;
  if (wavelen < high_freq_wavelen) return base;          // high frequency: unchanged
  if (wavelen > low_freq_wavelen) return base / s.factor;  // low frequency: divided by factor
  const double smooth = (s.original_max_position_embeddings / wavelen - s.low_freq_factor) /
                        (s.high_freq_factor - s.low_freq_factor);
  return (1 - smooth) * base / s.factor + smooth * base;
}

Output decode_step(const ModelConfig& config, int batch, int context, std::uint64_t seed) {
  const long hidden = config.hidden_size;
  const long hd = config.head_dim;
  const long heads = config.num_heads;
  const long kv_heads = config.num_kv_heads;
  const long vocab = config.vocab_size;
  const long positions = context + 1;
  const double eps = config.rms_norm_eps;

  const Matrix embedding = tensor(config, seed, -1, TensorKind::embedding, vocab, hidden);
  std::vector<std::vector<double>> x(static_cast<std::size_t>(batch));
  for (int b = 0; b < batch; ++b) {
    const long token = synthetic_token(config, seed, b);
    x[static_cast<std::size_t>(b)].assign(embedding.begin() + token * hidden, embedding.begin() + (token + 1) * hidden);
  }

  for (int layer = 0; layer < config.num_layers; ++layer) {
    const Matrix attn_norm = tensor(config, seed, layer, TensorKind::attn_norm, 1, hidden);
    const Matrix wq = tensor(config, seed, layer, TensorKind::wq, heads * hd, hidden);
    const Matrix wk = tensor(config, seed, layer, TensorKind::wk, kv_heads * hd, hidden);
    const Matrix wv = tensor(config, seed, layer, TensorKind::wv, kv_heads * hd, hidden);
    const Matrix wo = tensor(config, seed, layer, TensorKind::wo, hidden, heads * hd);
    const Matrix ffn_norm = tensor(config, seed, layer, TensorKind::ffn_norm, 1, hidden);
    const Mlp mlp(config, seed, layer);
    Matrix bq, bk, bv;
    if (config.qkv_bias) {
      bq = tensor(config, seed, layer, TensorKind::bq, 1, heads * hd);
      bk = tensor(config, seed, layer, TensorKind::bk, 1, kv_heads * hd);
      bv = tensor(config, seed, layer, TensorKind::bv, 1, kv_heads * hd);
    }
    // KV history: (batch, kv_heads, positions, head_dim), the last position replaced by this step's K/V.
    Matrix keys = tensor(config, seed, layer, TensorKind::k_history, batch, kv_heads * positions * hd);
    Matrix values = tensor(config, seed, layer, TensorKind::v_history, batch, kv_heads * positions * hd);

    for (int b = 0; b < batch; ++b) {
      std::vector<double>& xb = x[static_cast<std::size_t>(b)];
      const std::vector<double> xn = rmsnorm(xb, attn_norm, eps);
      std::vector<double> q = linear(wq, xn, heads * hd, config.qkv_bias ? &bq : nullptr);
      std::vector<double> k = linear(wk, xn, kv_heads * hd, config.qkv_bias ? &bk : nullptr);
      const std::vector<double> v = linear(wv, xn, kv_heads * hd, config.qkv_bias ? &bv : nullptr);
      for (long h = 0; h < heads; ++h) rotate(&q[static_cast<std::size_t>(h * hd)], config, context);
      for (long h = 0; h < kv_heads; ++h) rotate(&k[static_cast<std::size_t>(h * hd)], config, context);
      for (long h = 0; h < kv_heads; ++h)
        for (long d = 0; d < hd; ++d) {
          const std::size_t at = static_cast<std::size_t>(((b * kv_heads + h) * positions + context) * hd + d);
          keys[at] = k[static_cast<std::size_t>(h * hd + d)];
          values[at] = v[static_cast<std::size_t>(h * hd + d)];
        }

      // Grouped-query attention: query head h reads KV head h / (heads / kv_heads).
      std::vector<double> attended(static_cast<std::size_t>(heads * hd), 0.0);
      for (long h = 0; h < heads; ++h) {
        const long kvh = h / (heads / kv_heads);
        std::vector<double> score(static_cast<std::size_t>(positions));
        double max_score = -INFINITY;
        for (long p = 0; p < positions; ++p) {
          double dot = 0;
          for (long d = 0; d < hd; ++d)
            dot += q[static_cast<std::size_t>(h * hd + d)] *
                   keys[static_cast<std::size_t>(((b * kv_heads + kvh) * positions + p) * hd + d)];
          score[static_cast<std::size_t>(p)] = dot / std::sqrt(static_cast<double>(hd));
          max_score = std::max(max_score, score[static_cast<std::size_t>(p)]);
        }
        double total = 0;
        for (double& s : score) total += (s = std::exp(s - max_score));
        for (long p = 0; p < positions; ++p)
          for (long d = 0; d < hd; ++d)
            attended[static_cast<std::size_t>(h * hd + d)] +=
                score[static_cast<std::size_t>(p)] / total *
                values[static_cast<std::size_t>(((b * kv_heads + kvh) * positions + p) * hd + d)];
      }
      const std::vector<double> o = linear(wo, attended, hidden);
      for (long i = 0; i < hidden; ++i) xb[static_cast<std::size_t>(i)] += o[static_cast<std::size_t>(i)];

      const std::vector<double> down = mlp(rmsnorm(xb, ffn_norm, eps));
      for (long i = 0; i < hidden; ++i) xb[static_cast<std::size_t>(i)] += down[static_cast<std::size_t>(i)];
    }
  }

  const Matrix final_norm = tensor(config, seed, -1, TensorKind::final_norm, 1, hidden);
  // Tied: the LM head is the embedding matrix itself.
  const Matrix lm_head =
      config.tie_word_embeddings ? embedding : tensor(config, seed, -1, TensorKind::lm_head, vocab, hidden);
  Output out;
  for (int b = 0; b < batch; ++b) {
    const std::vector<double> logits = linear(lm_head, rmsnorm(x[static_cast<std::size_t>(b)], final_norm, eps), vocab);
    long best = 0;
    for (long j = 1; j < vocab; ++j)
      if (logits[static_cast<std::size_t>(j)] > logits[static_cast<std::size_t>(best)]) best = j;
    out.logits.insert(out.logits.end(), logits.begin(), logits.end());
    out.tokens.push_back(static_cast<std::int32_t>(best));
  }
  return out;
}

}  // namespace tpb::reference
