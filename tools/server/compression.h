// File: tools/server/compression.h
//
// Content-Encoding for the endpoint (zlib): request bodies sent gzip- or
// deflate-compressed are inflated (up to a limit, so a small bomb cannot
// exhaust memory), and responses are compressed when the client accepts it.
//
//   std::string body;
//   InflateResult r = Inflate(raw, ContentCoding::kGzip, 16 << 20, &body);
//   ContentCoding c = PreferredCoding(accept_encoding_header);
//   std::string wire;
//   if (Compress(body, c, &wire)) ...

#ifndef DYNAROCK_TOOLS_SERVER_COMPRESSION_H_
#define DYNAROCK_TOOLS_SERVER_COMPRESSION_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace dynarock::server {

enum class ContentCoding { kIdentity, kGzip, kDeflate, kUnsupported };

// A Content-Encoding header's coding ("gzip", "x-gzip", "deflate",
// "identity"; case-insensitive); kUnsupported for anything else or a chain.
ContentCoding ParseContentEncoding(std::string_view value);

// The coding to answer in for an Accept-Encoding header: gzip, else deflate,
// when accepted with a non-zero q (or by "*"); otherwise identity.
ContentCoding PreferredCoding(std::string_view accept_encoding);

// "gzip" / "deflate".
std::string_view CodingName(ContentCoding coding);

enum class InflateResult { kOk, kCorrupt, kTooLarge };
// Inflates `in` (gzip, or deflate: zlib-wrapped or raw, as clients differ)
// into *out, refusing to produce more than `limit` bytes.
InflateResult Inflate(std::string_view in, ContentCoding coding, size_t limit, std::string* out);

// `in` compressed with gzip or deflate (zlib-wrapped) into *out; false if
// zlib failed (send it uncompressed then).
bool Compress(std::string_view in, ContentCoding coding, std::string* out);

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_COMPRESSION_H_
