// Power loss and storage faults, through FaultFS (tests/unit/fault_fs.h)
// under a real on-disk database (docs/durability.md states what these pin):
//
// - FaultFS itself: what a power loss keeps (synced bytes, entries of synced
//   directories, a file a rename replaced) and drops.
// - Durable setting (Options::sync_writes, `serve --sync`): writers run while
//   the power goes at a random moment, flushes and compactions included; after
//   each of several power losses every acknowledged write is there.
// - Fast setting: a power loss loses a suffix of the acknowledged writes (never
//   a hole), no more than the write-ahead log held unsynced (bounded by the
//   write buffers); with large write buffers, everything since the open.
//   Closing the database syncs the log: nothing is lost then.
// - EIO and ENOSPC on writes, syncs and flushes of each kind of file: writes
//   fail with InternalServerError (HTTP 500 through the endpoint's handler)
//   and a line on stderr, reads go on, nothing stored is damaged, and writes
//   resume once the fault is gone (in place, or after reopening where RocksDB
//   deems the error fatal).
// - EIO on reads: InternalServerError, never an item reported absent.
// - A corrupted data block: detected by its checksum, reported by
//   DB::VerifyChecksums and `dynarock check`, never returned as data; a
//   compaction that meets it stops writes rather than carry it on.

#include <rocksdb/file_system.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/api/handler.h"
#include "engine/storage_env.h"
#include "tests/unit/fault_fs.h"
#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

// Captures stderr (the engine's log lines) while it lives; Take() returns
// what was written. Released on every way out, a failed ASSERT's too, so that
// the next capture can start.
class StderrCapture {
 public:
  StderrCapture() { ::testing::internal::CaptureStderr(); }
  ~StderrCapture() { Take(); }
  std::string Take() {
    if (taken_) return "";
    taken_ = true;
    return ::testing::internal::GetCapturedStderr();
  }

 private:
  bool taken_ = false;
};

// The table of every test: "pk" (S), a GSI on "g"; items carry "v".
constexpr char kTable[] = "faults";

std::string MakeTempDir(const char* tag) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / (std::string("dynarock-") + tag + "-XXXXXX"))
          .string();
  if (mkdtemp(pattern.data()) == nullptr) return "";
  return pattern;
}

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "k%06d", i);
  return buf;
}

// Distinct per key and version, `bytes` long.
std::string Value(const std::string& key, int version, size_t bytes = 200) {
  std::string v = key + "/" + std::to_string(version) + "/";
  while (v.size() < bytes) v += static_cast<char>('a' + (v.size() * 7 + version) % 26);
  return v;
}

Options BaseOptions() {
  Options o;
  o.ttl_sweep_seconds = 0;           // no background writer
  o.write_buffer_bytes = 64u << 10;  // flushes (and so WAL switches) every few hundred writes
  return o;
}

Status Put(DB* db, const std::string& key, const std::string& value) {
  PutItemRequest req;
  req.table_name = kTable;
  req.item =
      MakeItem({{"pk", S(key)}, {"g", S("G" + key.substr(key.size() - 1))}, {"v", S(value)}});
  return db->PutItem(req).status();
}

// The item's "v", nullopt when absent, or the read's error.
StatusOr<std::optional<std::string>> Get(DB* db, const std::string& key) {
  GetItemRequest req;
  req.table_name = kTable;
  req.key = MakeItem({{"pk", S(key)}});
  req.consistent_read = true;
  DR_ASSIGN_OR_RETURN(GetItemResponse r, db->GetItem(req));
  if (!r.item) return std::optional<std::string>();
  return std::optional<std::string>(r.item->at("v").scalar());
}

// The item's "v"; "<none>" when absent; "<error: ...>" when the read failed.
std::string Read(DB* db, const std::string& key) {
  auto got = Get(db, key);
  if (!got.ok()) return "<error: " + got.status().ToString() + ">";
  return got->value_or("<none>");
}

// Every item of the table (pk -> v), or the first page's error.
StatusOr<std::map<std::string, std::string>> ScanAll(DB* db) {
  std::map<std::string, std::string> all;
  ScanRequest req;
  req.table_name = kTable;
  req.consistent_read = true;
  for (;;) {
    DR_ASSIGN_OR_RETURN(ScanResponse page, db->Scan(req));
    for (const Item& item : page.items) all[item.at("pk").scalar()] = item.at("v").scalar();
    if (!page.last_evaluated_key) return all;
    req.exclusive_start_key = page.last_evaluated_key;
  }
}

// The `dynarock` binary: $DYNAROCK_BIN, else ../dynarock beside this test.
std::string ToolBinary() {
  if (const char* env = std::getenv("DYNAROCK_BIN"); env && *env) return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path().parent_path() / "dynarock").string();
}

// Runs `dynarock check --data dir`: its exit status and standard output.
std::pair<int, std::string> RunCheck(const std::string& dir) {
  const std::string cmd = ToolBinary() + " check --data '" + dir + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return {-1, ""};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class StorageFaults : public ::testing::Test {
 protected:
  void SetUp() override { NewDirectory(); }
  void TearDown() override {
    db_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // A fresh empty directory and FaultFS (the old ones dropped).
  void NewDirectory() {
    db_.reset();
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
    dir_ = MakeTempDir("faults");
    ASSERT_FALSE(dir_.empty());
    fs_ = std::make_shared<FaultFS>();
  }
  void Open(const Options& options) {
    db_.reset();
    auto db = internal::OpenWithEnv(options, dir_, fs_->env());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
  }
  // The power goes: nothing more reaches the disk, the process is gone, and
  // what was not durable is dropped.
  FaultFS::Loss PowerLoss() {
    fs_->PowerOff();
    db_.reset();
    return fs_->LosePower();
  }
  void ExpectConsistent() {
    auto report = db_->CheckConsistency();
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    for (const auto& d : report->differences) ADD_FAILURE() << d;
    auto sums = db_->VerifyChecksums();
    ASSERT_TRUE(sums.ok()) << sums.status().ToString();
    for (const auto& c : sums->corrupt) ADD_FAILURE() << c;
  }

  std::string dir_;
  std::shared_ptr<FaultFS> fs_;
  std::unique_ptr<DB> db_;
};

// ---- FaultFS itself

TEST_F(StorageFaults, FaultFSKeepsOnlyWhatWasMadeDurable) {
  rocksdb::FileSystem* fs = fs_.get();
  const rocksdb::IOOptions io;
  const rocksdb::FileOptions fo;
  std::unique_ptr<rocksdb::FSDirectory> d;
  ASSERT_TRUE(fs->NewDirectory(dir_, io, &d, nullptr).ok());
  auto write = [&](const std::string& name, const std::string& synced, const std::string& unsynced,
                   bool sync_dir) {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs->NewWritableFile(dir_ + "/" + name, fo, &f, nullptr).ok());
    ASSERT_TRUE(f->Append(synced, io, nullptr).ok());
    ASSERT_TRUE(f->Sync(io, nullptr).ok());
    ASSERT_TRUE(f->Append(unsynced, io, nullptr).ok());
    ASSERT_TRUE(f->Close(io, nullptr).ok());
    if (sync_dir) {
      ASSERT_TRUE(d->Fsync(io, nullptr).ok());
    }
  };
  write("kept.log", "durable", "+tail", /*sync_dir=*/true);
  write("CURRENT", "old", "", true);
  write("new.sst", "synced but its entry is not", "", false);
  write("CURRENT.tmp", "new", "", false);
  ASSERT_TRUE(fs->RenameFile(dir_ + "/CURRENT.tmp", dir_ + "/CURRENT", io, nullptr).ok());
  EXPECT_EQ(fs_->UnsyncedBytes(FaultFS::kWal), 5u);

  fs_->PowerOff();
  std::unique_ptr<rocksdb::FSWritableFile> refused;
  EXPECT_TRUE(fs->NewWritableFile(dir_ + "/x", fo, &refused, nullptr).IsIOError());
  FaultFS::Loss loss = fs_->LosePower();
  EXPECT_EQ(loss.files_truncated, 1);
  EXPECT_EQ(loss.files_deleted, 2);   // new.sst, and CURRENT as renamed
  EXPECT_EQ(loss.files_restored, 1);  // the old CURRENT
  std::string s;
  ASSERT_TRUE(rocksdb::ReadFileToString(fs, dir_ + "/kept.log", &s).ok());
  EXPECT_EQ(s, "durable");
  ASSERT_TRUE(rocksdb::ReadFileToString(fs, dir_ + "/CURRENT", &s).ok());
  EXPECT_EQ(s, "old");
  EXPECT_TRUE(fs->FileExists(dir_ + "/new.sst", io, nullptr).IsNotFound());

  // Injected errors: by operation, kind of file and count.
  fs_->InjectErrors(FaultFS::kReads, FaultFS::Error::kEIO, FaultFS::kWal, /*count=*/1);
  EXPECT_TRUE(rocksdb::ReadFileToString(fs, dir_ + "/kept.log", &s).IsIOError());
  EXPECT_TRUE(rocksdb::ReadFileToString(fs, dir_ + "/kept.log", &s).ok());
  fs_->InjectErrors(FaultFS::kWrites, FaultFS::Error::kENOSPC);
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs->NewWritableFile(dir_ + "/full", fo, &f, nullptr).ok());
  rocksdb::IOStatus full = f->Append("x", io, nullptr);
  EXPECT_TRUE(full.IsNoSpace()) << full.ToString();
  fs_->ClearErrors();
  EXPECT_TRUE(f->Append("x", io, nullptr).ok());
  EXPECT_EQ(fs_->errors_injected(), 2u);
}

// ---- power loss

// Durable setting: two writers run while the power goes at a random moment,
// six times over, with 64 KiB write buffers so that flushes, log switches and
// compactions are under way too. Every acknowledged write survives; a write
// in flight when the power went may or may not.
TEST_F(StorageFaults, DurableSettingKeepsEveryAcknowledgedWriteThroughPowerLoss) {
  Options options = BaseOptions();
  options.sync_writes = true;
  std::map<std::string, std::string> acked;
  std::map<std::string, std::string> in_flight;  // key -> the unacknowledged value
  std::mt19937 rng(20260518);
  int64_t writes_acked = 0, bytes_dropped = 0, files_deleted = 0;
  // Writes that failed as the power went and yet were kept: the log was
  // synced, the fsync of its directory failed (its entry was already durable).
  int failed_but_kept = 0;
  StderrCapture capture;  // the refused writes' log lines
  constexpr int kRounds = 6;
  for (int round = 0; round <= kRounds; ++round) {
    Open(options);
    if (round == 0) CreateGsiTable(db_.get(), kTable);
    // Everything acknowledged before is there, as acknowledged.
    auto all = ScanAll(db_.get());
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    for (const auto& [k, v] : acked) {
      auto it = all->find(k);
      ASSERT_TRUE(it != all->end()) << "round " << round << ": acknowledged " << k << " lost";
      if (it->second != v) {
        ASSERT_TRUE(in_flight.count(k) && in_flight[k] == it->second)
            << "round " << round << ": " << k;
        acked[k] = it->second;  // the in-flight overwrite landed
        ++failed_but_kept;
      }
    }
    for (const auto& [k, v] : *all) {
      if (acked.count(k)) continue;
      ASSERT_TRUE(in_flight.count(k) && in_flight[k] == v)
          << "round " << round << ": unexpected " << k;
      ++failed_but_kept;
      acked[k] = v;
    }
    in_flight.clear();
    ExpectConsistent();
    if (round == kRounds) break;

    std::atomic<bool> stop{false};
    std::vector<std::map<std::string, std::string>> done(2);
    std::vector<std::optional<std::pair<std::string, std::string>>> failed(2);
    std::vector<std::thread> writers;
    for (int w = 0; w < 2; ++w) {
      writers.emplace_back([&, w] {
        std::mt19937 local(round * 10 + w);
        for (int i = 0; !stop.load(); ++i) {
          // Mostly new keys; every fourth write overwrites one of this round's.
          std::string key = "r" + std::to_string(round) + "w" + std::to_string(w) + "-" +
                            std::to_string(i % 4 == 3 ? local() % i : i);
          // 1.5 KB values: a flush every few dozen writes.
          std::string value = Value(key, i, 1500);
          if (Put(db_.get(), key, value).ok()) {
            done[w][key] = value;
          } else {
            failed[w] = {key, value};
            return;
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 500));
    fs_->PowerOff();
    stop = true;
    for (auto& t : writers) t.join();
    FaultFS::Loss loss = PowerLoss();
    bytes_dropped += static_cast<int64_t>(loss.bytes_dropped);
    files_deleted += loss.files_deleted;
    for (int w = 0; w < 2; ++w) {
      writes_acked += static_cast<int64_t>(done[w].size());
      for (auto& [k, v] : done[w]) acked[k] = v;
      if (failed[w]) in_flight[failed[w]->first] = failed[w]->second;
    }
  }
  capture.Take();
  std::printf(
      "[durable] %d power losses, %lld acknowledged writes (distinct keys), none lost; "
      "%d writes failing as the power went were kept; the losses dropped %lld unsynced "
      "bytes and %lld files not yet durable\n",
      kRounds, static_cast<long long>(writes_acked), failed_but_kept,
      static_cast<long long>(bytes_dropped), static_cast<long long>(files_deleted));
  EXPECT_GT(writes_acked, 100);
}

// Fast setting: the WAL is synced only when a memtable flush begins (RocksDB
// syncs the closed logs of a multi-column-family database then) and at close.
// A power loss loses the writes in the live log: a suffix of the acknowledged
// writes, no hole, no more than the log held unsynced.
TEST_F(StorageFaults, FastSettingLosesOnlyTheUnsyncedSuffix) {
  Options options = BaseOptions();  // 64 KiB write buffers
  Open(options);
  CreateGsiTable(db_.get(), kTable);
  constexpr int kWrites = 3000;
  for (int i = 0; i < kWrites; ++i) ASSERT_STATUS_OK(Put(db_.get(), Key(i), Value(Key(i), 0)));
  FaultFS::Loss loss = PowerLoss();
  Open(options);
  int kept = 0;
  while (kept < kWrites && Read(db_.get(), Key(kept)) == Value(Key(kept), 0)) ++kept;
  for (int i = kept; i < kWrites; ++i) {
    EXPECT_EQ(Read(db_.get(), Key(i)), "<none>") << "a hole before " << Key(i);
  }
  ExpectConsistent();
  const int lost = kWrites - kept;
  std::printf(
      "[fast, 64 KiB write buffers] %d acknowledged writes, %d lost (the last %d); the "
      "power loss dropped %llu unsynced bytes of write-ahead log (%llu a write), "
      "%llu bytes in all\n",
      kWrites, lost, lost, static_cast<unsigned long long>(loss.wal_bytes_dropped),
      static_cast<unsigned long long>(lost ? loss.wal_bytes_dropped / lost : 0),
      static_cast<unsigned long long>(loss.bytes_dropped));
  EXPECT_GT(lost, 0);
  EXPECT_LT(lost, kWrites / 4);
  // Each lost write had its 200-byte value (and more) in the unsynced log,
  // which holds no more than the memtables filled since the last flush
  // began: with 64 KiB write buffers the engine caps all memtables together
  // at 128 KiB (db_write_buffer_size).
  EXPECT_LE(static_cast<uint64_t>(lost) * 200, loss.wal_bytes_dropped);
  EXPECT_LE(loss.wal_bytes_dropped, 2u * (128u << 10));
}

// With RocksDB's 64 MiB write buffers no flush comes in a few thousand writes:
// nothing syncs the log, and a power loss loses every write since the open,
// however old. Only the size of the write buffers bounds the loss, not time.
TEST_F(StorageFaults, FastSettingWithLargeBuffersLosesEverythingSinceOpen) {
  Options options = BaseOptions();
  options.write_buffer_bytes = 0;  // RocksDB's 64 MiB
  Open(options);
  CreateGsiTable(db_.get(), kTable);
  db_.reset();  // a clean close: the table is durable
  Open(options);
  constexpr int kWrites = 2000;
  for (int i = 0; i < kWrites; ++i) ASSERT_STATUS_OK(Put(db_.get(), Key(i), Value(Key(i), 0)));
  const uint64_t unsynced_wal = fs_->UnsyncedBytes(FaultFS::kWal);
  FaultFS::Loss loss = PowerLoss();
  Open(options);
  auto all = ScanAll(db_.get());
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  std::printf(
      "[fast, 64 MiB write buffers] %d acknowledged writes, %d lost; %llu WAL bytes "
      "were unsynced, %llu dropped\n",
      kWrites, kWrites - static_cast<int>(all->size()),
      static_cast<unsigned long long>(unsynced_wal),
      static_cast<unsigned long long>(loss.wal_bytes_dropped));
  EXPECT_EQ(all->size(), 0u);
  ExpectConsistent();
}

// Closing the database syncs the log (DBImpl's destructor): after a clean
// close, a power loss loses nothing, fast setting or not.
TEST_F(StorageFaults, FastSettingLosesNothingAfterAClose) {
  Options options = BaseOptions();
  options.write_buffer_bytes = 0;
  Open(options);
  CreateGsiTable(db_.get(), kTable);
  for (int i = 0; i < 500; ++i) ASSERT_STATUS_OK(Put(db_.get(), Key(i), Value(Key(i), 0)));
  db_.reset();
  fs_->PowerOff();
  FaultFS::Loss loss = fs_->LosePower();
  EXPECT_EQ(loss.bytes_dropped, 0u) << loss.files_truncated << " files cut";
  Open(options);
  auto all = ScanAll(db_.get());
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), 500u);
}

// Group commit (dynarock/group_commit.h): a round whose flush fails. Its
// writes were applied but never logged: Flush() reports the error (the
// endpoint answers each of them InternalServerError), the database says so
// on stderr and refuses the next write, and after the fault and a reopen
// the writes acknowledged before are there and the failed round's are not.
TEST_F(StorageFaults, GroupCommitFlushThatFailsFailsItsRoundAndStopsWrites) {
  Options options = BaseOptions();
  options.group_commit = true;
  Open(options);
  CreateGsiTable(db_.get(), kTable);
  {
    GroupCommit commit;
    for (int i = 0; i < 20; ++i) ASSERT_STATUS_OK(Put(db_.get(), Key(i), Value(Key(i), 0)));
    ASSERT_STATUS_OK(commit.Flush());
    StderrCapture err;
    fs_->InjectErrors(FaultFS::kWrites, FaultFS::Error::kEIO, FaultFS::kWal);
    for (int i = 20; i < 25; ++i) ASSERT_STATUS_OK(Put(db_.get(), Key(i), Value(Key(i), 0)));
    EXPECT_EQ(Read(db_.get(), Key(24)), Value(Key(24), 0));  // applied, held
    const Status flushed = commit.Flush();
    EXPECT_EQ(flushed.type(), ErrorType::kInternalServerError) << flushed.ToString();
    const Status next = Put(db_.get(), Key(25), Value(Key(25), 0));
    EXPECT_EQ(next.type(), ErrorType::kInternalServerError) << next.ToString();
    EXPECT_NE(err.Take().find("storage error"), std::string::npos);
    fs_->ClearErrors();
  }
  db_.reset();  // the log kept its error: closed without a last sync
  Open(options);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(Read(db_.get(), Key(i)), Value(Key(i), 0)) << i;
  for (int i = 20; i < 26; ++i) EXPECT_EQ(Read(db_.get(), Key(i)), "<none>") << i;
  ASSERT_STATUS_OK(Put(db_.get(), Key(26), Value(Key(26), 0)));
  ExpectConsistent();
}

// ---- EIO and ENOSPC

struct ErrorCase {
  const char* name;
  unsigned ops;
  FaultFS::Error error;
  unsigned files;
  bool sync_writes;
  // Writes work again once the fault is gone without a reopen (DB::Resume()),
  // or only after reopening: what RocksDB 7.8 allows for the error.
  bool resumes_in_place;
};

class StorageErrors : public StorageFaults, public ::testing::WithParamInterface<ErrorCase> {};

TEST_P(StorageErrors, WritesFailReadsGoOnNothingIsDamagedWritesResume) {
  const ErrorCase& c = GetParam();
  Options options = BaseOptions();
  options.sync_writes = c.sync_writes;
  Open(options);
  CreateGsiTable(db_.get(), kTable);
  std::map<std::string, std::string> acked;
  int next = 0;
  auto write = [&]() -> Status {
    const std::string key = Key(next), value = Value(key, next);
    ++next;
    Status s = Put(db_.get(), key, value);
    if (s.ok()) acked[key] = value;
    return s;
  };
  for (int i = 0; i < 300; ++i) ASSERT_STATUS_OK(write());

  StderrCapture capture;
  fs_->InjectErrors(c.ops, c.error, c.files);
  // Faults on table files or the MANIFEST show once a flush needs them.
  Status failed;
  int ok_during_fault = 0;
  for (int i = 0; i < 5000 && failed.ok(); ++i) {
    failed = write();
    if (failed.ok()) ++ok_during_fault;
    // A flush runs in the background: give it time to fail before more writes pile up.
    if (failed.ok() && i % 200 == 199) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(failed.ok()) << c.name << ": no write failed";
  EXPECT_EQ(failed.type(), ErrorType::kInternalServerError) << failed.ToString();
  const Status again = write();
  EXPECT_EQ(again.type(), ErrorType::kInternalServerError) << again.ToString();
  // On the wire (the endpoint's own handler): HTTP 500 InternalServerError for
  // the write, 200 for a read.
  {
    api::Handler handler(db_.get());
    api::ApiReply put = handler.Handle(
        "PutItem", std::string(R"({"TableName":")") + kTable + R"(","Item":{"pk":{"S":"wire"}}})");
    EXPECT_EQ(put.http_status, 500) << put.body;
    EXPECT_NE(put.body.find("#InternalServerError"), std::string::npos) << put.body;
    api::ApiReply get =
        handler.Handle("GetItem", std::string(R"({"TableName":")") + kTable +
                                      R"(","Key":{"pk":{"S":")" + Key(0) + R"("}}})");
    EXPECT_EQ(get.http_status, 200) << get.body;
    EXPECT_NE(get.body.find(Value(Key(0), 0)), std::string::npos) << get.body;
  }

  // Reads go on, and return what was acknowledged.
  for (const auto& [k, v] : acked) ASSERT_EQ(Read(db_.get(), k), v) << k;
  auto all = ScanAll(db_.get());
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_GE(all->size(), acked.size());

  // The fault goes (space freed); writes resume, in place or after a reopen.
  fs_->ClearErrors();
  bool resumed = false;
  // RocksDB's SstFileManager looks for free space every 5 s; the engine
  // tries DB::Resume() once a second.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(c.resumes_in_place ? 8000 : 1500);
  while (!resumed && std::chrono::steady_clock::now() < deadline) {
    resumed = write().ok();
    if (!resumed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string log = capture.Take();
  EXPECT_NE(log.find("dynarock: storage error in " + dir_ + " ("), std::string::npos) << log;
  EXPECT_NE(log.find(c.error == FaultFS::Error::kENOSPC ? "No space left on device"
                                                        : "Input/output error"),
            std::string::npos)
      << log;
  EXPECT_EQ(resumed, c.resumes_in_place) << c.name << "\n" << log;
  if (resumed) {
    EXPECT_NE(log.find("dynarock: storage works again, writes to " + dir_ + " resumed"),
              std::string::npos)
        << log;
  } else {
    EXPECT_NE(log.find("writes fail until the database is reopened"), std::string::npos) << log;
    Open(options);
    ASSERT_STATUS_OK(write());
  }
  std::printf(
      "[%s] %d writes went through first, then InternalServerError (%s); writes "
      "resumed %s; the log said:\n%s",
      c.name, ok_during_fault, failed.message().c_str(), resumed ? "in place" : "after reopening",
      log.c_str());

  // Nothing already stored is damaged, across a reopen too.
  for (int reopen = 0; reopen < 2; ++reopen) {
    for (const auto& [k, v] : acked) ASSERT_EQ(Read(db_.get(), k), v) << k;
    ExpectConsistent();
    Open(options);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, StorageErrors,
    ::testing::Values(ErrorCase{"ENOSPC everywhere (disk full), durable",
                                FaultFS::kWrites | FaultFS::kSyncs, FaultFS::Error::kENOSPC,
                                FaultFS::kAllFiles, true, true},
                      ErrorCase{"ENOSPC everywhere (disk full), fast",
                                FaultFS::kWrites | FaultFS::kSyncs, FaultFS::Error::kENOSPC,
                                FaultFS::kAllFiles, false, true},
                      ErrorCase{"ENOSPC on table files (flush)", FaultFS::kWrites,
                                FaultFS::Error::kENOSPC, FaultFS::kTable, false, true},
                      ErrorCase{"EIO on WAL appends, fast", FaultFS::kWrites, FaultFS::Error::kEIO,
                                FaultFS::kWal, false, false},
                      ErrorCase{"EIO on WAL syncs, durable", FaultFS::kSyncs, FaultFS::Error::kEIO,
                                FaultFS::kWal, true, false},
                      ErrorCase{"EIO on table files (flush)", FaultFS::kWrites,
                                FaultFS::Error::kEIO, FaultFS::kTable, false, false},
                      ErrorCase{"EIO on MANIFEST writes", FaultFS::kWrites | FaultFS::kSyncs,
                                FaultFS::Error::kEIO, FaultFS::kManifest, false, false}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) {
      std::string name;
      for (const char* p = info.param.name; *p; ++p) {
        if (std::isalnum(static_cast<unsigned char>(*p))) name += *p;
      }
      return name;
    });

// A read the disk fails is an InternalServerError: never "no such item", so
// neither a GetItem nor a conditional write mistakes a failed read for absence.
TEST_F(StorageFaults, ReadErrorsFailReadsWithoutFakingAbsence) {
  Options options = BaseOptions();
  Open(options);
  CreateGsiTable(db_.get(), kTable);
  for (int i = 0; i < 500; ++i) ASSERT_STATUS_OK(Put(db_.get(), Key(i), Value(Key(i), 0)));
  Open(options);  // reopened: everything in table files, nothing cached

  fs_->InjectErrors(FaultFS::kReads, FaultFS::Error::kEIO, FaultFS::kTable);
  EXPECT_ERROR(Get(db_.get(), Key(7)), ErrorType::kInternalServerError, "Input/output error");
  EXPECT_ERROR(ScanAll(db_.get()), ErrorType::kInternalServerError, "Input/output error");
  PutItemRequest create;
  create.table_name = kTable;
  create.item = MakeItem({{"pk", S(Key(8))}, {"v", S("overwritten")}});
  create.condition_expression = "attribute_not_exists(pk)";
  EXPECT_ERROR(db_->PutItem(create), ErrorType::kInternalServerError, "Input/output error");
  EXPECT_GT(fs_->errors_injected(), 0u);

  fs_->ClearErrors();
  EXPECT_EQ(Read(db_.get(), Key(7)), Value(Key(7), 0));
  EXPECT_EQ(Read(db_.get(), Key(8)), Value(Key(8), 0));
  auto all = ScanAll(db_.get());
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 500u);
  ExpectConsistent();
}

// ---- corruption

// Bytes flipped in a data block of the items' table file: every read that
// meets the block fails with InternalServerError (block checksum mismatch),
// every other read returns the item as written, VerifyChecksums and
// `dynarock check` name the file.
TEST_F(StorageFaults, CorruptBlockIsDetectedReportedAndNeverReturned) {
  Options options = BaseOptions();
  options.write_buffer_bytes = 0;  // one table file for the items, written at reopen
  Open(options);
  CreateGsiTable(db_.get(), kTable);
  constexpr int kItems = 2000;
  for (int i = 0; i < kItems; ++i) ASSERT_STATUS_OK(Put(db_.get(), Key(i), Value(Key(i), 0)));
  Open(options);  // the log replayed into table files
  db_.reset();
  auto [clean_exit, clean_out] = RunCheck(dir_);
  EXPECT_EQ(clean_exit, 0) << clean_out;
  EXPECT_NE(clean_out.find(", 0 corrupt\nchecked 1 tables, 2000 items, 2000 index entries: OK"),
            std::string::npos)
      << clean_out;

  const std::vector<std::string> files = FaultFS::TableFiles(dir_, "items");
  ASSERT_EQ(files.size(), 1u);
  uint64_t offset = 0;
  ASSERT_TRUE(FaultFS::CorruptDataBlock(files[0], 0.5, &offset).ok());

  Open(options);
  auto sums = db_->VerifyChecksums();
  ASSERT_TRUE(sums.ok()) << sums.status().ToString();
  ASSERT_EQ(sums->corrupt.size(), 1u);
  EXPECT_NE(sums->corrupt[0].find(files[0] + ": Corruption: block checksum mismatch"),
            std::string::npos)
      << sums->corrupt[0];

  EXPECT_ERROR(ScanAll(db_.get()), ErrorType::kInternalServerError, "checksum mismatch");
  int failed = 0;
  for (int i = 0; i < kItems; ++i) {
    auto got = Get(db_.get(), Key(i));
    if (!got.ok()) {
      EXPECT_EQ(got.status().type(), ErrorType::kInternalServerError);
      EXPECT_NE(got.status().message().find("Corruption"), std::string::npos)
          << got.status().ToString();
      ++failed;
      continue;
    }
    ASSERT_EQ(got->value_or("<none>"), Value(Key(i), 0)) << Key(i);
  }
  std::printf(
      "[corruption] 8 bytes flipped at offset %llu of %s: %d of %d GetItems failed "
      "with InternalServerError, the others returned their item intact\n",
      static_cast<unsigned long long>(offset), files[0].c_str(), failed, kItems);
  EXPECT_GT(failed, 0);
  EXPECT_LT(failed, kItems / 4);
  db_.reset();

  auto [exit_code, out] = RunCheck(dir_);
  EXPECT_EQ(exit_code, 1) << out;
  EXPECT_NE(out.find("corrupt table file " + files[0] + ": Corruption: block checksum mismatch"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("1 corrupt"), std::string::npos) << out;

  // A compaction that meets the block stops rather than spread it: RocksDB
  // 7.8 deems the error unrecoverable, writes fail with InternalServerError
  // (and the log says a reopen is needed), reads of intact items go on, and
  // the corrupt file is still the only one.
  Options small = BaseOptions();  // 64 KiB write buffers: files, then compactions
  Open(small);
  StderrCapture capture;
  Status stopped;
  int writes = 0;
  for (; writes < 20000 && stopped.ok(); ++writes) {
    stopped = Put(db_.get(), "new" + Key(writes), Value(Key(writes), 1));
    if (writes % 200 == 199) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string log = capture.Take();
  EXPECT_EQ(stopped.type(), ErrorType::kInternalServerError) << stopped.ToString();
  EXPECT_NE(stopped.message().find("Corruption: block checksum mismatch"), std::string::npos)
      << stopped.ToString();
  EXPECT_NE(log.find("(a compaction): Corruption: block checksum mismatch"), std::string::npos)
      << log;
  EXPECT_NE(log.find("writes fail until the database is reopened"), std::string::npos) << log;
  std::printf(
      "[corruption] a compaction met the block after %d more writes: writes stopped "
      "(unrecoverable until reopened)\n",
      writes - 1);
  int intact = 0;
  for (int i = 0; i < kItems; ++i) intact += Read(db_.get(), Key(i)) == Value(Key(i), 0);
  EXPECT_GE(intact, kItems - failed);
  db_.reset();
  Open(small);
  sums = db_->VerifyChecksums();
  ASSERT_TRUE(sums.ok()) << sums.status().ToString();
  ASSERT_EQ(sums->corrupt.size(), 1u);
  EXPECT_EQ(sums->corrupt[0].rfind(files[0] + ": ", 0), 0u) << sums->corrupt[0];
}

}  // namespace
}  // namespace dynarock::testing
