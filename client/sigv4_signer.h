// File: client/sigv4_signer.h
//
// AWS Signature Version 4 signing of a DynamoDB JSON request, for HttpClient.
// The hashing and the canonical-request steps are those of the server's verifier
// (engine/api/sigv4.h), so the signer and the verifier cannot disagree.
//
//   SigV4Signer signer({"AKID", "secret", ""}, "us-east-1", "dynamodb");
//   std::vector<std::pair<std::string, std::string>> headers = {
//       {"host", "127.0.0.1:8000"},
//       {"content-type", "application/x-amz-json-1.0"},
//       {"x-amz-target", "DynamoDB_20120810.GetItem"}};
//   signer.Sign("POST", "/", body, std::chrono::system_clock::now(), &headers);
//   // headers now also hold x-amz-date, (x-amz-security-token,) authorization.

#ifndef DYNAROCK_CLIENT_SIGV4_SIGNER_H_
#define DYNAROCK_CLIENT_SIGV4_SIGNER_H_

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dynarock::client {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty unless temporary (STS) credentials

  // AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; false when the
  // key or the secret is missing.
  static bool FromEnvironment(AwsCredentials* out);
  // The shared credentials file ($AWS_SHARED_CREDENTIALS_FILE, else
  // ~/.aws/credentials), profile $AWS_PROFILE (else "default"):
  // aws_access_key_id, aws_secret_access_key, aws_session_token. False when the
  // file, the profile, the key or the secret is missing.
  static bool FromProfile(AwsCredentials* out);
};

class SigV4Signer {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;

  SigV4Signer(AwsCredentials credentials, std::string region, std::string service = "dynamodb");

  // Signs the request: every header already in `headers` is signed (names are
  // lowercased for signing; "host" must be there). Appends x-amz-date,
  // x-amz-security-token (with a session token) and authorization.
  void Sign(std::string_view method, std::string_view target, std::string_view body,
            std::chrono::system_clock::time_point now, Headers* headers) const;

  // "20150830T123600Z" for a time point (UTC).
  static std::string AmzDate(std::chrono::system_clock::time_point t);

  const std::string& region() const { return region_; }

 private:
  AwsCredentials credentials_;
  std::string region_;
  std::string service_;
};

}  // namespace dynarock::client

#endif  // DYNAROCK_CLIENT_SIGV4_SIGNER_H_
