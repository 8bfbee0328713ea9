// SecretBytes: a fixed-size, move-only byte buffer for key material that is wiped with
// OPENSSL_cleanse when destroyed or overwritten. Copies must be explicit (Clone()).
#ifndef FEDMF_CRYPTO_SECRET_BYTES_H_
#define FEDMF_CRYPTO_SECRET_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/types/span.h"

namespace fedmf::crypto {

class SecretBytes {
 public:
  // An empty buffer.
  SecretBytes() = default;
  // `size` zero bytes.
  explicit SecretBytes(size_t size);
  // A copy of `bytes`.
  explicit SecretBytes(absl::Span<const uint8_t> bytes);

  SecretBytes(SecretBytes&& other) noexcept;
  SecretBytes& operator=(SecretBytes&& other) noexcept;
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  ~SecretBytes();

  // An explicit deep copy (the only way to duplicate a secret).
  SecretBytes Clone() const;

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  absl::Span<const uint8_t> span() const { return {data_.get(), size_}; }
  absl::Span<uint8_t> mutable_span() { return {data_.get(), size_}; }

  // Wipes the content and releases the memory; the buffer becomes empty.
  void Clear();

  // Equal sizes and equal content; the content comparison takes time independent of the bytes.
  friend bool operator==(const SecretBytes& a, const SecretBytes& b);
  friend bool operator!=(const SecretBytes& a, const SecretBytes& b) { return !(a == b); }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
};

}  // namespace fedmf::crypto

#endif  // FEDMF_CRYPTO_SECRET_BYTES_H_
