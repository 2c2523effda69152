// File: tests/unit/fault_fs.h
//
// FaultFS: a RocksDB FileSystem for tests that breaks storage the way devices
// break it. It wraps another FileSystem (the disk's, by default) through
// RocksDB's public FileSystemWrapper API and can
//
//   (a) lose power: PowerOff() makes every later write, sync, creation, rename
//       and deletion fail, as at the moment the power goes; once the database
//       is closed, LosePower() drops what the disk had not made durable: each
//       file written through this FS is cut back to its size at its last
//       Sync/Fsync, every file created (or renamed into place) since its
//       directory's last fsync is deleted, and a file such a rename replaced
//       gets its old contents back. Then the power is on again.
//   (b) fail I/O: InjectErrors() makes writes, syncs and/or reads of chosen
//       kinds of files (write-ahead logs, table files, MANIFESTs, the rest)
//       fail with EIO (IOStatus::IOError) or ENOSPC (IOStatus::NoSpace), until
//       ClearErrors() or for the next N matching calls; switchable at any time,
//       from any thread, while a database runs on it.
//   (c) corrupt a block: CorruptDataBlock() flips bytes inside a table file's
//       data blocks on disk, so that the block's checksum no longer matches.
//
//   auto fs = std::make_shared<FaultFS>();
//   auto db = internal::OpenWithEnv(options, dir, fs->env());   // engine/storage_env.h
//   ... writes ...
//   fs->PowerOff();
//   db->reset();                  // the process "dies"; nothing more reaches the disk
//   FaultFS::Loss loss = fs->LosePower();
//   db = internal::OpenWithEnv(options, dir, fs->env());        // recovery
//
// The model is the one RocksDB's own crash tests use: a write is on the disk
// once its file was synced and the directory entry of a new file once its
// directory was. What it does not model: a deleted file coming back; the
// source of a rename coming back (a renamed file is a new entry of its
// directory, lost with it; RocksDB renames only files it has just written);
// torn or reordered writes within the unsynced tail (the tail is dropped
// whole); files written through NewRandomRWFile or the info LOG (not tracked;
// RocksDB's data never uses them).

#ifndef DYNAROCK_TESTS_UNIT_FAULT_FS_H_
#define DYNAROCK_TESTS_UNIT_FAULT_FS_H_

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/io_status.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace dynarock::testing {

class FaultFS : public rocksdb::FileSystemWrapper, public std::enable_shared_from_this<FaultFS> {
 public:
  // Which calls an injected error hits (a bitmask).
  enum Ops : unsigned {
    kWrites = 1,  // Append, PositionedAppend, Truncate
    kSyncs = 2,   // Sync, Fsync, RangeSync, directory fsyncs
    kReads = 4,   // Read, PositionedRead, MultiRead, ReadAsync
  };
  // Which files (a bitmask), by RocksDB's file names.
  enum Files : unsigned {
    kWal = 1,       // NNNNNN.log, the write-ahead logs
    kTable = 2,     // NNNNNN.sst
    kManifest = 4,  // MANIFEST-NNNNNN
    kOther = 8,     // CURRENT, OPTIONS-*, IDENTITY, temporary files; directories
    kAllFiles = 15,
  };
  enum class Error { kEIO, kENOSPC };

  explicit FaultFS(std::shared_ptr<rocksdb::FileSystem> base = rocksdb::FileSystem::Default());
  ~FaultFS() override;

  const char* Name() const override { return "DynarockFaultFS"; }

  // A new Env whose files go through this FS (threads and clock: the default
  // Env's); it holds the FS. PRE: the FS is owned by a shared_ptr.
  std::shared_ptr<rocksdb::Env> env();

  // ---- (a) power loss
  // From now on every write, sync, file creation, rename and deletion fails
  // with IOError("power is off") and changes nothing. Reads still work, and
  // files still close (so that the database can be destroyed).
  void PowerOff();
  bool powered() const { return powered_.load(); }
  // What LosePower() dropped.
  struct Loss {
    int files_truncated = 0;
    uint64_t bytes_dropped = 0;
    uint64_t wal_bytes_dropped = 0;  // of bytes_dropped, from write-ahead logs
    int files_deleted = 0;
    int files_restored = 0;            // replaced by a rename not yet durable
    std::vector<std::string> deleted;  // their names
  };
  // Drops everything not durable (see the file comment) and turns the power
  // back on; tracking starts afresh. PRE: PowerOff() was called and every file
  // this FS opened for writing is closed (the database is gone).
  Loss LosePower();
  // Bytes written to files of `files` kinds and not synced yet: what a power
  // loss now would drop from them.
  uint64_t UnsyncedBytes(unsigned files = kAllFiles) const;

  // ---- (b) I/O errors
  // Calls in `ops` on files of `files` kinds fail with `error` (EIO or
  // ENOSPC) and do nothing: until ClearErrors(), or for the next `count`
  // matching calls when count > 0. Replaces any earlier injection.
  void InjectErrors(unsigned ops, Error error, unsigned files = kAllFiles, uint64_t count = 0);
  void ClearErrors();
  // How many calls failed by injection since this FS was made.
  uint64_t errors_injected() const { return injected_.load(); }

  // ---- (c) corruption
  // Flips (XOR 0xFF) `bytes` bytes of table file `sst`'s data blocks (the part
  // before its index and meta blocks, [0, data_size) by its table properties),
  // starting `fraction` (0..1) of the way through them, directly on disk.
  // The offset flipped is returned in *offset. Every byte there belongs to a
  // data block or its checksummed trailer, so the block no longer verifies.
  static rocksdb::Status CorruptDataBlock(const std::string& sst, double fraction,
                                          uint64_t* offset = nullptr, size_t bytes = 8);
  // The table files in directory `dir` holding column family `column_family`
  // (by their table properties), in name order.
  static std::vector<std::string> TableFiles(const std::string& dir,
                                             const std::string& column_family);

  // ---- FileSystem
  rocksdb::IOStatus NewSequentialFile(const std::string& f, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* r,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                        rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old_f,
                                      const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& o,
                                 std::unique_ptr<rocksdb::FSDirectory>* r,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& f, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& dst,
                               const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LinkFile(const std::string& src, const std::string& dst,
                             const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Truncate(const std::string& f, size_t size, const rocksdb::IOOptions& o,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDir(const std::string& d, const rocksdb::IOOptions& o,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& d, const rocksdb::IOOptions& o,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteDir(const std::string& d, const rocksdb::IOOptions& o,
                              rocksdb::IODebugContext* dbg) override;
  // 0 while ENOSPC is injected (a full disk has no free space: RocksDB's
  // SstFileManager looks here before it recovers), else the disk's.
  rocksdb::IOStatus GetFreeSpace(const std::string& path, const rocksdb::IOOptions& o,
                                 uint64_t* free, rocksdb::IODebugContext* dbg) override;

 private:
  rocksdb::IOStatus OpenWritable(const std::string& f, bool fresh,
                                 std::unique_ptr<rocksdb::FSWritableFile>* r,
                                 const std::function<rocksdb::IOStatus()>& open);

  friend class FaultWritableFile;
  friend class FaultSequentialFile;
  friend class FaultRandomAccessFile;
  friend class FaultDirectory;

  // A file opened for writing through this FS: its size as written and as
  // last synced. Shared by the map and the open handle, so a rename of an
  // open file keeps them together.
  struct FileState {
    uint64_t size = 0;
    uint64_t synced = 0;
  };

  // OK, or the error a call in `op` on file `path` must fail with (power off:
  // any op but reads; an injection matching op and the file's kind).
  rocksdb::IOStatus Check(unsigned op, const std::string& path);
  static unsigned KindOf(const std::string& path);
  // The file's state, tracked afresh when `fresh` (created or truncated),
  // else kept, or started at the file's current size (assumed durable).
  std::shared_ptr<FileState> Track(const std::string& path, bool fresh);
  void NoteNewEntry(const std::string& path);  // PRE: mu_ held
  void DirectorySynced(const std::string& dir);

  std::atomic<bool> powered_{true};
  std::atomic<bool> injecting_{false};
  std::atomic<uint64_t> injected_{0};

  mutable std::mutex mu_;
  unsigned inject_ops_ = 0;                                  // GUARDED_BY(mu_)
  unsigned inject_files_ = 0;                                // GUARDED_BY(mu_)
  Error inject_error_ = Error::kEIO;                         // GUARDED_BY(mu_)
  uint64_t inject_left_ = 0;                                 // GUARDED_BY(mu_): 0 = until cleared
  std::map<std::string, std::shared_ptr<FileState>> files_;  // GUARDED_BY(mu_)
  // Directory -> names created or renamed into it since its last fsync.
  std::map<std::string, std::set<std::string>> new_entries_;  // GUARDED_BY(mu_)
  // Files a rename replaced since their directory's last fsync -> the
  // contents they had before.
  std::map<std::string, std::string> replaced_;  // GUARDED_BY(mu_)
};

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UNIT_FAULT_FS_H_
