// Group commit (dynarock/group_commit.h): with Options::group_commit, a write
// made where a GroupCommit is open leaves its record out of the log file until
// Flush() (and the GroupCommit's end); its reader sees it at once; the first
// write after a flush asks for one (on_hold); a write with no GroupCommit open,
// or to a database without the option, reaches the log file before it returns;
// flushed writes survive a crash of the process; a database closed while a
// GroupCommit holds it loses nothing.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "dynarock/db.h"
#include "dynarock/group_commit.h"
#include "engine/storage_env.h"
#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

namespace fs = std::filesystem;

class GroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("dynarock_group_commit_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<DB> Open(bool group_commit) {
    Options o;
    o.group_commit = group_commit;
    o.ttl_sweep_seconds = 0;
    auto db = DB::Open(o, dir_);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    if (!db.ok()) return nullptr;
    const Status created = internal::WaitForCreation(db->get());
    EXPECT_TRUE(created.ok()) << created.ToString();
    return std::move(*db);
  }

  // Bytes in the write-ahead log files, as the operating system has them.
  uint64_t LogBytes() const {
    uint64_t n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().extension() == ".log") n += e.file_size();
    }
    return n;
  }

  static Status Put(DB* db, const std::string& key) {
    PutItemRequest put;
    put.table_name = "things";
    put.item = MakeItem({{"pk", S(key)}, {"v", S(std::string(100, 'v'))}});
    return db->PutItem(put).status();
  }
  static bool Has(DB* db, const std::string& key) {
    GetItemRequest get;
    get.table_name = "things";
    get.key = MakeItem({{"pk", S(key)}});
    auto got = db->GetItem(get);
    return got.ok() && got->item.has_value();
  }

  std::string dir_;
};

TEST_F(GroupCommitTest, HeldWritesReachTheLogFileAtFlush) {
  auto db = Open(true);
  ASSERT_TRUE(db);
  ASSERT_OK(db->CreateTable(PkTableRequest("things")));
  int asked = 0;
  GroupCommit commit([&] { ++asked; });
  const uint64_t before = LogBytes();
  ASSERT_STATUS_OK(Put(db.get(), "a"));
  ASSERT_STATUS_OK(Put(db.get(), "b"));
  EXPECT_EQ(asked, 1);  // the first write asks for the flush, once
  EXPECT_TRUE(commit.holding());
  EXPECT_EQ(commit.holds(), 2u);
  EXPECT_EQ(LogBytes(), before);  // nothing written to the file yet
  EXPECT_TRUE(Has(db.get(), "a"));  // but applied
  ASSERT_STATUS_OK(commit.Flush());
  EXPECT_FALSE(commit.holding());
  EXPECT_GT(LogBytes(), before);
  // The next round asks again.
  const uint64_t flushed = LogBytes();
  ASSERT_STATUS_OK(Put(db.get(), "c"));
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(LogBytes(), flushed);
  ASSERT_STATUS_OK(commit.Flush());
  EXPECT_GT(LogBytes(), flushed);
  // A flush with nothing held does nothing.
  ASSERT_STATUS_OK(commit.Flush());
  EXPECT_EQ(commit.holds(), 3u);
}

TEST_F(GroupCommitTest, WritesWithoutAGroupCommitOrTheOptionReachTheLogAtOnce) {
  {
    auto db = Open(true);
    ASSERT_TRUE(db);
    ASSERT_OK(db->CreateTable(PkTableRequest("things")));
    const uint64_t before = LogBytes();
    ASSERT_STATUS_OK(Put(db.get(), "a"));  // no GroupCommit open on this thread
    EXPECT_GT(LogBytes(), before);
  }
  auto db = Open(false);
  ASSERT_TRUE(db);
  GroupCommit commit;
  const uint64_t before = LogBytes();
  ASSERT_STATUS_OK(Put(db.get(), "b"));
  EXPECT_FALSE(commit.holding());
  EXPECT_EQ(commit.holds(), 0u);
  EXPECT_GT(LogBytes(), before);
}

TEST_F(GroupCommitTest, AnEndingGroupCommitFlushesAndTheOuterOneIsBack) {
  auto db = Open(true);
  ASSERT_TRUE(db);
  ASSERT_OK(db->CreateTable(PkTableRequest("things")));
  GroupCommit outer;
  uint64_t before = LogBytes();
  {
    GroupCommit inner;
    ASSERT_STATUS_OK(Put(db.get(), "a"));
    EXPECT_TRUE(inner.holding());
    EXPECT_FALSE(outer.holding());
    EXPECT_EQ(LogBytes(), before);
  }
  EXPECT_GT(LogBytes(), before);
  before = LogBytes();
  ASSERT_STATUS_OK(Put(db.get(), "b"));
  EXPECT_TRUE(outer.holding());
  EXPECT_EQ(LogBytes(), before);
  ASSERT_STATUS_OK(outer.Flush());
  EXPECT_GT(LogBytes(), before);
}

TEST_F(GroupCommitTest, ADatabaseClosedWhileHeldLosesNothing) {
  GroupCommit commit;
  {
    auto db = Open(true);
    ASSERT_TRUE(db);
    ASSERT_OK(db->CreateTable(PkTableRequest("things")));
    ASSERT_STATUS_OK(Put(db.get(), "a"));
    EXPECT_TRUE(commit.holding());
  }  // closed: its own close writes and syncs the log
  ASSERT_STATUS_OK(commit.Flush());  // nothing left to do, and nothing touched
  auto db = Open(true);
  ASSERT_TRUE(db);
  EXPECT_TRUE(Has(db.get(), "a"));
}

// The crash test's child: opens `dir`, writes kFlushed items through a
// GroupCommit, flushing every seven, then holds five more and dies without
// closing anything (RocksDB's buffers lost). Exits 2-6 on a failure.
constexpr int kFlushed = 3000;
constexpr char kChildEnv[] = "DYNAROCK_GROUP_COMMIT_CHILD";

[[noreturn]] void CrashingWriter(const std::string& dir) {
  Options o;
  o.group_commit = true;
  o.ttl_sweep_seconds = 0;
  o.write_buffer_bytes = 64u << 10;
  auto opened = DB::Open(o, dir);
  if (!opened.ok()) ::_exit(2);
  DB* db = opened->release();  // never closed
  if (!db->CreateTable(PkTableRequest("things")).ok()) ::_exit(3);
  auto* commit = new GroupCommit();  // never ended
  for (int i = 0; i < kFlushed; ++i) {
    PutItemRequest put;
    put.table_name = "things";
    put.item = MakeItem({{"pk", S("k" + std::to_string(i))}, {"v", S(std::string(100, 'v'))}});
    if (!db->PutItem(put).ok()) ::_exit(4);
    if (i % 7 == 6 && !commit->Flush().ok()) ::_exit(5);
  }
  if (!commit->Flush().ok()) ::_exit(6);
  for (int i = 0; i < 5; ++i) {
    PutItemRequest put;
    put.table_name = "things";
    put.item = MakeItem({{"pk", S("held" + std::to_string(i))}});
    (void)db->PutItem(put);
  }
  ::_exit(0);
}

// Every write flushed before the writer's death is there. Small write
// buffers switch memtables (and so logs) every few hundred writes, some of
// them while writes are held: the held records of the log being closed must
// reach it too. (The writer is this test binary run again: a forked child
// of a process with RocksDB's thread pools would wait for threads it lacks.)
TEST_F(GroupCommitTest, FlushedWritesSurviveACrashOfTheProcess) {
  if (const char* dir = std::getenv(kChildEnv)) CrashingWriter(dir);
  std::error_code ec;
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  ASSERT_FALSE(ec);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv(kChildEnv, dir_.c_str(), 1);
    std::string filter = "--gtest_filter=GroupCommitTest.FlushedWritesSurviveACrashOfTheProcess";
    char* argv[] = {const_cast<char*>(self.c_str()), filter.data(), nullptr};
    ::execv(self.c_str(), argv);
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  size_t tables = 0;
  for (const auto& e : fs::directory_iterator(dir_)) tables += e.path().extension() == ".sst";
  EXPECT_GT(tables, 2u);  // memtables were flushed: logs switched under held writes
  auto db = Open(true);
  ASSERT_TRUE(db);
  int missing = 0;
  for (int i = 0; i < kFlushed; ++i) missing += Has(db.get(), "k" + std::to_string(i)) ? 0 : 1;
  EXPECT_EQ(missing, 0);
  auto d = db->DescribeTable(DescribeTableRequest{"things"});
  ASSERT_TRUE(d.ok());
  EXPECT_GE(d->table.item_count, kFlushed);
}

}  // namespace
}  // namespace dynarock::testing
