// libFuzzer target for the model-config loader (tp_decoder/model_config.hpp):
// arbitrary bytes as a config.json. Any input must either be refused with a
// UsageError or give a config the decode step can run: positive sizes, heads
// that the KV heads divide, and a head_dim that fits.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "tp_decoder/model_config.hpp"

namespace {

void require(bool property) {
  if (!property) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const tpb::ModelConfig config = tpb::parse_model_config(text, "fuzz.json");
    require(config.hidden_size > 0 && config.intermediate_size > 0 && config.vocab_size > 0);
    require(config.num_layers > 0 && config.num_heads > 0 && config.num_kv_heads > 0 && config.head_dim > 0);
    require(config.num_heads % config.num_kv_heads == 0);
    require(config.rms_norm_eps > 0 && config.rope_theta > 0);
  } catch (const tpb::UsageError& error) {
    require(std::string(error.what()).find("fuzz.json") != std::string::npos);  // names the file
  }
  return 0;
}
