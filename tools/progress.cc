#include "tools/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace dynarock::tools {

Progress::Progress(std::string label, int64_t total_items, int tty)
    : label_(std::move(label)),
      total_(total_items),
      tty_(tty < 0 ? isatty(STDERR_FILENO) != 0 : tty != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

std::string Progress::Bytes(int64_t n) {
  char buf[32];
  if (n < 1024) {
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(n));
  } else if (n < (1 << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f KB", n / 1024.0);
  } else if (n < (1ll << 30)) {
    std::snprintf(buf, sizeof buf, "%.1f MB", n / 1048576.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GB", n / 1073741824.0);
  }
  return buf;
}

std::string Progress::Line(int64_t items, int64_t bytes, double seconds) const {
  char buf[256];
  std::string line = label_ + " ";
  if (total_ > 0) {
    const double frac = std::clamp(static_cast<double>(items) / static_cast<double>(total_), 0.0, 1.0);
    const int width = 24, filled = static_cast<int>(frac * width);
    line += "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] ";
    std::snprintf(buf, sizeof buf, "%3d%% %lld/%lld items", static_cast<int>(frac * 100),
                  static_cast<long long>(items), static_cast<long long>(total_));
  } else {
    std::snprintf(buf, sizeof buf, "%lld items", static_cast<long long>(items));
  }
  line += buf;
  if (bytes > 0) line += ", " + Bytes(bytes);
  const double rate = seconds > 0 ? items / seconds : 0;
  std::snprintf(buf, sizeof buf, ", %.0f items/s", rate);
  line += buf;
  if (total_ > 0 && rate > 0 && items < total_) {
    std::snprintf(buf, sizeof buf, ", ETA %.0fs", (total_ - items) / rate);
    line += buf;
  }
  return line;
}

void Progress::Draw(int64_t items, int64_t bytes, bool final) {
  const auto now = std::chrono::steady_clock::now();
  const double since_draw = std::chrono::duration<double>(now - last_draw_).count();
  if (!final && since_draw < (tty_ ? 0.1 : 5.0)) return;
  last_draw_ = now;
  const std::string line = Line(items, bytes, std::chrono::duration<double>(now - start_).count());
  if (tty_) {
    std::string padded = line;
    if (padded.size() < last_width_) padded.append(last_width_ - padded.size(), ' ');
    last_width_ = line.size();
    std::fprintf(stderr, "\r%s%s", padded.c_str(), final ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void Progress::Update(int64_t items, int64_t bytes) { Draw(items, bytes, false); }

void Progress::Finish(int64_t items, int64_t bytes) { Draw(items, bytes, true); }

}  // namespace dynarock::tools
