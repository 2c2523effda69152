// File: dynarock/group_commit.h
//
// Group commit: many writes' log records handed to the operating system in
// one write, for a server that answers many clients from one thread.
//
// A database opened with Options::group_commit writes each write's record to
// its write-ahead log in memory first. On a thread with a GroupCommit open,
// the write returns with its record still there, and the GroupCommit holds
// it; Flush() hands every held record to the operating system at once. From
// then on the writes survive a crash of the process, as every write does
// without group commit. A write on a thread without a GroupCommit is handed
// over before it returns, as without the option.
//
// So a server answers a write only after a Flush() that returned OK. Until
// then its reader on the same thread waits too; a reader on another thread
// may already see the write (and a crash of the process before the Flush
// would take it back).
//
//   dynarock::GroupCommit commit([&] { post_to_this_loop(flush_and_answer); });
//   ...requests write...
//   // flush_and_answer:
//   dynarock::Status s = commit.Flush();  // then answer, or fail, the writes
//
// Not thread-safe: a GroupCommit belongs to the thread that made it, and is
// ended there.

#ifndef DYNAROCK_GROUP_COMMIT_H_
#define DYNAROCK_GROUP_COMMIT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "dynarock/status.h"

namespace dynarock {

namespace internal {
class LogFlush;
}  // namespace internal

class GroupCommit {
 public:
  // Opens on the calling thread, in front of the one open there (if any),
  // which is back when this one ends. `on_hold` runs, on this thread, inside
  // the write that finds nothing held: the owner schedules Flush() there (a
  // write's own call to Flush() would flush before its caller has answered).
  explicit GroupCommit(std::function<void()> on_hold = {});
  // Flushes what is still held.
  ~GroupCommit();
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  // Something waits for Flush().
  bool holding() const { return !held_.empty(); }
  // Writes held since this GroupCommit opened (how a caller tells that a
  // call of its own wrote: the count moved).
  uint64_t holds() const { return holds_; }
  // Hands the held records to the operating system; the first error, if
  // any (then the databases concerned refuse writes until the storage
  // works again, and the held writes must be answered as failed).
  Status Flush();

 private:
  // A database's write asks (internal::LogFlush::HoldOnThisThread): held if
  // a GroupCommit is open on this thread (false: none is; it flushes itself).
  friend class internal::LogFlush;
  static bool Hold(const std::shared_ptr<internal::LogFlush>& log);

  std::function<void()> on_hold_;
  std::vector<std::shared_ptr<internal::LogFlush>> held_;
  uint64_t holds_ = 0;
  GroupCommit* outer_ = nullptr;
};

}  // namespace dynarock

#endif  // DYNAROCK_GROUP_COMMIT_H_
