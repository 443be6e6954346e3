#include "tp_decoder/rope.hpp"

#include <cmath>

namespace tpb {

std::vector<float> rope_inv_freq(const ModelConfig& config) {
  const int half = config.head_dim / 2;
  const RopeScaling& s = config.rope_scaling;
  std::vector<float> inv_freq(static_cast<std::size_t>(half));
  for (int i = 0; i < half; ++i) {
    double f = 1.0 / std::pow(config.rope_theta, 2.0 * i / config.head_dim);
    if (s.llama3) {
      // Long wavelengths are stretched by `factor`, short ones kept, and the
      // band between low_freq and high_freq wavelengths interpolated.
      const double wavelength = 2.0 * M_PI / f;
      const double low_freq_wavelength = s.original_max_position_embeddings / s.low_freq_factor;
      const double high_freq_wavelength = s.original_max_position_embeddings / s.high_freq_factor;
      if (wavelength > low_freq_wavelength) {
        f /= s.factor;
      } else if (wavelength >= high_freq_wavelength) {
        const double smooth = (s.original_max_position_embeddings / wavelength - s.low_freq_factor) /
                              (s.high_freq_factor - s.low_freq_factor);
        f = (1.0 - smooth) * f / s.factor + smooth * f;
      }
    }
    inv_freq[static_cast<std::size_t>(i)] = static_cast<float>(f);
  }
  return inv_freq;
}

}  // namespace tpb
