#include "crypto/secret_bytes.h"

#include <openssl/crypto.h>

#include <cstring>
#include <utility>

namespace fedmf::crypto {

SecretBytes::SecretBytes(size_t size) : data_(new uint8_t[size]()), size_(size) {}

SecretBytes::SecretBytes(absl::Span<const uint8_t> bytes) : SecretBytes(bytes.size()) {
  if (!bytes.empty()) std::memcpy(data_.get(), bytes.data(), bytes.size());
}

SecretBytes::SecretBytes(SecretBytes&& other) noexcept
    : data_(std::move(other.data_)), size_(std::exchange(other.size_, 0)) {}

SecretBytes& SecretBytes::operator=(SecretBytes&& other) noexcept {
  if (this != &other) {
    Clear();
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

SecretBytes::~SecretBytes() { Clear(); }

SecretBytes SecretBytes::Clone() const { return SecretBytes(span()); }

void SecretBytes::Clear() {
  if (data_ != nullptr) OPENSSL_cleanse(data_.get(), size_);
  data_.reset();
  size_ = 0;
}

bool operator==(const SecretBytes& a, const SecretBytes& b) {
  if (a.size_ != b.size_) return false;
  if (a.size_ == 0) return true;
  return CRYPTO_memcmp(a.data_.get(), b.data_.get(), a.size_) == 0;
}

}  // namespace fedmf::crypto
