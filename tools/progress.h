// File: tools/progress.h
//
// Progress of long CLI work (backups, restores, exports, imports) on stderr:
// on a terminal one bar redrawn in place (items, bytes, rate, ETA); otherwise
// a plain line at most every five seconds, so that logs stay readable.
//
//   ProgressBar bar("restore t", total_items);
//   while (...) bar.Update(items, bytes);
//   bar.Finish(items, bytes);
//
// ProgressThread draws one from counters that other code moves, on a thread
// of its own, until stopped.

#ifndef DYNAROCK_TOOLS_PROGRESS_H_
#define DYNAROCK_TOOLS_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace dynarock::tools {

class ProgressBar {
 public:
  // A total <= 0 is unknown. The fraction done is by bytes when their total
  // is known, else by items; without either there is no bar and no ETA.
  // `tty`: -1 decides by stderr.
  ProgressBar(std::string label, int64_t total_items, int64_t total_bytes = 0, int tty = -1);
  void set_totals(int64_t total_items, int64_t total_bytes) {
    total_items_ = total_items;
    total_bytes_ = total_bytes;
  }
  void Update(int64_t items, int64_t bytes);
  void Finish(int64_t items, int64_t bytes);

  // "1.5 MB", "12.0 KB", "17 B".
  static std::string Bytes(int64_t n);
  // The line Update draws after `seconds`.
  std::string Line(int64_t items, int64_t bytes, double seconds) const;

 private:
  void Draw(int64_t items, int64_t bytes, bool final);
  std::string label_;
  int64_t total_items_;
  int64_t total_bytes_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  size_t last_width_ = 0;
};

class ProgressThread {
 public:
  // Reads the counters: items and bytes done, and the totals (<= 0: unknown).
  using Read = std::function<void(int64_t* items, int64_t* bytes, int64_t* total_items,
                                  int64_t* total_bytes)>;
  ProgressThread(std::string label, Read read);
  ~ProgressThread() { Stop(); }
  // Stops the thread and draws the final line (once).
  void Stop();

 private:
  void Draw(bool final);
  ProgressBar bar_;
  Read read_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_PROGRESS_H_
