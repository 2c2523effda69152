#include "tools/server/http_wire.h"

#include <time.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <random>

namespace dynarock::server::wire {

RequestContext ContextOf(std::string_view authorization) {
  RequestContext c;
  const size_t at = authorization.find("Credential=");
  if (at == std::string_view::npos) return c;
  std::string_view scope = authorization.substr(at + 11);
  scope = scope.substr(0, scope.find_first_of(", "));
  const size_t key_end = scope.find('/');
  if (key_end == std::string_view::npos) return c;
  c.access_key = scope.substr(0, key_end);
  std::string_view rest = scope.substr(key_end + 1);  // date/region/service/aws4_request
  const size_t date_end = rest.find('/');
  if (date_end == std::string_view::npos) return c;
  rest = rest.substr(date_end + 1);
  c.region = rest.substr(0, rest.find('/'));
  return c;
}

std::string_view Reason(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 304: return "Not Modified";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 413: return "Request Entity Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return status < 400 ? "OK" : (status < 500 ? "Bad Request" : "Internal Server Error");
  }
}

// ---- x-amzn-RequestId: 52 characters of [0-9A-Z], unique per process ----

namespace {

uint64_t Mix(uint64_t z) {  // splitmix64's finalizer: a bijection on 64 bits
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct RequestIdSource {
  std::atomic<uint64_t> counter{0};
  uint64_t key1, key2;
  RequestIdSource() {
    std::random_device rd;
    key1 = (uint64_t{rd()} << 32) ^ rd() ^
           static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    key2 = (uint64_t{rd()} << 32) ^ rd();
  }
};

RequestIdSource& IdSource() {
  static RequestIdSource source;
  return source;
}

}  // namespace

// Appends a fresh id. The first 13 characters encode a bijection of a process-wide
// counter, so no two ids of one process are equal; the rest is keyed noise.
void AppendRequestId(std::string* out) {
  static constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
  RequestIdSource& src = IdSource();
  const uint64_t n = src.counter.fetch_add(1, std::memory_order_relaxed);
  uint64_t words[4] = {Mix(n ^ src.key1), Mix(n + src.key2), Mix(n * 3 + src.key1 + src.key2),
                       Mix(~n ^ src.key2)};
  char buf[52];
  int pos = 0;
  for (uint64_t w : words) {
    for (int i = 0; i < 13 && pos < 52; ++i) {
      buf[pos++] = kAlphabet[w & 31];
      w >>= 5;
    }
  }
  out->append(buf, 52);
}

// "Date: ..." value, formatted once per second per thread.
std::string_view HttpDateNow() {
  thread_local time_t cached_sec = 0;
  thread_local char cached[64];
  thread_local size_t cached_len = 0;
  time_t now = time(nullptr);
  if (now != cached_sec) {
    struct tm tm;
    gmtime_r(&now, &tm);
    cached_len = strftime(cached, sizeof(cached), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    cached_sec = now;
  }
  return std::string_view(cached, cached_len);
}

void AppendNumber(std::string* out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

bool IEqualsAscii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

std::string SafeHeaderValue(std::string_view v) {
  std::string out;
  for (char c : v.substr(0, 1024)) {
    if (c >= 0x20 && c < 0x7f) out.push_back(c);
  }
  return out;
}

std::string_view MediaType(std::string_view ct) {
  size_t semi = ct.find(';');
  ct = ct.substr(0, semi);
  while (!ct.empty() && (ct.front() == ' ' || ct.front() == '\t')) ct.remove_prefix(1);
  while (!ct.empty() && (ct.back() == ' ' || ct.back() == '\t')) ct.remove_suffix(1);
  return ct;
}

void AppendPercentEncoded(std::string* out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '%' || c < 0x20 || c >= 0x7f) {
      out->push_back('%');
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(ch);
    }
  }
}

}  // namespace dynarock::server::wire
