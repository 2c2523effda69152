// File: client/sigv4_signer.cc
//
// The four SigV4 steps (AWS General Reference, "Create a signed AWS API request"):
// canonical request -> string to sign -> signing key -> signature, then the
// Authorization header "AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/SERVICE/
// aws4_request, SignedHeaders=a;b;c, Signature=hex".

#include "client/sigv4_signer.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

#include "engine/api/sigv4.h"

namespace dynarock::client {

bool AwsCredentials::FromEnvironment(AwsCredentials* out) {
  const char* key = std::getenv("AWS_ACCESS_KEY_ID");
  const char* secret = std::getenv("AWS_SECRET_ACCESS_KEY");
  if (key == nullptr || secret == nullptr || *key == '\0' || *secret == '\0') return false;
  out->access_key_id = key;
  out->secret_access_key = secret;
  const char* token = std::getenv("AWS_SESSION_TOKEN");
  out->session_token = token != nullptr ? token : "";
  return true;
}

bool AwsCredentials::FromProfile(AwsCredentials* out) {
  std::string path;
  if (const char* f = std::getenv("AWS_SHARED_CREDENTIALS_FILE"); f != nullptr && *f) {
    path = f;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home) {
    path = std::string(home) + "/.aws/credentials";
  } else {
    return false;
  }
  const char* p = std::getenv("AWS_PROFILE");
  const std::string profile = p != nullptr && *p ? p : "default";
  std::ifstream in(path);
  if (!in) return false;
  auto trim = [](std::string s) {
    const char* ws = " \t\r";
    s.erase(0, s.find_first_not_of(ws));
    s.erase(s.find_last_not_of(ws) + 1);
    return s;
  };
  AwsCredentials found;
  bool in_profile = false;
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      in_profile = trim(line.substr(1, line.size() - 2)) == profile;
      continue;
    }
    const size_t eq = line.find('=');
    if (!in_profile || eq == std::string::npos) continue;
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key == "aws_access_key_id") found.access_key_id = value;
    if (key == "aws_secret_access_key") found.secret_access_key = value;
    if (key == "aws_session_token") found.session_token = value;
  }
  if (found.access_key_id.empty() || found.secret_access_key.empty()) return false;
  *out = std::move(found);
  return true;
}

SigV4Signer::SigV4Signer(AwsCredentials credentials, std::string region, std::string service)
    : credentials_(std::move(credentials)),
      region_(std::move(region)),
      service_(std::move(service)) {}

std::string SigV4Signer::AmzDate(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

void SigV4Signer::Sign(std::string_view method, std::string_view target, std::string_view body,
                       std::chrono::system_clock::time_point now, Headers* headers) const {
  const std::string amz_date = AmzDate(now);
  const std::string date = amz_date.substr(0, 8);
  headers->emplace_back("x-amz-date", amz_date);
  if (!credentials_.session_token.empty()) {
    headers->emplace_back("x-amz-security-token", credentials_.session_token);
  }

  // Signed headers: all of them, lowercase, sorted, unique.
  std::vector<std::string> names;
  names.reserve(headers->size());
  for (const auto& [name, value] : *headers) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    names.push_back(std::move(lower));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string signed_headers;
  for (const std::string& n : names) {
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += n;
  }

  std::vector<api::HeaderView> views;
  views.reserve(headers->size());
  for (const auto& [name, value] : *headers) views.emplace_back(name, value);

  const std::string canonical = api::CanonicalRequest(method, target, views, signed_headers,
                                                         api::Sha256Hex(body));
  const std::string scope = date + "/" + region_ + "/" + service_ + "/aws4_request";
  const std::string string_to_sign = api::StringToSign(amz_date, scope, canonical);
  const std::string signature = api::ComputeSignature(credentials_.secret_access_key, date,
                                                         region_, service_, string_to_sign);
  headers->emplace_back("authorization", "AWS4-HMAC-SHA256 Credential=" +
                                             credentials_.access_key_id + "/" + scope +
                                             ", SignedHeaders=" + signed_headers +
                                             ", Signature=" + signature);
}

}  // namespace dynarock::client
