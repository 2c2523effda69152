// File: engine/api/base64.h
//
// Standard base64 (RFC 4648 §4, alphabet A-Z a-z 0-9 + /, '=' padding), the
// encoding of DynamoDB's B and BS values on the wire.
//
//   std::string text = Base64Encode("\x01\x02");     // "AQI="
//   std::string bytes;
//   std::string error;
//   if (!Base64Decode(text, &bytes, &error)) { ... error ... }

#ifndef DYNAROCK_API_BASE64_H_
#define DYNAROCK_API_BASE64_H_

#include <string>
#include <string_view>

namespace dynarock::api {

// Appends the padded base64 text of `bytes` to `out`.
void Base64EncodeTo(std::string_view bytes, std::string* out);
std::string Base64Encode(std::string_view bytes);

// Decodes padded base64 strictly: the length must be a multiple of 4, only the
// alphabet is allowed, '=' only as one or two final characters, and the unused low
// bits of the last character must be zero. On failure returns false, leaves `out`
// in an unspecified state and, when `error` is non-null, describes the problem
// (the text of DynamoDB's SerializationException).
bool Base64Decode(std::string_view text, std::string* out, std::string* error = nullptr);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_BASE64_H_
