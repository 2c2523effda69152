// File: engine/fresh_directory.h
//
// Creating a new data directory with one pass of syncs at the end instead of
// RocksDB's seventeen along the way.
//
// RocksDB makes a new database durable step by step: IDENTITY, a first
// MANIFEST and CURRENT, a second MANIFEST and CURRENT, two OPTIONS files, a
// MANIFEST record per column family, each file synced and each rename
// followed by a sync of the directory (17 fsyncs and fdatasyncs, 3-4 ms of a
// ~10 ms start on the project's VM). Nothing in a new directory is worth
// those steps until the database is handed to its caller, so:
//
//   1. BeginCreation(): a marker file, DYNAROCK-CREATING, is created and made durable
//      (the directory synced) before RocksDB writes anything.
//   2. RocksDB creates the database through DeferredSyncFileSystem, whose
//      file and directory syncs do nothing while the creation lasts.
//   3. FinishCreation(): every file in the directory is synced, then the directory;
//      the marker is removed and the directory synced again. The engine runs
//      it on a thread of its own once the database is handed out (a start
//      does not wait for the disk's ~2 ms of syncs), and a write that must
//      survive power loss (Options::sync_writes) waits for it before it is
//      acknowledged, so such a write lands in a database as durable as one
//      RocksDB created itself. Writes without sync_writes survive a process
//      crash either way (the page cache holds them), and a power cut may lose
//      them either way; closing the database waits for the syncs.
//
// A crash (of the machine: a process crash loses nothing from the page
// cache) between 1 and 3 can leave files whose contents never reached the
// disk, a CURRENT that is empty, say. The marker says so: when RocksDB then
// refuses to open the directory, and the marker is there, and CURRENT is
// missing, empty or names a missing or empty MANIFEST, and no table file
// exists (creation writes none), RecoverInterruptedCreation() moves RocksDB's
// files into a subdirectory (creation-cut-short-N, which RocksDB does not
// read) and the creation starts over. Otherwise the directory is reported as
// RocksDB found it. Any writable open that finds the marker on a database it
// opened finishes step 3, so the marker never outlives an open that writes.

#ifndef DYNAROCK_ENGINE_FRESH_DIRECTORY_H_
#define DYNAROCK_ENGINE_FRESH_DIRECTORY_H_

#include <rocksdb/file_system.h>

#include <atomic>
#include <memory>
#include <string>

#include "dynarock/status.h"

namespace dynarock::internal {

inline constexpr char kCreatingMarker[] = "DYNAROCK-CREATING";

// A FileSystem whose Sync, Fsync and RangeSync of writable files and Fsync of
// directories succeed without syncing until EndDeferral(); afterwards (and
// for files opened before that) they sync as the wrapped FileSystem does.
class DeferredSyncFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit DeferredSyncFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base);

  static const char* kClassName() { return "DynarockDeferredSyncFileSystem"; }
  const char* Name() const override { return kClassName(); }

  void EndDeferral() { deferring_.store(false, std::memory_order_release); }
  bool deferring() const { return deferring_.load(std::memory_order_acquire); }

  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& opts,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& opts,
                                 std::unique_ptr<rocksdb::FSDirectory>* result,
                                 rocksdb::IODebugContext* dbg) override;

 private:
  std::atomic<bool> deferring_{true};
};

// Step 1: `dir` created if missing (mode 0700), the marker created in it
// and made durable. Refused (the caller then lets RocksDB create the
// database its own way) when the marker is there already or a database was
// begun (a CURRENT or a MANIFEST exists).
Status BeginCreation(const std::string& dir);

// Step 3: every regular file in `dir` synced, then `dir`; the marker removed
// and `dir` synced again.
Status FinishCreation(const std::string& dir);

// Whether `dir` holds the marker of a creation that did not finish.
bool CreationInterrupted(const std::string& dir);

// After RocksDB refused to open `dir`: when the marker is there, CURRENT
// shows a creation that never reached the disk and no table file (*.sst,
// *.ldb, *.blob) is, moves RocksDB's files (not the marker) into a new
// subdirectory creation-cut-short-N and returns true (the caller creates the
// database again); otherwise false, touching nothing.
bool RecoverInterruptedCreation(const std::string& dir);

}  // namespace dynarock::internal

#endif  // DYNAROCK_ENGINE_FRESH_DIRECTORY_H_
