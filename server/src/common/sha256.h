// SHA-256 (OpenSSL): of a token (only its hash is stored) and of a parsed run (its identity for a repost).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace shaderwatch {

std::string sha256_hex(std::string_view data);

// Incremental SHA-256 (OpenSSL EVP), for hashing a parsed run without re-serialising it.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  // Each field is length-prefixed, so ("ab","c") and ("a","bc") differ.
  void field(std::string_view s);
  void field(double v);
  void field(std::int64_t v);
  std::string hex();

 private:
  void raw(const void* p, std::size_t n);
  void* ctx_;
};

}  // namespace shaderwatch
