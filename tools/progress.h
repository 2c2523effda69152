// File: tools/progress.h
//
// Progress of long CLI work (backups, restores, exports, imports) on stderr:
// on a terminal one bar redrawn in place (items, bytes, rate, ETA); otherwise
// a plain line at most every few seconds, so that logs stay readable.
//
//   Progress p("restore", total_items);
//   while (...) p.Update(items, bytes);
//   p.Finish(items, bytes);

#ifndef DYNAROCK_TOOLS_PROGRESS_H_
#define DYNAROCK_TOOLS_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace dynarock::tools {

class Progress {
 public:
  // `total_items` <= 0: unknown (no bar, no ETA). `tty`: -1 decides by stderr.
  Progress(std::string label, int64_t total_items, int tty = -1);
  void Update(int64_t items, int64_t bytes);
  void Finish(int64_t items, int64_t bytes);

  // "1.5 MB", "12.0 KB", "17 B".
  static std::string Bytes(int64_t n);
  // The line Update draws, for tests.
  std::string Line(int64_t items, int64_t bytes, double seconds) const;

 private:
  void Draw(int64_t items, int64_t bytes, bool final);
  std::string label_;
  int64_t total_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  size_t last_width_ = 0;
};

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_PROGRESS_H_
