// File: engine/time_text.cc

#include "engine/time_text.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <random>

namespace dynarock {

std::string Iso8601Millis(int64_t epoch_ms) {
  // Floor division, so that times before the epoch keep a positive fraction.
  const int64_t seconds = epoch_ms >= 0 ? epoch_ms / 1000 : -((-epoch_ms + 999) / 1000);
  const int milli = static_cast<int>(epoch_ms - seconds * 1000);
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, milli);
  return buf;
}

std::optional<int64_t> ParseIso8601Millis(std::string_view s) {
  int y, mo, d, h, mi, sec;
  char tail[32] = {0};
  const std::string text(s.substr(0, 64));
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%31s", &y, &mo, &d, &h, &mi, &sec, tail) < 6) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  std::string_view rest(tail);
  int64_t ms = 0;
  if (!rest.empty() && rest[0] == '.') {
    size_t i = 1;
    int64_t scale = 100;
    for (; i < rest.size() && rest[i] >= '0' && rest[i] <= '9'; ++i) {
      ms += (rest[i] - '0') * scale;
      scale /= 10;
    }
    if (i == 1) return std::nullopt;
    rest.remove_prefix(i);
  }
  if (rest != "Z" && rest != "+00:00" && !rest.empty()) return std::nullopt;
  // Days from the civil date (proleptic Gregorian).
  const int yy = y - (mo <= 2);
  const int era = (yy >= 0 ? yy : yy - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(yy - era * 400);
  const unsigned doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + static_cast<unsigned>(d) - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = static_cast<int64_t>(era) * 146097 + static_cast<int64_t>(doe) - 719468;
  return ((days * 24 + h) * 60 + mi) * 60000 + static_cast<int64_t>(sec) * 1000 + ms;
}

std::string TimestampedId(int64_t epoch_ms) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  char buf[40];
  std::snprintf(buf, sizeof buf, "%014" PRId64 "-%08x", epoch_ms,
                static_cast<unsigned>(rng() & 0xffffffffu));
  return buf;
}

}  // namespace dynarock
