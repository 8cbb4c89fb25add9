#include "common/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace shaderwatch {

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(hex[md[i] >> 4]);
    out.push_back(hex[md[i] & 15]);
  }
  return out;
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 init failed");
}
Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
void Sha256::raw(const void* p, std::size_t n) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), p, n) != 1) throw std::runtime_error("SHA-256 failed");
}
void Sha256::field(std::string_view s) {
  const std::uint64_t n = s.size();
  raw(&n, sizeof n);
  raw(s.data(), s.size());
}
void Sha256::field(double v) { raw(&v, sizeof v); }
void Sha256::field(std::int64_t v) { raw(&v, sizeof v); }
std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len) != 1) throw std::runtime_error("SHA-256 failed");
  static const char* hexd = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(hexd[md[i] >> 4]);
    out.push_back(hexd[md[i] & 15]);
  }
  return out;
}

}  // namespace shaderwatch
