#include "tp_decoder/moe_routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/error.hpp"

namespace tpb {

LayerRouting route_tokens(const MoeConfig& moe, const float* router_logits, int batch) {
  const int n = moe.num_experts;
  const int top = moe.experts_per_token;
  TPB_CHECK(n >= 1 && top >= 1 && top <= n && batch >= 1,
            fmt::format("route_tokens: top {} of {} experts for {} sequences", top, n, batch));
  LayerRouting r;
  r.batch = batch;
  r.experts_per_token = top;
  r.min_margin = std::numeric_limits<double>::infinity();
  std::vector<double> probability(static_cast<std::size_t>(n));
  std::vector<int> ranked(static_cast<std::size_t>(n));
  const auto more_probable = [&probability](int a, int b) {  // a tie goes to the lower index
    const double pa = probability[static_cast<std::size_t>(a)];
    const double pb = probability[static_cast<std::size_t>(b)];
    return pa > pb || (pa == pb && a < b);
  };
  for (int b = 0; b < batch; ++b) {
    // Softmax in double: the same value for the same logits on every rank.
    const float* logits = router_logits + static_cast<std::ptrdiff_t>(b) * n;
    const double peak = *std::max_element(logits, logits + n);
    double total = 0;
    for (int e = 0; e < n; ++e) total += probability[static_cast<std::size_t>(e)] = std::exp(logits[e] - peak);
    for (double& p : probability) p /= total;

    std::iota(ranked.begin(), ranked.end(), 0);
    const auto kept_end = ranked.begin() + top;
    std::partial_sort(ranked.begin(), kept_end, ranked.end(), more_probable);
    double kept_sum = 0;
    for (auto kept = ranked.begin(); kept != kept_end; ++kept) kept_sum += probability[static_cast<std::size_t>(*kept)];
    const double last_kept_logit = logits[*(kept_end - 1)];
    for (auto left_out = kept_end; left_out != ranked.end(); ++left_out)
      r.min_margin = std::min(r.min_margin, last_kept_logit - logits[*left_out]);
    for (auto kept = ranked.begin(); kept != kept_end; ++kept) {
      const double p = probability[static_cast<std::size_t>(*kept)];
      r.experts.push_back(*kept);
      r.weights.push_back(static_cast<float>(moe.norm_topk_prob ? p / kept_sum : p));
    }
  }
  return r;
}

std::int64_t routing_flops(const MoeConfig& moe, int batch) {
  const std::int64_t experts = moe.num_experts;
  const std::int64_t top = moe.experts_per_token;
  return batch * (5 * experts + top * experts + (moe.norm_topk_prob ? 2 * top : 0));
}

double modelled_distinct_experts(const MoeConfig& moe, int batch) {
  const double experts = moe.num_experts;
  return experts * (1.0 - std::pow(1.0 - moe.experts_per_token / experts, batch));
}

std::vector<int> experts_touched(const LayerRouting& routing) {
  std::vector<int> touched = routing.experts;
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  return touched;
}

std::string routing_disagreement(Backend& backend, Communicator& group, const std::vector<LayerRouting>& layers) {
  // Every rank's expert ids, as f32 (exact below 2^24) logits-role tensors,
  // which every backend stores as f32; gathered in rank order.
  std::vector<float> mine;
  for (const LayerRouting& layer : layers) mine.insert(mine.end(), layer.experts.begin(), layer.experts.end());
  if (mine.empty()) return {};
  const auto count = static_cast<std::int64_t>(mine.size());
  OwnedTensor local(backend, 1, count, TensorRole::logits);
  OwnedTensor all(backend, group.size(), count, TensorRole::logits);
  backend.upload(*local, mine.data());
  group.all_gather(local->data, all->data, static_cast<std::size_t>(count), comm_datatype(local->type),
                   backend.stream());
  group.synchronize(backend.stream());
  const std::vector<float> every = download_all(backend, *all);
  for (int rank = 1; rank < group.size(); ++rank) {
    std::size_t i = 0;
    for (std::size_t layer = 0; layer < layers.size(); ++layer)
      for (std::size_t j = 0; j < layers[layer].experts.size(); ++j, ++i) {
        const float theirs = every[static_cast<std::size_t>(rank) * static_cast<std::size_t>(count) + i];
        if (theirs != every[i])
          return fmt::format("routing differs across the TP-{} group: rank {} routes sequence {} of layer {} to "
                             "expert {}, rank 0 to expert {}",
                             group.size(), rank, j / static_cast<std::size_t>(layers[layer].experts_per_token), layer,
                             theirs, every[i]);
      }
  }
  return {};
}

}  // namespace tpb
