// File: engine/api/sigv4.cc
//
// SigV4 verification; SHA-256 after FIPS 180-4 section 6.2, HMAC after RFC 2104.

#include "engine/api/sigv4.h"

#include <time.h>

#include <ctime>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "engine/api/base64.h"

namespace dynarock::api {

namespace {

constexpr uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

inline uint32_t Rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

inline uint32_t LoadBe32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

inline char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

const HeaderView* FindHeader(const std::vector<HeaderView>& headers, std::string_view name) {
  for (const auto& h : headers) {
    if (IEquals(h.first, name)) return &h;
  }
  return nullptr;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// "Mon, 09 Sep 2011 23:36:00 GMT" -> "20110909T233600Z"; empty when unparsable.
std::string HttpDateToAmzDate(std::string_view date) {
  std::string s(Trim(date));
  struct tm tm;
  std::memset(&tm, 0, sizeof(tm));
  const char* end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S", &tm);
  if (end == nullptr) return {};
  char buf[32];
  size_t n = strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return std::string(buf, n);
}

bool IsAmzDate(std::string_view d) {
  if (d.size() != 16 || d[8] != 'T' || d[15] != 'Z') return false;
  for (size_t i = 0; i < 15; ++i) {
    if (i == 8) continue;
    if (d[i] < '0' || d[i] > '9') return false;
  }
  return true;
}

// "20150830T123600Z" <-> seconds since the epoch (UTC). PRE: IsAmzDate.
int64_t AmzDateToSeconds(std::string_view d) {
  auto num = [&](size_t pos, size_t len) {
    int v = 0;
    for (size_t i = pos; i < pos + len; ++i) v = v * 10 + (d[i] - '0');
    return v;
  };
  struct tm tm;
  std::memset(&tm, 0, sizeof(tm));
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(4, 2) - 1;
  tm.tm_mday = num(6, 2);
  tm.tm_hour = num(9, 2);
  tm.tm_min = num(11, 2);
  tm.tm_sec = num(13, 2);
  return static_cast<int64_t>(timegm(&tm));
}

std::string SecondsToAmzDate(int64_t seconds) {
  time_t t = static_cast<time_t>(seconds);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  size_t n = strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return std::string(buf, n);
}

// Whether "host" is among the ';'-separated signed headers.
bool SignsHost(std::string_view signed_headers) {
  while (!signed_headers.empty()) {
    size_t semi = signed_headers.find(';');
    std::string_view h = signed_headers.substr(0, semi);
    if (h.size() == 4 && Lower(h[0]) == 'h' && Lower(h[1]) == 'o' && Lower(h[2]) == 's' &&
        Lower(h[3]) == 't') {
      return true;
    }
    if (semi == std::string_view::npos) break;
    signed_headers.remove_prefix(semi + 1);
  }
  return false;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(Lower(a[i]) ^ Lower(b[i]));
  }
  return diff == 0;
}

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

}  // namespace

// ---- SHA-256 ----------------------------------------------------------------

void Sha256::Reset() {
  static constexpr uint32_t kInit[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::memcpy(h_, kInit, sizeof(h_));
  total_ = 0;
  buf_len_ = 0;
}

void Sha256::Block(const uint8_t* p) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i) w[i] = LoadBe32(p + 4 * i);
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = Rotr(w[i - 15], 7) ^ Rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = Rotr(w[i - 2], 17) ^ Rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3];
  uint32_t e = h_[4], f = h_[5], g = h_[6], h = h_[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t S1 = Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = h + S1 + ch + kK[i] + w[i];
    uint32_t S0 = Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = S0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h_[0] += a;
  h_[1] += b;
  h_[2] += c;
  h_[3] += d;
  h_[4] += e;
  h_[5] += f;
  h_[6] += g;
  h_[7] += h;
}

void Sha256::Update(const void* data, size_t len) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  total_ += len;
  if (buf_len_ > 0) {
    size_t take = std::min(len, sizeof(buf_) - buf_len_);
    std::memcpy(buf_ + buf_len_, p, take);
    buf_len_ += take;
    p += take;
    len -= take;
    if (buf_len_ < sizeof(buf_)) return;
    Block(buf_);
    buf_len_ = 0;
  }
  while (len >= 64) {
    Block(p);
    p += 64;
    len -= 64;
  }
  if (len > 0) {
    std::memcpy(buf_, p, len);
    buf_len_ = len;
  }
}

Sha256Digest Sha256::Final() {
  const uint64_t bits = total_ * 8;
  const uint8_t pad = 0x80;
  Update(&pad, 1);
  const uint8_t zero = 0;
  while (buf_len_ != 56) Update(&zero, 1);
  uint8_t len_be[8];
  for (int i = 0; i < 8; ++i) len_be[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
  Update(len_be, 8);
  Sha256Digest out;
  for (int i = 0; i < 8; ++i) {
    out[4 * i] = static_cast<uint8_t>(h_[i] >> 24);
    out[4 * i + 1] = static_cast<uint8_t>(h_[i] >> 16);
    out[4 * i + 2] = static_cast<uint8_t>(h_[i] >> 8);
    out[4 * i + 3] = static_cast<uint8_t>(h_[i]);
  }
  return out;
}

Sha256Digest Sha256::Hash(std::string_view data) {
  Sha256 h;
  h.Update(data);
  return h.Final();
}

Sha256Digest HmacSha256(std::string_view key, std::string_view data) {
  uint8_t k[64] = {0};
  if (key.size() > 64) {
    Sha256Digest kd = Sha256::Hash(key);
    std::memcpy(k, kd.data(), kd.size());
  } else {
    std::memcpy(k, key.data(), key.size());
  }
  uint8_t ipad[64], opad[64];
  for (int i = 0; i < 64; ++i) {
    ipad[i] = k[i] ^ 0x36;
    opad[i] = k[i] ^ 0x5c;
  }
  Sha256 inner;
  inner.Update(ipad, 64);
  inner.Update(data);
  Sha256Digest ih = inner.Final();
  Sha256 outer;
  outer.Update(opad, 64);
  outer.Update(ih.data(), ih.size());
  return outer.Final();
}

std::string HexEncode(const uint8_t* data, size_t len) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(len * 2, '0');
  for (size_t i = 0; i < len; ++i) {
    out[2 * i] = kHex[data[i] >> 4];
    out[2 * i + 1] = kHex[data[i] & 15];
  }
  return out;
}

// ---- Canonical request ----------------------------------------------------------

std::string UriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
        c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string CanonicalUri(std::string_view raw_path) {
  if (raw_path.empty()) return "/";
  // Remove "." and ".." segments (RFC 3986 5.2.4), keeping empty segments.
  std::vector<std::string_view> segments;
  size_t pos = (raw_path.front() == '/') ? 1 : 0;
  bool trailing_slash = false;
  while (pos <= raw_path.size()) {
    size_t slash = raw_path.find('/', pos);
    std::string_view seg =
        raw_path.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
    bool last = slash == std::string_view::npos;
    if (seg == ".") {
      trailing_slash = last;
    } else if (seg == "..") {
      if (!segments.empty()) segments.pop_back();
      trailing_slash = last;
    } else {
      segments.push_back(seg);
      trailing_slash = false;
    }
    if (last) break;
    pos = slash + 1;
  }
  std::string path = "/";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) path.push_back('/');
    path.append(segments[i]);
  }
  if (trailing_slash && path.back() != '/') path.push_back('/');
  return UriEncode(path, /*keep_slash=*/true);
}

std::string CanonicalQueryString(std::string_view raw_query) {
  std::vector<std::pair<std::string, std::string>> params;
  while (!raw_query.empty()) {
    size_t amp = raw_query.find('&');
    std::string_view param = raw_query.substr(0, amp);
    raw_query = amp == std::string_view::npos ? std::string_view() : raw_query.substr(amp + 1);
    if (param.empty()) continue;
    size_t eq = param.find('=');
    std::string_view name = param.substr(0, eq);
    std::string_view value = eq == std::string_view::npos ? std::string_view() : param.substr(eq + 1);
    params.emplace_back(UriEncode(PercentDecode(name), false),
                        UriEncode(PercentDecode(value), false));
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out.push_back('&');
    out.append(name);
    out.push_back('=');
    out.append(value);
  }
  return out;
}

std::string CanonicalHeaders(const std::vector<HeaderView>& headers,
                             std::string_view signed_headers) {
  std::string out;
  while (!signed_headers.empty()) {
    size_t semi = signed_headers.find(';');
    std::string_view name = signed_headers.substr(0, semi);
    signed_headers =
        semi == std::string_view::npos ? std::string_view() : signed_headers.substr(semi + 1);
    if (name.empty()) continue;
    for (char c : name) out.push_back(Lower(c));
    out.push_back(':');
    bool first = true;
    for (const auto& h : headers) {
      if (!IEquals(h.first, name)) continue;
      if (!first) out.push_back(',');
      first = false;
      // Trim, and collapse runs of whitespace into one space.
      std::string_view v = Trim(h.second);
      bool in_space = false;
      for (char c : v) {
        if (IsSpace(c)) {
          in_space = true;
          continue;
        }
        if (in_space) out.push_back(' ');
        in_space = false;
        out.push_back(c);
      }
    }
    out.push_back('\n');
  }
  return out;
}

std::string CanonicalRequest(std::string_view method, std::string_view target,
                             const std::vector<HeaderView>& headers,
                             std::string_view signed_headers, std::string_view payload_hash) {
  size_t q = target.find('?');
  std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  std::string out;
  out.reserve(256);
  out.append(method);
  out.push_back('\n');
  out.append(CanonicalUri(path));
  out.push_back('\n');
  out.append(CanonicalQueryString(query));
  out.push_back('\n');
  out.append(CanonicalHeaders(headers, signed_headers));
  out.push_back('\n');
  out.append(signed_headers);
  out.push_back('\n');
  out.append(payload_hash);
  return out;
}

std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request) {
  std::string out;
  out.reserve(kAlgorithm.size() + amz_date.size() + scope.size() + 64 + 3);
  out.append(kAlgorithm);
  out.push_back('\n');
  out.append(amz_date);
  out.push_back('\n');
  out.append(scope);
  out.push_back('\n');
  out.append(Sha256Hex(canonical_request));
  return out;
}

Sha256Digest DeriveSigningKey(std::string_view secret, std::string_view date,
                              std::string_view region, std::string_view service) {
  std::string k0 = "AWS4";
  k0.append(secret);
  Sha256Digest k = HmacSha256(k0, date);
  auto as_view = [](const Sha256Digest& d) {
    return std::string_view(reinterpret_cast<const char*>(d.data()), d.size());
  };
  k = HmacSha256(as_view(k), region);
  k = HmacSha256(as_view(k), service);
  return HmacSha256(as_view(k), "aws4_request");
}

std::string ComputeSignature(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service,
                             std::string_view string_to_sign) {
  Sha256Digest key = DeriveSigningKey(secret, date, region, service);
  return HexEncode(HmacSha256(
      std::string_view(reinterpret_cast<const char*>(key.data()), key.size()), string_to_sign));
}

// ---- Authorization header ---------------------------------------------------------

Status ParseAuthorization(std::string_view header, bool has_date, ParsedAuthorization* out) {
  *out = ParsedAuthorization();
  std::string_view h = Trim(header);
  if (h.substr(0, 5) != "AWS4-") {
    return Status(ErrorType::kMissingAuthenticationToken, "Request is missing Authentication Token");
  }
  size_t sp = h.find_first_of(" \t");
  out->algorithm = h.substr(0, sp);
  std::string_view rest = sp == std::string_view::npos ? std::string_view() : h.substr(sp + 1);

  // Parameters separated by commas and/or whitespace.
  while (!rest.empty()) {
    size_t start = rest.find_first_not_of(" \t,");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    size_t end = rest.find_first_of(" \t,");
    std::string_view token = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    size_t eq = token.find('=');
    if (eq == std::string_view::npos) {
      Sha256Digest d = Sha256::Hash(h);
      return Status(ErrorType::kIncompleteSignature,
                    "Invalid key=value pair (missing equal-sign) in Authorization header "
                    "(hashed with SHA-256 and encoded with Base64): '" +
                        Base64Encode(std::string_view(reinterpret_cast<const char*>(d.data()),
                                                      d.size())) +
                        "'.");
    }
    std::string_view name = token.substr(0, eq), value = token.substr(eq + 1);
    if (name == "Credential") {
      out->credential = value;
    } else if (name == "SignedHeaders") {
      out->signed_headers = value;
    } else if (name == "Signature") {
      out->signature = value;
    }
  }

  std::string missing;
  if (out->credential.empty()) missing += "Authorization header requires 'Credential' parameter. ";
  if (out->signature.empty()) missing += "Authorization header requires 'Signature' parameter. ";
  if (out->signed_headers.empty()) {
    missing += "Authorization header requires 'SignedHeaders' parameter. ";
  }
  if (!has_date) {
    missing +=
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ";
  }
  if (!missing.empty()) {
    missing += "Authorization=";
    missing.append(h);
    return Status(ErrorType::kIncompleteSignature, std::move(missing));
  }
  if (out->algorithm != kAlgorithm) {
    return Status(ErrorType::kIncompleteSignature,
                  "Unsupported AWS 'algorithm': '" + std::string(out->algorithm) + "'.");
  }

  std::string_view parts[5];
  std::string_view c = out->credential;
  int n = 0;
  while (n < 5) {
    size_t slash = c.find('/');
    parts[n++] = c.substr(0, slash);
    if (slash == std::string_view::npos) {
      c = {};
      break;
    }
    c.remove_prefix(slash + 1);
    if (n == 4) {
      parts[n++] = c;
      c = {};
      break;
    }
  }
  if (n < 5 || parts[0].empty()) {
    return Status(ErrorType::kIncompleteSignature,
                  "Credential must have exactly 5 slash-delimited elements, e.g. "
                  "keyid/date/region/service/term, got '" +
                      std::string(out->credential) + "'");
  }
  if (parts[4] != "aws4_request") {
    return Status(ErrorType::kIncompleteSignature,
                  "Credential should be scoped with a valid terminator: 'aws4_request', not '" +
                      std::string(parts[4]) + "'.");
  }
  out->access_key = parts[0];
  out->date = parts[1];
  out->region = parts[2];
  out->service = parts[3];
  out->terminator = parts[4];
  return Status();
}

// ---- Verifier -----------------------------------------------------------------------

bool AuthConfig::ParseKeySecret(std::string_view spec, AccessKey* out) {
  size_t colon = spec.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= spec.size()) return false;
  out->id = std::string(spec.substr(0, colon));
  out->secret = std::string(spec.substr(colon + 1));
  return true;
}

SigV4Verifier::SigV4Verifier(AuthConfig config) : config_(std::move(config)) {}

const AccessKey* SigV4Verifier::Find(std::string_view id) const {
  for (const auto& k : config_.keys) {
    if (k.id == id) return &k;
  }
  return nullptr;
}

Status SigV4Verifier::Verify(const SigV4Request& req, std::string_view body) const {
  if (!enabled()) return Status();
  const HeaderView* auth = FindHeader(req.headers, "authorization");
  if (auth == nullptr || Trim(auth->second).empty()) {
    return Status(ErrorType::kMissingAuthenticationToken, "Request is missing Authentication Token");
  }
  const HeaderView* amz_date_h = FindHeader(req.headers, "x-amz-date");
  const HeaderView* date_h = amz_date_h ? nullptr : FindHeader(req.headers, "date");

  ParsedAuthorization pa;
  DR_RETURN_IF_ERROR(ParseAuthorization(auth->second, amz_date_h || date_h, &pa));

  const AccessKey* key = Find(pa.access_key);
  if (key == nullptr) {
    return Status(ErrorType::kUnrecognizedClient,
                  "The security token included in the request is invalid.");
  }

  std::string amz_date;
  if (amz_date_h) {
    amz_date = std::string(Trim(amz_date_h->second));
  } else {
    amz_date = HttpDateToAmzDate(date_h->second);
    if (amz_date.empty()) amz_date = std::string(Trim(date_h->second));
  }
  if (!IsAmzDate(amz_date)) {
    return Status(ErrorType::kIncompleteSignature,
                  "Date must be in ISO-8601 'basic format'. Got '" + amz_date +
                      "'. See http://en.wikipedia.org/wiki/ISO_8601");
  }
  if (std::string_view(amz_date).substr(0, 8) != pa.date) {
    return Status(ErrorType::kInvalidSignature,
                  "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of "
                  "date from HTTP: '" +
                      std::string(pa.date) + "' != '" + amz_date.substr(0, 8) + "', from '" +
                      amz_date + "'.");
  }

  if (!config_.service.empty() && pa.service != config_.service) {
    return Status(ErrorType::kInvalidSignature,
                  "Credential should be scoped to correct service: '" + config_.service + "'. ");
  }
  if (!SignsHost(pa.signed_headers)) {
    return Status(ErrorType::kInvalidSignature,
                  "'Host' must be a 'SignedHeader' in the AWS Authorization.");
  }
  if (config_.max_clock_skew_seconds > 0) {
    const int64_t now = config_.now_seconds
                            ? config_.now_seconds()
                            : static_cast<int64_t>(std::time(nullptr));
    const int64_t when = AmzDateToSeconds(amz_date);
    const int64_t skew = config_.max_clock_skew_seconds;
    const std::string minutes = std::to_string(skew / 60) + " min.)";
    if (when < now - skew) {
      return Status(ErrorType::kInvalidSignature,
                    "Signature expired: " + amz_date + " is now earlier than " +
                        SecondsToAmzDate(now - skew) + " (" + SecondsToAmzDate(now) + " - " +
                        minutes);
    }
    if (when > now + skew) {
      return Status(ErrorType::kInvalidSignature,
                    "Signature not yet current: " + amz_date + " is still later than " +
                        SecondsToAmzDate(now + skew) + " (" + SecondsToAmzDate(now) + " + " +
                        minutes);
    }
  }

  static const std::string kMismatch =
      "The request signature we calculated does not match the signature you provided. Check "
      "your AWS Secret Access Key and signing method. Consult the service documentation for "
      "details.";

  std::string body_hash = Sha256Hex(body);
  std::string payload_hash = body_hash;
  if (const HeaderView* ch = FindHeader(req.headers, "x-amz-content-sha256")) {
    std::string_view v = Trim(ch->second);
    if (v == "UNSIGNED-PAYLOAD") {
      payload_hash = std::string(v);
    } else if (!ConstantTimeEquals(v, body_hash)) {
      // The body is not the one the client hashed and signed.
      return Status(ErrorType::kInvalidSignature, kMismatch);
    }
  }

  std::string canonical =
      CanonicalRequest(req.method, req.target, req.headers, pa.signed_headers, payload_hash);
  std::string_view scope = pa.credential.substr(pa.access_key.size() + 1);
  std::string to_sign = StringToSign(amz_date, scope, canonical);

  // Derived keys change once a day per scope: cache them per thread.
  thread_local std::unordered_map<std::string, Sha256Digest> key_cache;
  std::string cache_key = key->secret;
  cache_key.push_back('\0');
  cache_key.append(scope);
  auto it = key_cache.find(cache_key);
  if (it == key_cache.end()) {
    if (key_cache.size() >= 64) key_cache.clear();
    it = key_cache
             .emplace(std::move(cache_key),
                      DeriveSigningKey(key->secret, pa.date, pa.region, pa.service))
             .first;
  }
  std::string expected = HexEncode(HmacSha256(
      std::string_view(reinterpret_cast<const char*>(it->second.data()), it->second.size()),
      to_sign));
  if (!ConstantTimeEquals(expected, pa.signature)) {
    return Status(ErrorType::kInvalidSignature, kMismatch);
  }
  return Status();
}

}  // namespace dynarock::api
