#pragma once
// SHA-256 through OpenSSL's EVP interface: the digest that seals a
// registration and the calibration data it was computed from.
#include <string>
#include <string_view>

namespace tpb {

// Lower-case hex digest (64 characters) of `bytes`.
std::string sha256_hex(std::string_view bytes);

// Incremental digest for data that arrives in pieces (many datasets).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t bytes);
  void update(std::string_view text) { update(text.data(), text.size()); }
  std::string hex_digest();  // finishes the digest; call once

 private:
  struct Context;
  Context* context_;
};

}  // namespace tpb
