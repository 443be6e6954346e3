// The whole decode step (TP-1, no collectives) on the CUDA backend against the
// CPU backend on the tiny configs: the residual stream after every layer and
// the logits within the bf16 tolerance of the step's own check, the same
// greedy tokens unless the CPU's two candidates are closer than that
// tolerance, and a captured graph replaying the eager step bit for bit.
// Skipped without a CUDA device.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "tests/tp_decoder_cuda/twin_backends.hpp"
#include "tp_decoder/decode_step.hpp"
#include "tp_decoder/model_config.hpp"
#include "tp_decoder/shard_plan.hpp"
#include "tp_decoder/step_runner.hpp"
#include "tp_decoder/weights.hpp"

namespace tpb::test {
namespace {

struct StepCase {
  const char* config;  // file in tp_decoder/configs, without .json
  int batch;
  int context;
};

struct StepResult {
  std::vector<std::vector<float>> layers;  // residual stream after each layer
  std::vector<float> logits;               // (batch, vocab)
  std::vector<std::int32_t> tokens;
};

// The source tree's configs, or TPB_CONFIG_DIR from the environment where the
// test runs away from it (the offline bundle ships them in share/tpbench/configs).
ModelConfig tiny_config(const char* name) {
  const char* moved = std::getenv("TPB_CONFIG_DIR");
  const std::string dir = moved != nullptr && *moved != '\0' ? moved : TPB_CONFIG_DIR;
  return load_model_config(dir + "/" + name + ".json");
}

// Builds TP-1 weights and state on `backend` and runs one step, reading the
// residual stream after every layer (downloads are ordered on the stream).
StepResult run_tp1_step(Backend& backend, const ModelConfig& config, int batch, int context) {
  const ShardPlan plan = make_shard_plan(config, 1, 0);
  const DecoderWeights weights = build_decoder_weights(backend, config, plan, kDefaultSeed);
  DecodeState state = build_decode_state(backend, config, plan, batch, context, kDefaultSeed);
  StepResult result;
  decode_step(backend, nullptr, config, weights, state, nullptr,
              [&](int, const Tensor& x) { result.layers.push_back(read(backend, x)); });
  backend.synchronize();
  result.logits = read(backend, *state.logits);
  result.tokens.resize(static_cast<std::size_t>(batch));
  backend.download_tokens(*state.next_tokens, result.tokens.data());
  return result;
}

// "tiny_llama_b3_c200": readable in listings, and a valid test name.
void PrintTo(const StepCase& c, std::ostream* os) {
  std::string config = c.config;
  std::replace(config.begin(), config.end(), '-', '_');
  *os << config << "_b" << c.batch << "_c" << c.context;
}

class CudaStep : public TwinBackends, public ::testing::WithParamInterface<StepCase> {};

TEST_P(CudaStep, MatchesCpuLayerByLayer) {
  const StepCase c = GetParam();
  const ModelConfig config = tiny_config(c.config);
  const StepResult cpu = run_tp1_step(*cpu_, config, c.batch, c.context);
  const StepResult cuda = run_tp1_step(*cuda_, config, c.batch, c.context);

  // The step's own bf16 tolerance (step_runner.hpp), relative to the largest CPU value.
  const double rel = relative_logit_tolerance(ElementType::bf16);
  SCOPED_TRACE(logit_tolerance_reason(ElementType::bf16));
  ASSERT_EQ(cuda.layers.size(), cpu.layers.size());
  for (std::size_t layer = 0; layer < cpu.layers.size(); ++layer)
    EXPECT_TRUE(all_close(cuda.layers[layer], cpu.layers[layer], 0.0, rel)) << "after layer " << layer;
  EXPECT_TRUE(all_close(cuda.logits, cpu.logits, 0.0, rel)) << "logits";

  double max_abs_logit = 1.0;
  for (float v : cpu.logits) max_abs_logit = std::max(max_abs_logit, static_cast<double>(std::fabs(v)));
  const double tolerance = rel * max_abs_logit;
  const std::size_t vocab = cpu.logits.size() / static_cast<std::size_t>(c.batch);
  for (std::size_t b = 0; b < cpu.tokens.size(); ++b) {
    if (cuda.tokens[b] == cpu.tokens[b]) continue;
    ASSERT_GE(cuda.tokens[b], 0);
    ASSERT_LT(static_cast<std::size_t>(cuda.tokens[b]), vocab);
    const double gap = cpu.logits[b * vocab + static_cast<std::size_t>(cpu.tokens[b])] -
                       cpu.logits[b * vocab + static_cast<std::size_t>(cuda.tokens[b])];
    EXPECT_LE(gap, tolerance) << "sequence " << b << ": cuda picked " << cuda.tokens[b] << ", cpu " << cpu.tokens[b]
                              << ", and they are no near-tie";
  }
}

// Every step decodes the same position from the same inputs, so a captured
// step replays the eager one exactly (as mpi_bench step --graph relies on).
TEST_P(CudaStep, GraphReplayEqualsEagerStep) {
  const StepCase c = GetParam();
  const ModelConfig config = tiny_config(c.config);
  const ShardPlan plan = make_shard_plan(config, 1, 0);
  const DecoderWeights weights = build_decoder_weights(*cuda_, config, plan, kDefaultSeed);
  DecodeState state = build_decode_state(*cuda_, config, plan, c.batch, c.context, kDefaultSeed);
  decode_step(*cuda_, nullptr, config, weights, state, nullptr);
  cuda_->synchronize();
  const std::vector<float> eager = read(*cuda_, *state.logits);
  const std::vector<float> cleared(eager.size(), 0.0f);
  cuda_->upload(*state.logits, cleared.data());  // the replay must write them again
  cuda_->capture_begin();
  decode_step(*cuda_, nullptr, config, weights, state, nullptr);
  cuda_->capture_end();
  cuda_->graph_launch();
  cuda_->synchronize();
  EXPECT_EQ(read(*cuda_, *state.logits), eager);
}

INSTANTIATE_TEST_SUITE_P(TinyConfigs, CudaStep,
                         ::testing::Values(StepCase{"tiny-llama", 1, 5},    // llama3 RoPE scaling
                                           StepCase{"tiny-llama", 3, 200},  // split attention
                                           StepCase{"tiny-qwen2", 2, 64},   // q/k/v biases, tied embeddings
                                           StepCase{"tiny-mqa", 4, 100}),   // one kv head for 8 q heads
                         [](const ::testing::TestParamInfo<StepCase>& p) { return ::testing::PrintToString(p.param); });
}  // namespace
}  // namespace tpb::test
