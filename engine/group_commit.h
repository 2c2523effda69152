// File: engine/group_commit.h
//
// The engine's side of group commit (dynarock/group_commit.h): a database
// opened with Options::group_commit (on disk, without sync_writes) runs
// RocksDB with manual_wal_flush, so that a write leaves its log record in
// RocksDB's log buffer. DBImpl::Commit then either has the thread's
// GroupCommit hold the database's LogFlush (HoldOnThisThread), or flushes
// the buffer itself.
//
// A LogFlush outlives its database: a GroupCommit may still hold it when the
// database closes (which flushes and syncs the log itself). Detach() at close
// turns its Flush() into nothing.

#ifndef DYNAROCK_ENGINE_GROUP_COMMIT_H_
#define DYNAROCK_ENGINE_GROUP_COMMIT_H_

#include <functional>
#include <mutex>

#include <rocksdb/db.h>

#include "dynarock/group_commit.h"
#include "dynarock/status.h"

namespace dynarock::internal {

class LogFlush {
 public:
  // `on_error` is told of a failed flush (the database's storage error
  // episode), before Flush() returns it.
  LogFlush(rocksdb::DB* db, std::function<void(const rocksdb::Status&)> on_error)
      : db_(db), on_error_(std::move(on_error)) {}

  // Held by the calling thread's GroupCommit, if one is open (false: none
  // is, and the caller flushes).
  static bool HoldOnThisThread(const std::shared_ptr<LogFlush>& self) {
    return GroupCommit::Hold(self);
  }
  // RocksDB's log buffer to the operating system (no sync).
  Status Flush();
  // At the database's close, before RocksDB's: later flushes do nothing.
  void Detach();

 private:
  std::mutex mu_;
  rocksdb::DB* db_;
  std::function<void(const rocksdb::Status&)> on_error_;
};

}  // namespace dynarock::internal

#endif  // DYNAROCK_ENGINE_GROUP_COMMIT_H_
