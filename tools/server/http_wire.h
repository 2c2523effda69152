// File: tools/server/http_wire.h
//
// The endpoint's HTTP wire details that need no Boost: reason phrases,
// x-amzn-RequestId values, Date values, the credential scope of an
// Authorization header, and header values safe to echo or carry JSON.

#ifndef DYNAROCK_TOOLS_SERVER_HTTP_WIRE_H_
#define DYNAROCK_TOOLS_SERVER_HTTP_WIRE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "tools/server/http_server.h"

namespace dynarock::server::wire {

// The access key and region of "AWS4-HMAC-SHA256 Credential=AKID/20240101/
// us-east-1/dynamodb/aws4_request, SignedHeaders=..., Signature=..." (empty
// when the header has no credential scope).
RequestContext ContextOf(std::string_view authorization);

// The reason phrase of an HTTP status.
std::string_view Reason(int status);

// Appends a fresh x-amzn-RequestId: 52 characters of [0-9A-V], unique per process.
void AppendRequestId(std::string* out);

// The "Date:" value now, formatted once per second per thread.
std::string_view HttpDateNow();

void AppendNumber(std::string* out, uint64_t v);

// ASCII case-insensitive equality.
bool IEqualsAscii(std::string_view a, std::string_view b);

// A header value as it may be echoed: printable ASCII only, at most 1 KB
// (nothing a client sends can split the response's headers).
std::string SafeHeaderValue(std::string_view v);

// The media type of a Content-Type value, without parameters and spaces.
std::string_view MediaType(std::string_view ct);

// Appends `text` (a JSON line, any bytes) as a header value: '%', controls and
// bytes past ASCII percent-encoded, which decodeURIComponent undoes.
void AppendPercentEncoded(std::string* out, std::string_view text);

}  // namespace dynarock::server::wire

#endif  // DYNAROCK_TOOLS_SERVER_HTTP_WIRE_H_
