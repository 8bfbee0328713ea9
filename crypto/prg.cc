#include "crypto/prg.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <bit>
#include <utility>

#include "absl/strings/str_format.h"

namespace fedmf::crypto {
namespace {

// Keystream is produced in chunks of at most this many bytes, sized so that the chunk and the
// words it is unpacked into stay in L1 cache together (4 KiB measured best in prg_bench at d =
// 2^20, against 2 and 16 KiB). A chunk always holds whole groups of 8 values (8 values of b bits
// are exactly b bytes), so chunk boundaries never split a value.
constexpr size_t kChunkTargetBytes = 4096;
constexpr size_t kBufferBytes = kChunkTargetBytes + internal::kUnpackSlackBytes;

size_t GroupsPerChunk(int bits) { return kChunkTargetBytes / static_cast<size_t>(bits); }

absl::Status CheckBits(int bits) {
  if (bits < 1 || bits > kPrgMaxBits) {
    return absl::InvalidArgumentError(
        absl::StrFormat("PRG value width %d bits is outside [1, %d]", bits, kPrgMaxBits));
  }
  return absl::OkStatus();
}

internal::UnpackMode ModeOf(MaskOp op) {
  return op == MaskOp::kAdd ? internal::UnpackMode::kAdd : internal::UnpackMode::kSubtract;
}

}  // namespace

struct AesCtrPrg::Buffers {
  // Keystream = AES-CTR encryption of these zero bytes (read-only input, stays in cache).
  uint8_t zeros[kChunkTargetBytes] = {};
  uint8_t keystream[kBufferBytes] = {};
  ~Buffers() { OPENSSL_cleanse(keystream, sizeof(keystream)); }
};

AesCtrPrg::AesCtrPrg(internal::EvpCipherCtxPtr ctx, std::unique_ptr<Buffers> buffers)
    : ctx_(std::move(ctx)), buffers_(std::move(buffers)) {}
AesCtrPrg::AesCtrPrg(AesCtrPrg&&) noexcept = default;
AesCtrPrg& AesCtrPrg::operator=(AesCtrPrg&&) noexcept = default;
AesCtrPrg::~AesCtrPrg() = default;

absl::StatusOr<AesCtrPrg> AesCtrPrg::Create() {
  internal::EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (ctx == nullptr || internal::Aes256Ctr() == nullptr) {
    return internal::OpenSslError("AES-256-CTR setup");
  }
  return AesCtrPrg(std::move(ctx), std::make_unique<Buffers>());
}

absl::Status AesCtrPrg::Start(absl::Span<const uint8_t> seed, int bits) {
  if (seed.size() != kPrgSeedSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("PRG seed is %d bytes, need %d", seed.size(), kPrgSeedSize));
  }
  if (absl::Status s = CheckBits(bits); !s.ok()) return s;
  static constexpr uint8_t kInitialCounter[16] = {};
  // After the first use only the key and counter change, which skips a provider context rebuild.
  const EVP_CIPHER* cipher = keyed_once_ ? nullptr : internal::Aes256Ctr();
  if (EVP_EncryptInit_ex2(ctx_.get(), cipher, seed.data(), kInitialCounter, nullptr) != 1) {
    return internal::OpenSslError("AES-256-CTR init");
  }
  keyed_once_ = true;
  return absl::OkStatus();
}

absl::Status AesCtrPrg::Keystream(size_t bytes) {
  int len = 0;
  if (EVP_EncryptUpdate(ctx_.get(), buffers_->keystream, &len, buffers_->zeros,
                        static_cast<int>(bytes)) != 1 ||
      static_cast<size_t>(len) != bytes) {
    return internal::OpenSslError("AES-256-CTR keystream");
  }
  return absl::OkStatus();
}

template <typename Word>
absl::Status AesCtrPrg::Run(absl::Span<const uint8_t> seed, int bits, internal::UnpackMode mode,
                            absl::Span<Word> out) {
  if (bits > static_cast<int>(8 * sizeof(Word))) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "PRG value width %d bits does not fit %d-bit words", bits, 8 * sizeof(Word)));
  }
  if (absl::Status s = Start(seed, bits); !s.ok()) return s;
  const size_t chunk_values = GroupsPerChunk(bits) * 8;
  for (size_t done = 0; done < out.size();) {
    const size_t n = std::min(chunk_values, out.size() - done);
    // The next chunk's words are fetched into L2 while AES computes this chunk's keystream
    // (vectors past the L2 cache would otherwise be read at L3 or memory speed when unpacking).
    const size_t ahead = std::min(chunk_values, out.size() - done - n);
    const char* words = reinterpret_cast<const char*>(out.data() + done + n);
    for (size_t line = 0; line < ahead * sizeof(Word); line += 64) {
      __builtin_prefetch(words + line, 1, 2);
    }
    if (absl::Status s = Keystream((n * static_cast<size_t>(bits) + 7) / 8); !s.ok()) return s;
    internal::UnpackBits(mode, buffers_->keystream, n, bits, out.data() + done);
    done += n;
  }
  return absl::OkStatus();
}

absl::Status AesCtrPrg::Expand(absl::Span<const uint8_t> seed, int bits, absl::Span<uint64_t> out) {
  return Run(seed, bits, internal::UnpackMode::kSet, out);
}

absl::Status AesCtrPrg::Expand(absl::Span<const uint8_t> seed, int bits, absl::Span<uint32_t> out) {
  return Run(seed, bits, internal::UnpackMode::kSet, out);
}

absl::Status AesCtrPrg::AddMask(absl::Span<const uint8_t> seed, int bits, MaskOp op,
                                absl::Span<uint64_t> acc) {
  return Run(seed, bits, ModeOf(op), acc);
}

absl::Status AesCtrPrg::AddMask(absl::Span<const uint8_t> seed, int bits, MaskOp op,
                                absl::Span<uint32_t> acc) {
  return Run(seed, bits, ModeOf(op), acc);
}

absl::Status AesCtrPrg::ExpandUniformMod(absl::Span<const uint8_t> seed, uint64_t modulus,
                                         absl::Span<uint64_t> out) {
  if (modulus < 2) {
    return absl::InvalidArgumentError(absl::StrFormat("PRG modulus %d is less than 2", modulus));
  }
  const int bits = std::bit_width(modulus - 1);
  if (absl::Status s = Start(seed, bits); !s.ok()) return s;
  const size_t chunk_values = GroupsPerChunk(bits) * 8;
  const size_t chunk_bytes = GroupsPerChunk(bits) * static_cast<size_t>(bits);
  size_t done = 0;
  while (done < out.size()) {
    if (absl::Status s = Keystream(chunk_bytes); !s.ok()) return s;
    for (size_t i = 0; i < chunk_values && done < out.size(); ++i) {
      const uint64_t candidate = internal::ExtractBits(buffers_->keystream, i, bits);
      if (candidate < modulus) out[done++] = candidate;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint64_t>> ExpandMask(absl::Span<const uint8_t> seed, int bits,
                                                 size_t d) {
  absl::StatusOr<AesCtrPrg> prg = AesCtrPrg::Create();
  if (!prg.ok()) return prg.status();
  std::vector<uint64_t> out(d);
  if (absl::Status s = prg->Expand(seed, bits, absl::MakeSpan(out)); !s.ok()) return s;
  return out;
}

namespace {
template <typename Word>
absl::Status OneShotAddMask(absl::Span<const uint8_t> seed, int bits, MaskOp op,
                            absl::Span<Word> acc) {
  absl::StatusOr<AesCtrPrg> prg = AesCtrPrg::Create();
  if (!prg.ok()) return prg.status();
  return prg->AddMask(seed, bits, op, acc);
}
}  // namespace

absl::Status AddMask(absl::Span<const uint8_t> seed, int bits, MaskOp op,
                     absl::Span<uint64_t> acc) {
  return OneShotAddMask(seed, bits, op, acc);
}

absl::Status AddMask(absl::Span<const uint8_t> seed, int bits, MaskOp op,
                     absl::Span<uint32_t> acc) {
  return OneShotAddMask(seed, bits, op, acc);
}

absl::StatusOr<std::vector<uint64_t>> ExpandUniformMod(absl::Span<const uint8_t> seed,
                                                       uint64_t modulus, size_t d) {
  absl::StatusOr<AesCtrPrg> prg = AesCtrPrg::Create();
  if (!prg.ok()) return prg.status();
  std::vector<uint64_t> out(d);
  if (absl::Status s = prg->ExpandUniformMod(seed, modulus, absl::MakeSpan(out)); !s.ok()) {
    return s;
  }
  return out;
}

}  // namespace fedmf::crypto
