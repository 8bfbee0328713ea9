#include "common/data/line_reader.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace fedmf::data {
namespace {

constexpr size_t kInitialBuffer = size_t{1} << 20;
constexpr absl::string_view kUtf8Bom = "\xEF\xBB\xBF";

}  // namespace

absl::StatusOr<LineReader> LineReader::Open(absl::string_view path) {
  std::string p(path);
  errno = 0;
  std::FILE* file = std::fopen(p.c_str(), "rb");
  if (file == nullptr) {
    const int error = errno;
    return absl::Status(absl::ErrnoToStatusCode(error),
                        absl::StrCat("cannot open '", p, "': ", std::strerror(error)));
  }
  return LineReader(std::move(p), file);
}

LineReader::LineReader(std::string path, std::FILE* file)
    : path_(std::move(path)), file_(file), buffer_(kInitialBuffer) {}

bool LineReader::Refill() {
  if (at_eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  // A line longer than the buffer: grow it.
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  const size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_.get());
  end_ += got;
  if (got == 0) {
    at_eof_ = true;
    if (std::ferror(file_.get())) {
      const int error = errno;
      status_ = absl::Status(absl::ErrnoToStatusCode(error),
                             absl::StrCat("cannot read '", path_, "' after line ", line_number_,
                                          ": ", std::strerror(error)));
    }
    return false;
  }
  return true;
}

bool LineReader::Next(absl::string_view& line) {
  if (!status_.ok()) return false;
  size_t scanned = begin_;  // bytes before this are known to hold no '\n'
  while (true) {
    const char* data = buffer_.data();
    const void* nl = std::memchr(data + scanned, '\n', end_ - scanned);
    size_t line_end;
    size_t next_begin;
    if (nl != nullptr) {
      line_end = static_cast<const char*>(nl) - data;
      next_begin = line_end + 1;
    } else {
      const size_t offset = scanned - begin_;
      if (Refill()) {
        scanned = begin_ + offset;
        continue;
      }
      if (!status_.ok() || begin_ == end_) return false;
      line_end = end_;  // last line without a final newline
      next_begin = end_;
    }
    line = absl::string_view(buffer_.data() + begin_, line_end - begin_);
    begin_ = next_begin;
    break;
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line_number_ == 0 && absl::StartsWith(line, kUtf8Bom)) line.remove_prefix(kUtf8Bom.size());
  ++line_number_;
  return true;
}

}  // namespace fedmf::data
