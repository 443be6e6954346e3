#pragma once
// The shipped model configs, by file stem ("tiny-llama", "llama-3.1-8b").
#include <string>

#include "tp_decoder/model_config.hpp"

namespace tpb::test {

inline std::string config_path(const std::string& stem) { return std::string(TPB_CONFIG_DIR) + "/" + stem + ".json"; }
inline ModelConfig shipped_config(const std::string& stem) { return load_model_config(config_path(stem)); }

}  // namespace tpb::test
