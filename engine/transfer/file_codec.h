// File: engine/transfer/file_codec.h
//
// The byte level of exports and imports: MD5 (the manifests' md5Checksum and
// etag), compressed files read as lines (NONE, GZIP, ZSTD: ImportTable's
// InputCompressionType) and a gzip file writer (exports' data/*.json.gz).
// Internal to engine/transfer.

#ifndef DYNAROCK_TRANSFER_FILE_CODEC_H_
#define DYNAROCK_TRANSFER_FILE_CODEC_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "dynarock/status.h"

namespace dynarock::transfer {

// RFC 1321.
class Md5 {
 public:
  Md5();
  void Update(std::string_view data);
  std::array<uint8_t, 16> Final();

 private:
  void Block(const uint8_t* p);
  uint32_t a_, b_, c_, d_;
  uint64_t length_ = 0;
  uint8_t buffer_[64];
  size_t buffered_ = 0;
};

enum class Compression { kNone, kGzip, kZstd };

// Reads a file's lines (without their "\n" or "\r\n"), decompressing as it
// goes. A gzip file may hold several members (as `cat a.gz b.gz` makes).
class LineReader {
 public:
  static StatusOr<std::unique_ptr<LineReader>> Open(const std::string& path,
                                                    Compression compression);
  virtual ~LineReader() = default;
  // The next line into *line (valid until the next call); false at the end
  // or on an error (see status()).
  bool Next(std::string_view* line);
  // Not OK when the file could not be read or decompressed.
  const Status& status() const { return status_; }
  // Bytes of the file (compressed) consumed so far.
  int64_t file_bytes_read() const { return file_bytes_read_; }
  // 1-based number of the line Next returned last.
  int64_t line_number() const { return line_number_; }

 protected:
  LineReader() = default;
  // Appends up to about `max` decompressed bytes to *out; 0 at the end.
  virtual size_t Fill(std::string* out, size_t max) = 0;

  std::FILE* file_ = nullptr;
  Status status_;
  int64_t file_bytes_read_ = 0;

 private:
  std::string buffer_;
  size_t pos_ = 0;
  bool eof_ = false;
  int64_t line_number_ = 0;
};

// Writes a gzip file, keeping the MD5 and size of the bytes written to disk.
class GzipFileWriter {
 public:
  static StatusOr<std::unique_ptr<GzipFileWriter>> Create(const std::string& path);
  ~GzipFileWriter();
  Status Append(std::string_view data);
  // Flushes and closes; the writer is then spent.
  Status Close();
  // Of the compressed file, after Close.
  const std::array<uint8_t, 16>& md5() const { return md5_; }
  int64_t file_bytes() const { return file_bytes_; }

 private:
  GzipFileWriter() = default;
  Status Deflate(int flush);
  struct ZState;
  std::unique_ptr<ZState> z_;
  std::FILE* file_ = nullptr;
  Md5 hasher_;
  std::array<uint8_t, 16> md5_{};
  int64_t file_bytes_ = 0;
};

// Writes `data` to `path` whole (through a temporary file and a rename).
Status WriteFileAtomically(const std::string& path, std::string_view data);

std::string HexString(const uint8_t* p, size_t n);

}  // namespace dynarock::transfer

#endif  // DYNAROCK_TRANSFER_FILE_CODEC_H_
