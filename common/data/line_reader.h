// LineReader: streams a text file line by line through one large reusable buffer (no allocation
// per line). Lines come without their "\n" or "\r\n"; a UTF-8 byte order mark at the start of the
// file is dropped. Used by the rating loaders; knows nothing about their formats.
#ifndef FEDMF_COMMON_DATA_LINE_READER_H_
#define FEDMF_COMMON_DATA_LINE_READER_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fedmf::data {

class LineReader {
 public:
  // NotFound (naming the path) if the file does not exist; another error if it cannot be read.
  static absl::StatusOr<LineReader> Open(absl::string_view path);

  // Sets `line` to the next line (valid until the next call) and returns true, or returns false
  // at the end of the file or on a read error; then status() tells which.
  bool Next(absl::string_view& line);

  // 1-based number of the line last returned by Next().
  int64_t line_number() const { return line_number_; }
  const absl::Status& status() const { return status_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  LineReader(std::string path, std::FILE* file);
  // Moves the unread tail to the front and appends more of the file; false at end of file.
  bool Refill();

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::vector<char> buffer_;
  size_t begin_ = 0;  // unread bytes are buffer_[begin_, end_)
  size_t end_ = 0;
  bool at_eof_ = false;
  int64_t line_number_ = 0;
  absl::Status status_;
};

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_LINE_READER_H_
