#include "predictor/sha256.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include "common/error.hpp"

namespace tpb {

struct Sha256::Context {
  EVP_MD_CTX* md = nullptr;
};

namespace {
void openssl_check(int ok, const char* call) {
  if (ok != 1) throw_error("OpenSSL", 0, fmt::format("{} failed", call), __FILE__, __LINE__);
}
}  // namespace

Sha256::Sha256() : context_(new Context) {
  context_->md = EVP_MD_CTX_new();
  if (!context_->md) {
    delete context_;
    throw_error("OpenSSL", 0, "EVP_MD_CTX_new failed", __FILE__, __LINE__);
  }
  openssl_check(EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr), "EVP_DigestInit_ex");
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(context_->md);
  delete context_;
}

void Sha256::update(const void* data, std::size_t bytes) {
  openssl_check(EVP_DigestUpdate(context_->md, data, bytes), "EVP_DigestUpdate");
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  openssl_check(EVP_DigestFinal_ex(context_->md, digest, &length), "EVP_DigestFinal_ex");
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 digest;
  digest.update(bytes);
  return digest.hex_digest();
}

}  // namespace tpb
