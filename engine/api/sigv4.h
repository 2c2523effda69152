// File: engine/api/sigv4.h
//
// AWS Signature Version 4 verification for `dynarock serve --require-auth`,
// plus the SHA-256 and HMAC-SHA256 it needs (self-contained: FIPS 180-4 and
// RFC 2104, no crypto library).
//
// A DynamoDB client signs every request with
//   Authorization: AWS4-HMAC-SHA256 Credential=KEY/20150830/us-east-1/dynamodb/aws4_request,
//                  SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=<hex>
// The verifier looks up KEY's secret, rebuilds the canonical request from the
// method, path, query, the signed headers and the SHA-256 of the body, hashes it
// into the string to sign, derives the signing key from the secret and the
// credential scope, and compares the HMAC with the signature given.
//
//   SigV4Verifier verifier({{"AKIDEXAMPLE", "secret"}});
//   SigV4Request req{"POST", "/", headers};
//   Status s = verifier.Verify(req, body);   // OK, or the DynamoDB auth error
//
// Nothing here includes Boost: the HTTP server adapts its request to a
// SigV4Request (a few string_views) only when auth is required.

#ifndef DYNAROCK_ENGINE_API_SIGV4_H_
#define DYNAROCK_ENGINE_API_SIGV4_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::api {

// ---- Hashing ----------------------------------------------------------------

using Sha256Digest = std::array<uint8_t, 32>;

// Incremental SHA-256 (FIPS 180-4).
class Sha256 {
 public:
  Sha256() { Reset(); }
  void Reset();
  void Update(const void* data, size_t len);
  void Update(std::string_view s) { Update(s.data(), s.size()); }
  Sha256Digest Final();  // the object must be Reset() before reuse

  static Sha256Digest Hash(std::string_view data);

 private:
  void Block(const uint8_t* p);
  uint32_t h_[8];
  uint64_t total_ = 0;  // bytes hashed so far
  uint8_t buf_[64];
  size_t buf_len_ = 0;
};

// HMAC-SHA256 (RFC 2104).
Sha256Digest HmacSha256(std::string_view key, std::string_view data);

// Lowercase hex.
std::string HexEncode(const uint8_t* data, size_t len);
inline std::string HexEncode(const Sha256Digest& d) { return HexEncode(d.data(), d.size()); }
inline std::string Sha256Hex(std::string_view data) { return HexEncode(Sha256::Hash(data)); }

// ---- The signing steps (exposed for tests and for clients that sign) --------

// One header of a request, as received (any case; the value untrimmed).
using HeaderView = std::pair<std::string_view, std::string_view>;

// A view of the HTTP request the verifier needs.
struct SigV4Request {
  std::string_view method;  // "POST"
  std::string_view target;  // the raw request-target: "/" or "/path?a=b"
  std::vector<HeaderView> headers;
};

// The AWS URI encoding: every byte but A-Z a-z 0-9 - _ . ~ as %XX (uppercase);
// '/' kept when keep_slash.
std::string UriEncode(std::string_view s, bool keep_slash);

// Canonical URI of a raw path (non-S3 rules: dot segments removed, each byte
// URI-encoded, so an already-encoded "%2F" becomes "%252F"). Empty -> "/".
std::string CanonicalUri(std::string_view raw_path);

// Canonical query string: parameters decoded, re-encoded strictly, sorted by
// name then value, joined with '&'.
std::string CanonicalQueryString(std::string_view raw_query);

// Canonical headers block ("name:value\n" for each signed header, values trimmed
// and inner runs of spaces collapsed, several occurrences joined with ',').
// `signed_headers` is the ';'-separated lowercase list from the Authorization header.
std::string CanonicalHeaders(const std::vector<HeaderView>& headers,
                             std::string_view signed_headers);

std::string CanonicalRequest(std::string_view method, std::string_view target,
                             const std::vector<HeaderView>& headers,
                             std::string_view signed_headers, std::string_view payload_hash);

// "AWS4-HMAC-SHA256\n<amz_date>\n<scope>\n<hex sha256 of canonical request>".
std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request);

// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
Sha256Digest DeriveSigningKey(std::string_view secret, std::string_view date,
                              std::string_view region, std::string_view service);

// Hex signature of a string to sign under the derived key.
std::string ComputeSignature(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service,
                             std::string_view string_to_sign);

// ---- The Authorization header -------------------------------------------------

struct ParsedAuthorization {
  std::string_view algorithm;       // "AWS4-HMAC-SHA256"
  std::string_view credential;      // "KEY/20150830/us-east-1/dynamodb/aws4_request"
  std::string_view signed_headers;  // "host;x-amz-date"
  std::string_view signature;       // hex
  // The credential's parts.
  std::string_view access_key, date, region, service, terminator;
};

// Parses "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...".
// `has_date` says whether the request carries X-Amz-Date or Date (DynamoDB
// reports a missing date among the header's missing parts). Errors:
// MissingAuthenticationToken (not an AWS4 header), IncompleteSignature
// (missing or malformed parts, with DynamoDB's wording).
Status ParseAuthorization(std::string_view header, bool has_date, ParsedAuthorization* out);

// ---- The verifier ---------------------------------------------------------------

struct AccessKey {
  std::string id;
  std::string secret;
};

// Credentials accepted by `--require-auth`. Empty: no verification at all (any
// credentials, or none, are accepted, as DynamoDB Local does).
struct AuthConfig {
  std::vector<AccessKey> keys;
  // The service the credential scope must name ("Credential should be scoped to
  // correct service"); empty accepts any (for SigV4's generic test vectors).
  std::string service = "dynamodb";
  // How far the request's date may be from now, either way, in seconds
  // ("Signature expired" / "Signature not yet current"); 0 skips the check.
  int64_t max_clock_skew_seconds = 300;
  // Now, in seconds since the epoch; empty uses the system clock (tests fix it).
  std::function<int64_t()> now_seconds;
  bool enabled() const { return !keys.empty(); }
  // Parses "KEY:SECRET" (the secret may itself contain ':').
  static bool ParseKeySecret(std::string_view spec, AccessKey* out);
};

class SigV4Verifier {
 public:
  explicit SigV4Verifier(AuthConfig config = {});

  bool enabled() const { return config_.enabled(); }

  // OK when authentication is disabled or the signature verifies; otherwise
  // MissingAuthenticationToken, IncompleteSignature, UnrecognizedClient or
  // InvalidSignature with DynamoDB's messages. Thread-safe.
  Status Verify(const SigV4Request& req, std::string_view body) const;

 private:
  const AccessKey* Find(std::string_view id) const;
  AuthConfig config_;
};

}  // namespace dynarock::api

#endif  // DYNAROCK_ENGINE_API_SIGV4_H_
