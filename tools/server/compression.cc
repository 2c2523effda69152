#include "tools/server/compression.h"

#include <zlib.h>

#include <cctype>
#include <cstdlib>

namespace dynarock::server {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// One inflate pass with zlib's window bits `bits` (31 gzip, 15 zlib, -15 raw).
InflateResult InflateWith(std::string_view in, int bits, size_t limit, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, bits) != Z_OK) return InflateResult::kCorrupt;
  out->clear();
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  char chunk[64 * 1024];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    const size_t produced = sizeof chunk - z.avail_out;
    if (out->size() + produced > limit) {
      inflateEnd(&z);
      return InflateResult::kTooLarge;
    }
    out->append(chunk, produced);
    if (rc == Z_OK && produced == 0 && z.avail_in == 0) break;  // truncated
  }
  const bool whole = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  return whole ? InflateResult::kOk : InflateResult::kCorrupt;
}

}  // namespace

ContentCoding ParseContentEncoding(std::string_view value) {
  const std::string v = Lower(Trim(value));
  if (v.empty() || v == "identity") return ContentCoding::kIdentity;
  if (v == "gzip" || v == "x-gzip") return ContentCoding::kGzip;
  if (v == "deflate") return ContentCoding::kDeflate;
  return ContentCoding::kUnsupported;
}

ContentCoding PreferredCoding(std::string_view accept_encoding) {
  bool gzip = false, deflate = false, any = false;
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? std::string_view()
                                                      : accept_encoding.substr(comma + 1);
    const size_t semi = item.find(';');
    const std::string coding = Lower(Trim(item.substr(0, semi)));
    bool accepted = true;
    if (semi != std::string_view::npos) {
      std::string params = Lower(Trim(item.substr(semi + 1)));
      if (params.rfind("q=", 0) == 0) accepted = std::strtod(params.c_str() + 2, nullptr) > 0;
    }
    if (!accepted) continue;
    if (coding == "gzip" || coding == "x-gzip") gzip = true;
    else if (coding == "deflate") deflate = true;
    else if (coding == "*") any = true;
  }
  if (gzip || any) return ContentCoding::kGzip;
  if (deflate) return ContentCoding::kDeflate;
  return ContentCoding::kIdentity;
}

std::string_view CodingName(ContentCoding coding) {
  return coding == ContentCoding::kGzip ? "gzip" : coding == ContentCoding::kDeflate ? "deflate" : "identity";
}

InflateResult Inflate(std::string_view in, ContentCoding coding, size_t limit, std::string* out) {
  if (coding == ContentCoding::kGzip) return InflateWith(in, 31, limit, out);
  // "deflate" is zlib-wrapped by the standard, raw from some clients.
  InflateResult r = InflateWith(in, 15, limit, out);
  if (r == InflateResult::kCorrupt) r = InflateWith(in, -15, limit, out);
  return r;
}

bool Compress(std::string_view in, ContentCoding coding, std::string* out) {
  z_stream z{};
  const int bits = coding == ContentCoding::kGzip ? 31 : 15;
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return false;
  }
  out->resize(deflateBound(&z, static_cast<uLong>(in.size())));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out->data());
  z.avail_out = static_cast<uInt>(out->size());
  const int rc = deflate(&z, Z_FINISH);
  out->resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END;
}

}  // namespace dynarock::server
