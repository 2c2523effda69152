// File: engine/transfer/file_codec.cc

#include "engine/transfer/file_codec.h"

#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace dynarock::transfer {
namespace {

Status IoError(const std::string& what, const std::string& path) {
  return Status(ErrorType::kInternalServerError,
                what + " " + path + ": " + std::strerror(errno));
}

inline uint32_t Rotl(uint32_t x, int c) { return (x << c) | (x >> (32 - c)); }

constexpr uint32_t kK[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
    0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
    0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
    0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
    0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
    0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
    0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
    0xeb86d391};
constexpr int kShift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                            5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                            4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                            6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

}  // namespace

// ---------------------------------------------------------------- MD5

Md5::Md5() : a_(0x67452301), b_(0xefcdab89), c_(0x98badcfe), d_(0x10325476) {}

void Md5::Block(const uint8_t* p) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i) {
    m[i] = uint32_t(p[i * 4]) | uint32_t(p[i * 4 + 1]) << 8 | uint32_t(p[i * 4 + 2]) << 16 |
           uint32_t(p[i * 4 + 3]) << 24;
  }
  uint32_t a = a_, b = b_, c = c_, d = d_;
  for (int i = 0; i < 64; ++i) {
    uint32_t f;
    int g;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    const uint32_t t = d;
    d = c;
    c = b;
    b = b + Rotl(a + f + kK[i] + m[g], kShift[i]);
    a = t;
  }
  a_ += a;
  b_ += b;
  c_ += c;
  d_ += d;
}

void Md5::Update(std::string_view data) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  length_ += n;
  if (buffered_ > 0) {
    const size_t take = std::min(n, 64 - buffered_);
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    n -= take;
    if (buffered_ < 64) return;
    Block(buffer_);
    buffered_ = 0;
  }
  for (; n >= 64; p += 64, n -= 64) Block(p);
  std::memcpy(buffer_, p, n);
  buffered_ = n;
}

std::array<uint8_t, 16> Md5::Final() {
  const uint64_t bits = length_ * 8;
  const uint8_t pad = 0x80;
  Update(std::string_view(reinterpret_cast<const char*>(&pad), 1));
  const uint8_t zero = 0;
  while (buffered_ != 56) Update(std::string_view(reinterpret_cast<const char*>(&zero), 1));
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(bits >> (8 * i));
  Update(std::string_view(reinterpret_cast<const char*>(len), 8));
  std::array<uint8_t, 16> out;
  const uint32_t words[4] = {a_, b_, c_, d_};
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) out[i * 4 + j] = static_cast<uint8_t>(words[i] >> (8 * j));
  }
  return out;
}

std::string HexString(const uint8_t* p, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    s.push_back(kHex[p[i] >> 4]);
    s.push_back(kHex[p[i] & 15]);
  }
  return s;
}

// ---------------------------------------------------------------- reading

namespace {

constexpr size_t kChunkBytes = 1 << 18;

class PlainReader : public LineReader {
 protected:
  size_t Fill(std::string* out, size_t max) override {
    const size_t old = out->size();
    out->resize(old + max);
    const size_t n = std::fread(out->data() + old, 1, max, file_);
    out->resize(old + n);
    file_bytes_read_ += static_cast<int64_t>(n);
    if (n == 0 && std::ferror(file_)) status_ = Status(ErrorType::kInternalServerError, "read error");
    return n;
  }
};

class GzipReader : public LineReader {
 public:
  GzipReader() {
    std::memset(&z_, 0, sizeof(z_));
    ok_ = inflateInit2(&z_, 15 + 32) == Z_OK;
  }
  ~GzipReader() override { inflateEnd(&z_); }

 protected:
  size_t Fill(std::string* out, size_t max) override {
    if (!ok_) {
      status_ = Status(ErrorType::kInternalServerError, "zlib initialisation failed");
      return 0;
    }
    const size_t old = out->size();
    out->resize(old + max);
    z_.next_out = reinterpret_cast<Bytef*>(out->data() + old);
    z_.avail_out = static_cast<uInt>(max);
    while (z_.avail_out > 0 && !done_) {
      if (z_.avail_in == 0) {
        const size_t n = std::fread(in_, 1, sizeof(in_), file_);
        file_bytes_read_ += static_cast<int64_t>(n);
        if (n == 0) {
          if (!ended_member_) {
            status_ = Status(ErrorType::kValidation, "the gzip data is truncated");
          }
          done_ = true;
          break;
        }
        z_.next_in = in_;
        z_.avail_in = static_cast<uInt>(n);
      }
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        ended_member_ = true;
        inflateReset(&z_);  // another member may follow
      } else if (rc == Z_OK || rc == Z_BUF_ERROR) {
        if (z_.avail_in > 0 || rc == Z_OK) ended_member_ = false;
      } else {
        status_ = Status(ErrorType::kValidation,
                         std::string("the data is not valid gzip: ") + (z_.msg ? z_.msg : "error"));
        done_ = true;
      }
    }
    const size_t produced = max - z_.avail_out;
    out->resize(old + produced);
    return produced;
  }

 private:
  z_stream z_;
  bool ok_ = false;
  bool done_ = false;
  bool ended_member_ = false;
  Bytef in_[kChunkBytes];
};

class ZstdReader : public LineReader {
 public:
  ZstdReader() : stream_(ZSTD_createDStream()) {
    if (stream_ != nullptr) ZSTD_initDStream(stream_);
  }
  ~ZstdReader() override { ZSTD_freeDStream(stream_); }

 protected:
  size_t Fill(std::string* out, size_t max) override {
    if (stream_ == nullptr) {
      status_ = Status(ErrorType::kInternalServerError, "zstd initialisation failed");
      return 0;
    }
    const size_t old = out->size();
    out->resize(old + max);
    ZSTD_outBuffer o{out->data() + old, max, 0};
    while (o.pos < o.size && !done_) {
      if (in_.pos == in_.size) {
        const size_t n = std::fread(buf_, 1, sizeof(buf_), file_);
        file_bytes_read_ += static_cast<int64_t>(n);
        if (n == 0) {
          if (!frame_ended_) status_ = Status(ErrorType::kValidation, "the zstd data is truncated");
          done_ = true;
          break;
        }
        in_ = ZSTD_inBuffer{buf_, n, 0};
      }
      const size_t rc = ZSTD_decompressStream(stream_, &o, &in_);
      if (ZSTD_isError(rc)) {
        status_ = Status(ErrorType::kValidation,
                         std::string("the data is not valid zstd: ") + ZSTD_getErrorName(rc));
        done_ = true;
        break;
      }
      frame_ended_ = rc == 0;
    }
    out->resize(old + o.pos);
    return o.pos;
  }

 private:
  ZSTD_DStream* stream_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  bool done_ = false;
  bool frame_ended_ = true;  // an empty file is an empty stream
  char buf_[kChunkBytes];
};

}  // namespace

StatusOr<std::unique_ptr<LineReader>> LineReader::Open(const std::string& path,
                                                       Compression compression) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return IoError("cannot open", path);
  std::unique_ptr<LineReader> r;
  switch (compression) {
    case Compression::kNone: r = std::make_unique<PlainReader>(); break;
    case Compression::kGzip: r = std::make_unique<GzipReader>(); break;
    case Compression::kZstd: r = std::make_unique<ZstdReader>(); break;
  }
  r->file_ = f;
  return r;
}

bool LineReader::Next(std::string_view* line) {
  for (;;) {
    const size_t nl = buffer_.find('\n', pos_);
    if (nl != std::string::npos) {
      size_t end = nl;
      if (end > pos_ && buffer_[end - 1] == '\r') --end;
      *line = std::string_view(buffer_).substr(pos_, end - pos_);
      pos_ = nl + 1;
      ++line_number_;
      return true;
    }
    if (eof_ || !status_.ok()) {
      if (pos_ < buffer_.size() && status_.ok()) {
        size_t end = buffer_.size();
        if (buffer_[end - 1] == '\r') --end;
        *line = std::string_view(buffer_).substr(pos_, end - pos_);
        pos_ = buffer_.size();
        ++line_number_;
        return true;
      }
      if (file_ != nullptr) {
        std::fclose(file_);
        file_ = nullptr;
      }
      return false;
    }
    buffer_.erase(0, pos_);
    pos_ = 0;
    if (Fill(&buffer_, kChunkBytes) == 0) eof_ = true;
  }
}

// ---------------------------------------------------------------- writing

struct GzipFileWriter::ZState {
  z_stream z;
  char out[kChunkBytes];
};

StatusOr<std::unique_ptr<GzipFileWriter>> GzipFileWriter::Create(const std::string& path) {
  std::unique_ptr<GzipFileWriter> w(new GzipFileWriter());
  w->file_ = std::fopen(path.c_str(), "wb");
  if (w->file_ == nullptr) return IoError("cannot create", path);
  w->z_ = std::make_unique<ZState>();
  std::memset(&w->z_->z, 0, sizeof(w->z_->z));
  if (deflateInit2(&w->z_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status(ErrorType::kInternalServerError, "zlib initialisation failed");
  }
  return w;
}

GzipFileWriter::~GzipFileWriter() {
  if (z_) deflateEnd(&z_->z);
  if (file_ != nullptr) std::fclose(file_);
}

Status GzipFileWriter::Deflate(int flush) {
  z_stream& z = z_->z;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(z_->out);
    z.avail_out = sizeof(z_->out);
    const int rc = deflate(&z, flush);
    if (rc == Z_STREAM_ERROR) return Status(ErrorType::kInternalServerError, "gzip failed");
    const size_t n = sizeof(z_->out) - z.avail_out;
    if (n > 0) {
      if (std::fwrite(z_->out, 1, n, file_) != n) {
        return Status(ErrorType::kInternalServerError,
                      std::string("write failed: ") + std::strerror(errno));
      }
      hasher_.Update(std::string_view(z_->out, n));
      file_bytes_ += static_cast<int64_t>(n);
    }
    if (flush == Z_FINISH ? rc == Z_STREAM_END : (z.avail_in == 0 && z.avail_out != 0)) break;
  }
  return Status();
}

Status GzipFileWriter::Append(std::string_view data) {
  z_->z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z_->z.avail_in = static_cast<uInt>(data.size());
  return Deflate(Z_NO_FLUSH);
}

Status GzipFileWriter::Close() {
  z_->z.next_in = nullptr;
  z_->z.avail_in = 0;
  Status s = Deflate(Z_FINISH);
  md5_ = hasher_.Final();
  if (std::fflush(file_) != 0 && s.ok()) {
    s = Status(ErrorType::kInternalServerError, std::string("write failed: ") + std::strerror(errno));
  }
  std::fclose(file_);
  file_ = nullptr;
  return s;
}

Status WriteFileAtomically(const std::string& path, std::string_view data) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return IoError("cannot create", tmp);
  const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  if (std::fclose(f) != 0 || !ok) return IoError("cannot write", tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return IoError("cannot rename", tmp);
  return Status();
}

}  // namespace dynarock::transfer
