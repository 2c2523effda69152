#include "tools/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace dynarock::tools {

ProgressBar::ProgressBar(std::string label, int64_t total_items, int64_t total_bytes, int tty)
    : label_(std::move(label)),
      total_items_(total_items),
      total_bytes_(total_bytes),
      tty_(tty < 0 ? isatty(STDERR_FILENO) != 0 : tty != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

std::string ProgressBar::Bytes(int64_t n) {
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

std::string ProgressBar::Line(int64_t items, int64_t bytes, double seconds) const {
  char buf[256];
  std::string line = label_.empty() ? "" : label_ + " ";
  double frac = -1;
  if (total_bytes_ > 0) {
    frac = std::clamp(static_cast<double>(bytes) / static_cast<double>(total_bytes_), 0.0, 1.0);
  } else if (total_items_ > 0) {
    frac = std::clamp(static_cast<double>(items) / static_cast<double>(total_items_), 0.0, 1.0);
  }
  if (frac >= 0) {
    const int width = 24, filled = static_cast<int>(frac * width);
    std::snprintf(buf, sizeof buf, "%3d%% ", static_cast<int>(frac * 100));
    line += "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " + buf;
  }
  if (total_items_ > 0 && total_bytes_ <= 0) {
    std::snprintf(buf, sizeof buf, "%lld/%lld items", static_cast<long long>(items),
                  static_cast<long long>(total_items_));
  } else {
    std::snprintf(buf, sizeof buf, "%lld items", static_cast<long long>(items));
  }
  line += buf;
  if (bytes > 0) {
    line += ", " + Bytes(bytes);
    if (total_bytes_ > 0) line += " of " + Bytes(total_bytes_);
  }
  const double rate = seconds > 0 ? items / seconds : 0;
  std::snprintf(buf, sizeof buf, ", %.0f items/s", rate);
  line += buf;
  if (frac > 0 && frac < 1 && seconds > 0) {
    std::snprintf(buf, sizeof buf, ", ETA %.0fs", seconds / frac - seconds);
    line += buf;
  }
  return line;
}

void ProgressBar::Draw(int64_t items, int64_t bytes, bool final) {
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

void ProgressBar::Update(int64_t items, int64_t bytes) { Draw(items, bytes, false); }

void ProgressBar::Finish(int64_t items, int64_t bytes) { Draw(items, bytes, true); }

ProgressThread::ProgressThread(std::string label, Read read)
    : bar_(std::move(label), 0), read_(std::move(read)) {
  thread_ = std::thread([this] {
    while (!done_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (!done_.load()) Draw(false);
    }
  });
}

void ProgressThread::Draw(bool final) {
  int64_t items = 0, bytes = 0, total_items = 0, total_bytes = 0;
  read_(&items, &bytes, &total_items, &total_bytes);
  bar_.set_totals(total_items, total_bytes);
  if (final) {
    bar_.Finish(items, bytes);
  } else {
    bar_.Update(items, bytes);
  }
}

void ProgressThread::Stop() {
  if (!thread_.joinable()) return;
  done_ = true;
  thread_.join();
  Draw(true);
}

}  // namespace dynarock::tools
