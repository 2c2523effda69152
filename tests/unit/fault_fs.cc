// File: tests/unit/fault_fs.cc
//
// FaultFS (fault_fs.h): test infrastructure, not a test. Its model (what a
// power loss keeps, injected errors by operation and count) is pinned by
// storage_faults_test.cc's StorageFaults.FaultFSKeepsOnlyWhatWasMadeDurable;
// the other StorageFaults tests use it against the engine.

#include "tests/unit/fault_fs.h"

#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

namespace dynarock::testing {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// Creations, renames, deletions: refused while the power is off, never
// injected (no public Ops bit).
constexpr unsigned kMeta = 1u << 8;

// One spelling per path: no repeated or trailing slashes.
std::string Normalize(const std::string& p) {
  std::string out;
  out.reserve(p.size());
  for (char c : p) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out += c;
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string BaseOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Truncates file `path` to `size` through `fs`: its own Truncate, else (the
// POSIX FileSystem has none) a handle reopened for appending.
IOStatus CutTo(rocksdb::FileSystem* fs, const std::string& path, uint64_t size) {
  IOStatus s = fs->Truncate(path, size, IOOptions(), nullptr);
  if (!s.IsNotSupported()) return s;
  std::unique_ptr<rocksdb::FSWritableFile> f;
  s = fs->ReopenWritableFile(path, rocksdb::FileOptions(), &f, nullptr);
  if (s.ok()) s = f->Truncate(size, IOOptions(), nullptr);
  if (s.ok()) s = f->Fsync(IOOptions(), nullptr);
  IOStatus closed = f ? f->Close(IOOptions(), nullptr) : IOStatus::OK();
  return s.ok() ? closed : s;
}

}  // namespace

// ---- the files

class FaultWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultWritableFile(FaultFS* fs, std::string path, std::shared_ptr<FaultFS::FileState> state,
                    std::unique_ptr<rocksdb::FSWritableFile> file)
      : FSWritableFileOwnerWrapper(std::move(file)),
        fs_(fs),
        path_(std::move(path)),
        state_(std::move(state)) {}

  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kWrites, path_);
    if (s.ok()) s = target()->Append(data, o, dbg);
    if (s.ok()) Grew(std::nullopt, data.size());
    return s;
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo& info,
                  IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kWrites, path_);
    if (s.ok()) s = target()->Append(data, o, info, dbg);
    if (s.ok()) Grew(std::nullopt, data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kWrites, path_);
    if (s.ok()) s = target()->PositionedAppend(data, offset, o, dbg);
    if (s.ok()) Grew(offset, data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            const rocksdb::DataVerificationInfo& info,
                            IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kWrites, path_);
    if (s.ok()) s = target()->PositionedAppend(data, offset, o, info, dbg);
    if (s.ok()) Grew(offset, data.size());
    return s;
  }
  IOStatus Truncate(uint64_t size, const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kWrites, path_);
    if (s.ok()) s = target()->Truncate(size, o, dbg);
    if (s.ok()) {
      std::lock_guard<std::mutex> lock(fs_->mu_);
      state_->size = size;
      state_->synced = std::min(state_->synced, size);
    }
    return s;
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* dbg) override {
    return SyncWith([&] { return target()->Sync(o, dbg); });
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    return SyncWith([&] { return target()->Fsync(o, dbg); });
  }
  // sync_file_range: starts write-back, guarantees nothing (no metadata, no
  // device cache), so it makes nothing durable here either.
  IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const IOOptions& o,
                     IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kSyncs, path_);
    if (s.ok()) s = target()->RangeSync(offset, nbytes, o, dbg);
    return s;
  }

 private:
  void Grew(std::optional<uint64_t> offset, size_t n) {
    std::lock_guard<std::mutex> lock(fs_->mu_);
    state_->size = offset ? std::max(state_->size, *offset + n) : state_->size + n;
  }
  // What was written when the sync started is durable once it succeeds.
  template <typename F>
  IOStatus SyncWith(F sync) {
    IOStatus s = fs_->Check(FaultFS::kSyncs, path_);
    if (!s.ok()) return s;
    uint64_t upto;
    {
      std::lock_guard<std::mutex> lock(fs_->mu_);
      upto = state_->size;
    }
    s = sync();
    if (s.ok()) {
      std::lock_guard<std::mutex> lock(fs_->mu_);
      state_->synced = std::max(state_->synced, std::min(upto, state_->size));
    }
    return s;
  }

  FaultFS* fs_;
  const std::string path_;
  const std::shared_ptr<FaultFS::FileState> state_;
};

class FaultSequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
 public:
  FaultSequentialFile(FaultFS* fs, std::string path, std::unique_ptr<rocksdb::FSSequentialFile> f)
      : FSSequentialFileOwnerWrapper(std::move(f)), fs_(fs), path_(std::move(path)) {}

  IOStatus Read(size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kReads, path_);
    return s.ok() ? target()->Read(n, o, result, scratch, dbg) : s;
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions& o, Slice* result,
                          char* scratch, IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kReads, path_);
    return s.ok() ? target()->PositionedRead(offset, n, o, result, scratch, dbg) : s;
  }

 private:
  FaultFS* fs_;
  const std::string path_;
};

class FaultRandomAccessFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  FaultRandomAccessFile(FaultFS* fs, std::string path,
                        std::unique_ptr<rocksdb::FSRandomAccessFile> f)
      : FSRandomAccessFileOwnerWrapper(std::move(f)), fs_(fs), path_(std::move(path)) {}

  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    IOStatus s = fs_->Check(FaultFS::kReads, path_);
    return s.ok() ? target()->Read(offset, n, o, result, scratch, dbg) : s;
  }
  IOStatus MultiRead(rocksdb::FSReadRequest* reqs, size_t num_reqs, const IOOptions& o,
                     IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kReads, path_);
    if (s.ok()) return target()->MultiRead(reqs, num_reqs, o, dbg);
    for (size_t i = 0; i < num_reqs; ++i) reqs[i].status = s;
    return s;
  }
  // Synchronously, through Read() (and so through the faults), as
  // FSRandomAccessFile's own default does.
  IOStatus ReadAsync(rocksdb::FSReadRequest& req, const IOOptions& o,
                     std::function<void(const rocksdb::FSReadRequest&, void*)> cb, void* cb_arg,
                     void** /*io_handle*/, rocksdb::IOHandleDeleter* /*del_fn*/,
                     IODebugContext* dbg) override {
    req.status = Read(req.offset, req.len, o, &req.result, req.scratch, dbg);
    cb(req, cb_arg);
    return IOStatus::OK();
  }

 private:
  FaultFS* fs_;
  const std::string path_;
};

class FaultDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  FaultDirectory(FaultFS* fs, std::string dir, std::unique_ptr<rocksdb::FSDirectory> d)
      : FSDirectoryWrapper(std::move(d)), fs_(fs), dir_(std::move(dir)) {}

  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFS::kSyncs, dir_ + "/");
    if (s.ok()) s = FSDirectoryWrapper::Fsync(o, dbg);
    if (s.ok()) fs_->DirectorySynced(dir_);
    return s;
  }
  IOStatus FsyncWithDirOptions(const IOOptions& o, IODebugContext* dbg,
                               const rocksdb::DirFsyncOptions& dir_options) override {
    IOStatus s = fs_->Check(FaultFS::kSyncs, dir_ + "/");
    if (s.ok()) s = FSDirectoryWrapper::FsyncWithDirOptions(o, dbg, dir_options);
    if (s.ok()) fs_->DirectorySynced(dir_);
    return s;
  }

 private:
  FaultFS* fs_;
  const std::string dir_;
};

// ---- the file system

FaultFS::FaultFS(std::shared_ptr<rocksdb::FileSystem> base) : FileSystemWrapper(base) {}

FaultFS::~FaultFS() = default;

std::shared_ptr<rocksdb::Env> FaultFS::env() {
  return std::shared_ptr<rocksdb::Env>(rocksdb::NewCompositeEnv(shared_from_this()));
}

unsigned FaultFS::KindOf(const std::string& path) {
  const std::string base = BaseOf(path);
  if (EndsWith(base, ".log")) return kWal;
  if (EndsWith(base, ".sst")) return kTable;
  if (base.rfind("MANIFEST-", 0) == 0) return kManifest;
  return kOther;
}

IOStatus FaultFS::Check(unsigned op, const std::string& path) {
  if (op != kReads && !powered_.load()) return IOStatus::IOError("power is off (FaultFS)", path);
  if (!injecting_.load()) return IOStatus::OK();
  std::lock_guard<std::mutex> lock(mu_);
  if ((inject_ops_ & op) == 0 || (inject_files_ & KindOf(path)) == 0) return IOStatus::OK();
  if (inject_left_ > 0 && --inject_left_ == 0) {
    inject_ops_ = 0;
    injecting_ = false;
  }
  ++injected_;
  const char* what = op == kReads   ? "While reading"
                     : op == kSyncs ? "While syncing"
                                    : "While writing";
  if (inject_error_ == Error::kENOSPC) {
    return IOStatus::NoSpace(std::string(what) + " " + path,
                             "No space left on device (injected ENOSPC)");
  }
  return IOStatus::IOError(std::string(what) + " " + path, "Input/output error (injected EIO)");
}

std::shared_ptr<FaultFS::FileState> FaultFS::Track(const std::string& path, bool fresh) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<FileState>& state = files_[path];
  if (state && !fresh) return state;
  state = std::make_shared<FileState>();
  if (!fresh) {
    uint64_t size = 0;
    if (target()->GetFileSize(path, IOOptions(), &size, nullptr).ok())
      state->size = state->synced = size;
  }
  return state;
}

void FaultFS::NoteNewEntry(const std::string& path) {
  new_entries_[DirOf(path)].insert(BaseOf(path));
}

void FaultFS::DirectorySynced(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  new_entries_.erase(dir);
  for (auto it = replaced_.begin(); it != replaced_.end();) {
    it = DirOf(it->first) == dir ? replaced_.erase(it) : std::next(it);
  }
}

void FaultFS::PowerOff() { powered_ = false; }

FaultFS::Loss FaultFS::LosePower() {
  Loss loss;
  std::lock_guard<std::mutex> lock(mu_);
  const IOOptions io;
  for (const auto& [path, state] : files_) {
    uint64_t size = 0;
    if (!target()->GetFileSize(path, io, &size, nullptr).ok() || size <= state->synced) continue;
    if (CutTo(target(), path, state->synced).ok()) {
      ++loss.files_truncated;
      loss.bytes_dropped += size - state->synced;
      if (KindOf(path) == kWal) loss.wal_bytes_dropped += size - state->synced;
    }
  }
  for (const auto& [dir, names] : new_entries_) {
    for (const std::string& name : names) {
      const std::string path = dir + "/" + name;
      uint64_t size = 0;
      if (!target()->GetFileSize(path, io, &size, nullptr).ok()) continue;
      if (target()->DeleteFile(path, io, nullptr).ok()) {
        ++loss.files_deleted;
        loss.bytes_dropped += size;
        if (KindOf(path) == kWal) loss.wal_bytes_dropped += size;
        loss.deleted.push_back(name);
      }
    }
  }
  for (const auto& [path, contents] : replaced_) {
    if (rocksdb::WriteStringToFile(target(), contents, path, /*should_sync=*/true).ok()) {
      ++loss.files_restored;
    }
  }
  files_.clear();
  new_entries_.clear();
  replaced_.clear();
  powered_ = true;
  return loss;
}

uint64_t FaultFS::UnsyncedBytes(unsigned files) const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t n = 0;
  for (const auto& [path, state] : files_) {
    if (KindOf(path) & files) n += state->size - std::min(state->synced, state->size);
  }
  return n;
}

void FaultFS::InjectErrors(unsigned ops, Error error, unsigned files, uint64_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  inject_ops_ = ops;
  inject_files_ = files;
  inject_error_ = error;
  inject_left_ = count;
  injecting_ = ops != 0 && files != 0;
}

void FaultFS::ClearErrors() {
  std::lock_guard<std::mutex> lock(mu_);
  inject_ops_ = 0;
  inject_left_ = 0;
  injecting_ = false;
}

// ---- FileSystem calls

IOStatus FaultFS::NewSequentialFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSSequentialFile>* r,
                                    IODebugContext* dbg) {
  const std::string path = Normalize(f);
  IOStatus s = Check(kReads, path);
  if (s.ok()) s = target()->NewSequentialFile(f, o, r, dbg);
  if (s.ok()) r->reset(new FaultSequentialFile(this, path, std::move(*r)));
  return s;
}

IOStatus FaultFS::NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                      IODebugContext* dbg) {
  const std::string path = Normalize(f);
  IOStatus s = Check(kReads, path);
  if (s.ok()) s = target()->NewRandomAccessFile(f, o, r, dbg);
  if (s.ok()) r->reset(new FaultRandomAccessFile(this, path, std::move(*r)));
  return s;
}

// Opens `f` for writing with `open` (the target's New/ReopenWritableFile),
// tracking it (`fresh`: from empty) and noting a new directory entry.
IOStatus FaultFS::OpenWritable(const std::string& f, bool fresh,
                               std::unique_ptr<rocksdb::FSWritableFile>* r,
                               const std::function<IOStatus()>& open) {
  const std::string path = Normalize(f);
  IOStatus s = Check(kMeta, path);
  if (!s.ok()) return s;
  const bool existed = target()->FileExists(f, IOOptions(), nullptr).ok();
  s = open();
  if (!s.ok()) return s;
  auto state = Track(path, fresh);
  if (!existed) {
    std::lock_guard<std::mutex> lock(mu_);
    NoteNewEntry(path);
  }
  r->reset(new FaultWritableFile(this, path, std::move(state), std::move(*r)));
  return s;
}

IOStatus FaultFS::NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                  std::unique_ptr<rocksdb::FSWritableFile>* r,
                                  IODebugContext* dbg) {
  return OpenWritable(f, /*fresh=*/true, r,
                      [&] { return target()->NewWritableFile(f, o, r, dbg); });
}

IOStatus FaultFS::ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                     std::unique_ptr<rocksdb::FSWritableFile>* r,
                                     IODebugContext* dbg) {
  return OpenWritable(f, /*fresh=*/false, r,
                      [&] { return target()->ReopenWritableFile(f, o, r, dbg); });
}

IOStatus FaultFS::ReuseWritableFile(const std::string& f, const std::string& old_f,
                                    const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    IODebugContext* dbg) {
  const std::string path = Normalize(f), old_path = Normalize(old_f);
  IOStatus s = Check(kMeta, path);
  if (s.ok()) s = target()->ReuseWritableFile(f, old_f, o, r, dbg);
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(old_path);
    new_entries_[DirOf(old_path)].erase(BaseOf(old_path));
    NoteNewEntry(path);
  }
  r->reset(new FaultWritableFile(this, path, Track(path, /*fresh=*/true), std::move(*r)));
  return s;
}

IOStatus FaultFS::NewDirectory(const std::string& name, const IOOptions& o,
                               std::unique_ptr<rocksdb::FSDirectory>* r, IODebugContext* dbg) {
  IOStatus s = target()->NewDirectory(name, o, r, dbg);
  if (s.ok()) r->reset(new FaultDirectory(this, Normalize(name), std::move(*r)));
  return s;
}

IOStatus FaultFS::DeleteFile(const std::string& f, const IOOptions& o, IODebugContext* dbg) {
  const std::string path = Normalize(f);
  IOStatus s = Check(kMeta, path);
  if (s.ok()) s = target()->DeleteFile(f, o, dbg);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(path);
    new_entries_[DirOf(path)].erase(BaseOf(path));
    replaced_.erase(path);
  }
  return s;
}

IOStatus FaultFS::RenameFile(const std::string& src, const std::string& dst, const IOOptions& o,
                             IODebugContext* dbg) {
  const std::string from = Normalize(src), to = Normalize(dst);
  IOStatus s = Check(kMeta, to);
  if (!s.ok()) return s;
  // A durable file the rename replaces comes back if the power goes before
  // the directory is synced: keep its contents.
  bool save = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = new_entries_.find(DirOf(to));
    const bool to_is_new = it != new_entries_.end() && it->second.count(BaseOf(to)) > 0;
    save = !to_is_new && replaced_.count(to) == 0 &&
           target()->FileExists(dst, IOOptions(), nullptr).ok();
  }
  std::string old_contents;
  if (save && !rocksdb::ReadFileToString(target(), dst, &old_contents).ok()) save = false;
  s = target()->RenameFile(src, dst, o, dbg);
  if (!s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  if (save) replaced_.emplace(to, std::move(old_contents));
  auto moved = files_.find(from);
  if (moved != files_.end()) {
    files_[to] = moved->second;
    files_.erase(moved);
  } else {
    files_.erase(to);
  }
  new_entries_[DirOf(from)].erase(BaseOf(from));
  NoteNewEntry(to);
  return s;
}

IOStatus FaultFS::LinkFile(const std::string& src, const std::string& dst, const IOOptions& o,
                           IODebugContext* dbg) {
  const std::string to = Normalize(dst);
  IOStatus s = Check(kMeta, to);
  if (s.ok()) s = target()->LinkFile(src, dst, o, dbg);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    NoteNewEntry(to);
  }
  return s;
}

IOStatus FaultFS::Truncate(const std::string& f, size_t size, const IOOptions& o,
                           IODebugContext* dbg) {
  const std::string path = Normalize(f);
  IOStatus s = Check(kWrites, path);
  if (s.ok()) s = target()->Truncate(f, size, o, dbg);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(path);
    if (it != files_.end()) {
      it->second->size = size;
      it->second->synced = std::min<uint64_t>(it->second->synced, size);
    }
  }
  return s;
}

IOStatus FaultFS::CreateDir(const std::string& d, const IOOptions& o, IODebugContext* dbg) {
  IOStatus s = Check(kMeta, d);
  return s.ok() ? target()->CreateDir(d, o, dbg) : s;
}

IOStatus FaultFS::CreateDirIfMissing(const std::string& d, const IOOptions& o,
                                     IODebugContext* dbg) {
  IOStatus s = Check(kMeta, d);
  return s.ok() ? target()->CreateDirIfMissing(d, o, dbg) : s;
}

IOStatus FaultFS::DeleteDir(const std::string& d, const IOOptions& o, IODebugContext* dbg) {
  IOStatus s = Check(kMeta, d);
  return s.ok() ? target()->DeleteDir(d, o, dbg) : s;
}

IOStatus FaultFS::GetFreeSpace(const std::string& path, const IOOptions& o, uint64_t* free,
                               IODebugContext* dbg) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (injecting_.load() && inject_error_ == Error::kENOSPC) {
      *free = 0;
      return IOStatus::OK();
    }
  }
  return target()->GetFreeSpace(path, o, free, dbg);
}

// ---- corruption

rocksdb::Status FaultFS::CorruptDataBlock(const std::string& sst, double fraction, uint64_t* offset,
                                          size_t bytes) {
  uint64_t data_size = 0;
  {
    rocksdb::Options options;
    rocksdb::SstFileReader reader(options);
    rocksdb::Status s = reader.Open(sst);
    if (!s.ok()) return s;
    data_size = reader.GetTableProperties()->data_size;
  }
  if (bytes == 0 || data_size < bytes) {
    return rocksdb::Status::InvalidArgument("no data block to corrupt in", sst);
  }
  const double f = std::clamp(fraction, 0.0, 1.0);
  const uint64_t at = std::min<uint64_t>(data_size - bytes, static_cast<uint64_t>(f * data_size));
  std::fstream file(sst, std::ios::in | std::ios::out | std::ios::binary);
  std::string buf(bytes, '\0');
  file.seekg(static_cast<std::streamoff>(at));
  file.read(buf.data(), static_cast<std::streamsize>(bytes));
  for (char& c : buf) c = static_cast<char>(c ^ 0xFF);
  file.seekp(static_cast<std::streamoff>(at));
  file.write(buf.data(), static_cast<std::streamsize>(bytes));
  file.flush();
  if (!file) return rocksdb::Status::IOError("cannot rewrite", sst);
  if (offset) *offset = at;
  return rocksdb::Status::OK();
}

std::vector<std::string> FaultFS::TableFiles(const std::string& dir,
                                             const std::string& column_family) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string path = entry.path().string();
    if (!EndsWith(path, ".sst")) continue;
    rocksdb::Options options;
    rocksdb::SstFileReader reader(options);
    if (!reader.Open(path).ok()) continue;
    if (reader.GetTableProperties()->column_family_name == column_family) found.push_back(path);
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace dynarock::testing
