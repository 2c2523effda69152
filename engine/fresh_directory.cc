// File: engine/fresh_directory.cc

#include "engine/fresh_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

Status Errno(const std::string& what, const std::string& path) {
  return InternalError(what + " " + path + ": " + std::strerror(errno));
}

// fsync() of one path (a file or a directory), opened read-only.
Status SyncPath(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) return Errno("Cannot open", path);
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return rc == 0 ? Status() : Errno("Cannot sync", path);
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
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return Errno("Cannot create", dir);
  const std::string marker = dir + "/" + kCreatingMarker;
  const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("Cannot create", marker);
  ::close(fd);
  return SyncPath(dir, true);
}

Status FinishCreation(const std::string& dir) {
  std::vector<std::string> names;
  if (!ListFiles(dir, &names)) return Errno("Cannot list", dir);
  for (const auto& name : names) {
    // The marker, the lock and the info log hold nothing a reopening reads.
    if (name == kCreatingMarker || name == "LOCK" || name == "LOG") continue;
    // A file RocksDB deleted since the listing needs no sync.
    Status s = SyncPath(dir + "/" + name, false);
    if (!s.ok() && errno != ENOENT) return s;
  }
  DR_RETURN_IF_ERROR(SyncPath(dir, true));
  const std::string marker = dir + "/" + kCreatingMarker;
  if (::unlink(marker.c_str()) != 0 && errno != ENOENT) return Errno("Cannot remove", marker);
  return SyncPath(dir, true);
}

bool CreationInterrupted(const std::string& dir) {
  struct stat st;
  return ::stat((dir + "/" + kCreatingMarker).c_str(), &st) == 0;
}

bool RecoverInterruptedCreation(const std::string& dir) {
  if (!CreationInterrupted(dir)) return false;
  std::vector<std::string> names;
  if (!ListFiles(dir, &names)) return false;
  for (const auto& name : names) {
    if (EndsWith(name, ".sst") || EndsWith(name, ".blob")) return false;  // data: not ours to drop
  }
  for (const auto& name : names) {
    if (IsCreationFile(name) && name != kCreatingMarker) ::unlink((dir + "/" + name).c_str());
  }
  // The marker stays: the creation that follows begins with it and removes it.
  return true;
}

}  // namespace dynarock::internal
