// File: engine/fresh_directory.cc

#include "engine/fresh_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string_view>
#include <vector>

namespace dynarock::internal {
namespace {

using rocksdb::IOStatus;

// A writable file whose syncs wait for the end of the deferral.
class DeferredSyncFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  DeferredSyncFile(std::unique_ptr<rocksdb::FSWritableFile>&& file,
                   const DeferredSyncFileSystem* fs)
      : FSWritableFileOwnerWrapper(std::move(file)), fs_(fs) {}

  IOStatus Sync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
    return fs_->deferring() ? IOStatus::OK() : target()->Sync(o, dbg);
  }
  IOStatus Fsync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
    return fs_->deferring() ? IOStatus::OK() : target()->Fsync(o, dbg);
  }
  IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const rocksdb::IOOptions& o,
                     rocksdb::IODebugContext* dbg) override {
    return fs_->deferring() ? IOStatus::OK() : target()->RangeSync(offset, nbytes, o, dbg);
  }

 private:
  const DeferredSyncFileSystem* fs_;
};

class DeferredSyncDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  DeferredSyncDirectory(std::unique_ptr<rocksdb::FSDirectory>&& dir,
                        const DeferredSyncFileSystem* fs)
      : FSDirectoryWrapper(std::move(dir)), fs_(fs) {}

  IOStatus Fsync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override {
    return fs_->deferring() ? IOStatus::OK() : FSDirectoryWrapper::Fsync(o, dbg);
  }
  IOStatus FsyncWithDirOptions(const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg,
                               const rocksdb::DirFsyncOptions& options) override {
    return fs_->deferring() ? IOStatus::OK()
                            : FSDirectoryWrapper::FsyncWithDirOptions(o, dbg, options);
  }

 private:
  const DeferredSyncFileSystem* fs_;
};

Status ErrnoStatus(const std::string& what, const std::string& path, int error) {
  return InternalError(what + " " + path + ": " + std::strerror(error));
}

// fsync() of one path (a file or a directory), opened read-only: 0, or the
// errno of what failed.
int SyncPath(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) return errno;
  const int error = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return error;
}

Status SyncDirectory(const std::string& dir) {
  const int error = SyncPath(dir, true);
  return error == 0 ? Status() : ErrnoStatus("Cannot sync", dir, error);
}

// The names of the regular files directly in `dir`.
bool ListFiles(const std::string& dir, std::vector<std::string>* names) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::stat((dir + "/" + std::string(name)).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      names->emplace_back(name);
    }
  }
  ::closedir(d);
  return true;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// The files RocksDB writes while creating a database (and the marker).
bool IsCreationFile(std::string_view name) {
  return name == "CURRENT" || name == "IDENTITY" || name == "LOCK" || name == "LOG" ||
         name == kCreatingMarker || StartsWith(name, "LOG.old.") ||
         StartsWith(name, "MANIFEST-") || StartsWith(name, "OPTIONS-") || EndsWith(name, ".log") ||
         EndsWith(name, ".dbtmp");
}

}  // namespace

DeferredSyncFileSystem::DeferredSyncFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base)
    : FileSystemWrapper(base) {}

IOStatus DeferredSyncFileSystem::NewWritableFile(const std::string& fname,
                                                 const rocksdb::FileOptions& opts,
                                                 std::unique_ptr<rocksdb::FSWritableFile>* result,
                                                 rocksdb::IODebugContext* dbg) {
  IOStatus s = target()->NewWritableFile(fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<DeferredSyncFile>(std::move(*result), this);
  return s;
}

IOStatus DeferredSyncFileSystem::ReopenWritableFile(
    const std::string& fname, const rocksdb::FileOptions& opts,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  IOStatus s = target()->ReopenWritableFile(fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<DeferredSyncFile>(std::move(*result), this);
  return s;
}

IOStatus DeferredSyncFileSystem::ReuseWritableFile(
    const std::string& fname, const std::string& old_fname, const rocksdb::FileOptions& opts,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  IOStatus s = target()->ReuseWritableFile(fname, old_fname, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<DeferredSyncFile>(std::move(*result), this);
  return s;
}

IOStatus DeferredSyncFileSystem::NewDirectory(const std::string& name,
                                              const rocksdb::IOOptions& opts,
                                              std::unique_ptr<rocksdb::FSDirectory>* result,
                                              rocksdb::IODebugContext* dbg) {
  IOStatus s = target()->NewDirectory(name, opts, result, dbg);
  if (s.ok()) *result = std::make_unique<DeferredSyncDirectory>(std::move(*result), this);
  return s;
}

Status BeginCreation(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return ErrnoStatus("Cannot create", dir, errno);
  }
  // Only where no database has begun: another process may have created one
  // since the caller looked, and a marker must never be put on it.
  std::vector<std::string> names;
  if (!ListFiles(dir, &names)) return ErrnoStatus("Cannot list", dir, errno);
  for (const auto& name : names) {
    if (name == "CURRENT" || StartsWith(name, "MANIFEST-")) {
      return InternalError("A database was begun in " + dir);
    }
  }
  const std::string marker = dir + "/" + kCreatingMarker;
  const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus("Cannot create", marker, errno);
  ::close(fd);
  return SyncDirectory(dir);
}

Status FinishCreation(const std::string& dir) {
  // Every file, then the directory; again for the files that appeared since
  // the listing (a background job's rename: its contents may not have been
  // synced), until a listing finds nothing new.
  std::set<std::string> synced;
  for (int round = 0;; ++round) {
    std::vector<std::string> names;
    if (!ListFiles(dir, &names)) return ErrnoStatus("Cannot list", dir, errno);
    bool fresh_names = false;
    for (const auto& name : names) {
      // The marker, the lock and the info log hold nothing a reopening reads.
      if (name == kCreatingMarker || name == "LOCK" || name == "LOG") continue;
      if (!synced.insert(name).second) continue;
      fresh_names = true;
      const int error = SyncPath(dir + "/" + name, false);
      // A file RocksDB deleted since the listing needs no sync.
      if (error != 0 && error != ENOENT) return ErrnoStatus("Cannot sync", dir + "/" + name, error);
    }
    if (!fresh_names && round > 0) break;
    DR_RETURN_IF_ERROR(SyncDirectory(dir));
    if (round >= 8) break;  // a directory this busy while opening: what is there is synced
  }
  const std::string marker = dir + "/" + kCreatingMarker;
  if (::unlink(marker.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus("Cannot remove", marker, errno);
  }
  return SyncDirectory(dir);
}

bool CreationInterrupted(const std::string& dir) {
  struct stat st;
  return ::stat((dir + "/" + kCreatingMarker).c_str(), &st) == 0;
}

namespace {

// Whether `dir` looks like a creation that never reached the disk: CURRENT
// missing, empty, not one line, or naming a MANIFEST that is missing or empty.
bool CreationLooksUnsynced(const std::string& dir) {
  std::ifstream current(dir + "/CURRENT", std::ios::binary);
  if (!current) return true;
  std::string text((std::istreambuf_iterator<char>(current)), std::istreambuf_iterator<char>());
  if (text.empty() || text.back() != '\n') return true;
  text.pop_back();
  if (!StartsWith(text, "MANIFEST-") || text.find('/') != std::string::npos) return true;
  struct stat st;
  return ::stat((dir + "/" + text).c_str(), &st) != 0 || st.st_size == 0;
}

}  // namespace

bool RecoverInterruptedCreation(const std::string& dir) {
  if (!CreationInterrupted(dir) || !CreationLooksUnsynced(dir)) return false;
  std::vector<std::string> names;
  if (!ListFiles(dir, &names)) return false;
  for (const auto& name : names) {
    // Data: not a creation's to set aside.
    if (EndsWith(name, ".sst") || EndsWith(name, ".ldb") || EndsWith(name, ".blob")) return false;
  }
  // Set aside, not deleted: a subdirectory RocksDB does not read.
  std::string aside;
  for (int n = 1; n < 1000 && aside.empty(); ++n) {
    const std::string candidate = dir + "/creation-cut-short-" + std::to_string(n);
    if (::mkdir(candidate.c_str(), 0700) == 0) aside = candidate;
  }
  if (aside.empty()) return false;
  for (const auto& name : names) {
    if (!IsCreationFile(name) || name == kCreatingMarker || name == "LOCK") continue;
    if (::rename((dir + "/" + name).c_str(), (aside + "/" + name).c_str()) != 0) return false;
  }
  // The marker stays: the creation that follows removes it once complete.
  return SyncDirectory(dir).ok();
}

}  // namespace dynarock::internal
