// A new data directory created with its syncs held until it is complete
// (engine/fresh_directory.h): no marker left once it is open, its items kept
// across a reopen; a creation cut short (the marker, a CURRENT whose contents
// never reached the disk) created again; the same with a table file present
// refused and left as it is; a complete database whose marker removal was cut
// short opened with its items, the marker removed; and the deferring
// FileSystem's syncs held while it defers and passed on after.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "dynarock/db.h"
#include "engine/fresh_directory.h"
#include "engine/storage_env.h"
#include "tests/unit/testutil.h"

namespace dynarock::testing {
namespace {

namespace fs = std::filesystem;


class FreshDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("dynarock_fresh_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    dir_ = (root_ / "data").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  bool Marker() const { return fs::exists(fs::path(dir_) / internal::kCreatingMarker); }

  static void Write(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  }

  void PutOne(DB* db) {
    ASSERT_OK(db->CreateTable(PkTableRequest("things")));
    PutItemRequest put;
    put.table_name = "things";
    put.item = MakeItem({{"pk", S("k")}, {"v", N("7")}});
    ASSERT_OK(db->PutItem(put));
  }
  static bool HasOne(DB* db) {
    GetItemRequest get;
    get.table_name = "things";
    get.key = MakeItem({{"pk", S("k")}});
    auto got = db->GetItem(get);
    return got.ok() && got->item && got->item->at("v") == N("7");
  }

  fs::path root_;
  std::string dir_;
};

TEST_F(FreshDirectoryTest, ANewDirectoryIsCompleteWhenOpenAndKeepsItsItems) {
  {
    auto db = DB::Open(Options(), dir_);
    ASSERT_OK(db);
    ASSERT_TRUE(internal::WaitForCreation(db->get()).ok());  // made durable on a thread of its own
    EXPECT_FALSE(Marker());
    EXPECT_TRUE(fs::exists(fs::path(dir_) / "CURRENT"));
    // Owner only, as before: the directory holds every item in clear.
    EXPECT_EQ(fs::status(dir_).permissions() & fs::perms::all, fs::perms::owner_all);
    PutOne(db->get());
  }
  auto db = DB::Open(Options(), dir_);
  ASSERT_OK(db);
  EXPECT_TRUE(HasOne(db->get()));
  EXPECT_FALSE(Marker());
}

TEST_F(FreshDirectoryTest, ACreationCutShortIsCreatedAgain) {
  // What a machine crash during the creation can leave: the marker, a
  // CURRENT that was renamed into place but whose contents were lost, a
  // manifest and an options file that were never synced.
  {
    auto db = DB::Open(Options(), dir_);
    ASSERT_OK(db);
  }
  Write(fs::path(dir_) / internal::kCreatingMarker, "");
  Write(fs::path(dir_) / "CURRENT", "");
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path().filename().string().rfind("MANIFEST-", 0) == 0) fs::resize_file(e.path(), 0);
  }
  auto db = DB::Open(Options(), dir_);
  ASSERT_OK(db);
  ASSERT_TRUE(internal::WaitForCreation(db->get()).ok());
  EXPECT_FALSE(Marker());
  // The cut-short files set aside, not deleted.
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "creation-cut-short-1" / "CURRENT"));
  PutOne(db->get());
  EXPECT_TRUE(HasOne(db->get()));
  db->reset();
  auto again = DB::Open(Options(), dir_);
  ASSERT_OK(again);
  EXPECT_TRUE(HasOne(again->get()));
}

TEST_F(FreshDirectoryTest, ACorruptDirectoryWithTableFilesIsReportedNotCleared) {
  {
    auto db = DB::Open(Options(), dir_);
    ASSERT_OK(db);
  }
  Write(fs::path(dir_) / internal::kCreatingMarker, "");
  Write(fs::path(dir_) / "CURRENT", "");
  Write(fs::path(dir_) / "000042.sst", "not really a table");
  auto db = DB::Open(Options(), dir_);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("Cannot open the database"), std::string::npos)
      << db.status().message();
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "000042.sst"));
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "CURRENT"));
  EXPECT_TRUE(Marker());
}

TEST_F(FreshDirectoryTest, AMarkerBesideACurrentThatReachedTheDiskIsNotACutShortCreation) {
  // Items only in the write-ahead log (no table file yet), CURRENT intact, the
  // MANIFEST it names damaged: a corrupt database with data, not a creation.
  {
    auto db = DB::Open(Options(), dir_);
    ASSERT_OK(db);
    PutOne(db->get());
  }
  Write(fs::path(dir_) / internal::kCreatingMarker, "");
  std::ifstream current(fs::path(dir_) / "CURRENT");
  std::string manifest;
  std::getline(current, manifest);
  ASSERT_EQ(manifest.rfind("MANIFEST-", 0), 0u) << manifest;
  Write(fs::path(dir_) / manifest, "garbage that is no manifest");
  size_t logs = 0;
  for (const auto& e : fs::directory_iterator(dir_)) logs += e.path().extension() == ".log";
  auto db = DB::Open(Options(), dir_);
  ASSERT_FALSE(db.ok());
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "creation-cut-short-1"));
  size_t after = 0;
  for (const auto& e : fs::directory_iterator(dir_)) after += e.path().extension() == ".log";
  EXPECT_EQ(after, logs);
  EXPECT_GT(logs, 0u);
}

TEST_F(FreshDirectoryTest, AnOpenThatCreatesNothingStillFinishesALeftoverMarker) {
  {
    auto db = DB::Open(Options(), dir_);
    ASSERT_OK(db);
    PutOne(db->get());
  }
  Write(fs::path(dir_) / internal::kCreatingMarker, "");
  Options existing;
  existing.create_if_missing = false;
  auto db = DB::Open(existing, dir_);
  ASSERT_OK(db);
  EXPECT_TRUE(HasOne(db->get()));
  EXPECT_FALSE(Marker());
}

TEST_F(FreshDirectoryTest, WithoutTheMarkerACorruptDirectoryIsLeftAsItIs) {
  {
    auto db = DB::Open(Options(), dir_);
    ASSERT_OK(db);
    PutOne(db->get());
  }
  Write(fs::path(dir_) / "CURRENT", "");
  auto db = DB::Open(Options(), dir_);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(fs::file_size(fs::path(dir_) / "CURRENT"), 0u);
}

TEST_F(FreshDirectoryTest, AMarkerLeftOnACompleteDatabaseIsRemovedAndItsItemsKept) {
  {
    auto db = DB::Open(Options(), dir_);
    ASSERT_OK(db);
    PutOne(db->get());
  }
  Write(fs::path(dir_) / internal::kCreatingMarker, "");
  auto db = DB::Open(Options(), dir_);
  ASSERT_OK(db);
  EXPECT_TRUE(HasOne(db->get()));
  EXPECT_FALSE(Marker());
}

// The marker goes only where no database has begun, and only once; a
// directory that RocksDB could not create leaves RocksDB's own creation to
// report it (BeginCreation's refusal is not an error of DB::Open).
TEST_F(FreshDirectoryTest, TheMarkerGoesOnlyWhereNoDatabaseHasBegun) {
  ASSERT_TRUE(internal::BeginCreation(dir_).ok());
  EXPECT_TRUE(Marker());
  EXPECT_EQ(fs::status(dir_).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_FALSE(internal::BeginCreation(dir_).ok());  // the marker is there already
  ASSERT_TRUE(internal::FinishCreation(dir_).ok());
  EXPECT_FALSE(Marker());
  Write(fs::path(dir_) / "CURRENT", "MANIFEST-000001\n");
  Status refused = internal::BeginCreation(dir_);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("A database was begun in"), std::string::npos)
      << refused.message();
  EXPECT_FALSE(Marker());
  // Without a marker nothing is set aside, whatever CURRENT says.
  Write(fs::path(dir_) / "CURRENT", "");
  EXPECT_FALSE(internal::RecoverInterruptedCreation(dir_));
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "CURRENT"));
  // A path that cannot be a directory: refused, and DB::Open reports RocksDB's error.
  const std::string file = (root_ / "a-file").string();
  Write(file, "x");
  EXPECT_FALSE(internal::BeginCreation(file).ok());
  auto db = DB::Open(Options(), file);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("Cannot open the database"), std::string::npos)
      << db.status().message();
}

// A FileSystem under the deferring one that counts the syncs reaching it.
class CountingFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit CountingFileSystem(std::atomic<int>* syncs)
      : FileSystemWrapper(rocksdb::FileSystem::Default()), syncs_(syncs) {}
  const char* Name() const override { return "CountingFileSystem"; }
  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* dbg) override {
    auto s = target()->NewWritableFile(f, o, r, dbg);
    if (s.ok()) *r = std::make_unique<File>(std::move(*r), syncs_);
    return s;
  }
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& o,
                                 std::unique_ptr<rocksdb::FSDirectory>* r,
                                 rocksdb::IODebugContext* dbg) override {
    auto s = target()->NewDirectory(name, o, r, dbg);
    if (s.ok()) *r = std::make_unique<Dir>(std::move(*r), syncs_);
    return s;
  }

 private:
  class Dir : public rocksdb::FSDirectoryWrapper {
   public:
    Dir(std::unique_ptr<rocksdb::FSDirectory>&& d, std::atomic<int>* syncs)
        : FSDirectoryWrapper(std::move(d)), syncs_(syncs) {}
    rocksdb::IOStatus Fsync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
      ++*syncs_;
      return FSDirectoryWrapper::Fsync(o, d);
    }
    rocksdb::IOStatus FsyncWithDirOptions(const rocksdb::IOOptions& o, rocksdb::IODebugContext* d,
                                          const rocksdb::DirFsyncOptions& f) override {
      ++*syncs_;
      return FSDirectoryWrapper::FsyncWithDirOptions(o, d, f);
    }

   private:
    std::atomic<int>* syncs_;
  };
  class File : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    File(std::unique_ptr<rocksdb::FSWritableFile>&& f, std::atomic<int>* syncs)
        : FSWritableFileOwnerWrapper(std::move(f)), syncs_(syncs) {}
    rocksdb::IOStatus Sync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
      ++*syncs_;
      return target()->Sync(o, d);
    }
    rocksdb::IOStatus Fsync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
      ++*syncs_;
      return target()->Fsync(o, d);
    }

   private:
    std::atomic<int>* syncs_;
  };
  std::atomic<int>* syncs_;
};

// Through the engine: none of RocksDB's syncs reaches the disk's FileSystem
// while a new directory is created (the directory is made durable with
// fsync(2) after), and a write with sync_writes syncs its log once it is open.
TEST_F(FreshDirectoryTest, ANewDirectorysSyncsWaitAndLaterWritesSync) {
  std::atomic<int> syncs{0};
  Options options;
  options.sync_writes = true;
  auto db = internal::OpenCreatingThrough(options, dir_,
                                          std::make_shared<CountingFileSystem>(&syncs));
  ASSERT_OK(db);
  EXPECT_EQ(syncs.load(), 0);
  // A write with sync_writes is acknowledged only once the new directory is
  // durable: the marker is gone by then without waiting for it here.
  PutOne(db->get());
  EXPECT_FALSE(Marker());
  EXPECT_GT(syncs.load(), 0);
  db->reset();
  auto again = DB::Open(Options(), dir_);
  ASSERT_OK(again);
  EXPECT_TRUE(HasOne(again->get()));
}

// Without sync_writes the creation's syncs do not hold up the open or a
// write, and closing the database waits for them: no marker is left behind.
TEST_F(FreshDirectoryTest, TheCreationIsDurableByTheCloseWithoutSyncWrites) {
  for (int i = 0; i < 5; ++i) {
    fs::remove_all(dir_);
    {
      auto db = DB::Open(Options(), dir_);
      ASSERT_OK(db);
      PutOne(db->get());
    }
    EXPECT_FALSE(Marker()) << i;
    auto db = DB::Open(Options(), dir_);
    ASSERT_OK(db);
    EXPECT_TRUE(HasOne(db->get()));
    ASSERT_TRUE(internal::WaitForCreation(db->get()).ok());  // nothing to wait for: not a new directory
  }
}

TEST_F(FreshDirectoryTest, SyncsAreHeldWhileDeferringAndPassedOnAfter) {
  std::atomic<int> syncs{0};
  auto deferring = std::make_shared<internal::DeferredSyncFileSystem>(
      std::make_shared<CountingFileSystem>(&syncs));
  fs::create_directories(dir_);
  const std::string name = dir_ + "/file";
  std::unique_ptr<rocksdb::FSWritableFile> file;
  ASSERT_TRUE(deferring->NewWritableFile(name, rocksdb::FileOptions(), &file, nullptr).ok());
  ASSERT_TRUE(file->Append("abc", rocksdb::IOOptions(), nullptr).ok());
  ASSERT_TRUE(file->Sync(rocksdb::IOOptions(), nullptr).ok());
  ASSERT_TRUE(file->Fsync(rocksdb::IOOptions(), nullptr).ok());
  EXPECT_EQ(syncs.load(), 0);
  deferring->EndDeferral();
  ASSERT_TRUE(file->Sync(rocksdb::IOOptions(), nullptr).ok());
  EXPECT_EQ(syncs.load(), 1);
  ASSERT_TRUE(file->Close(rocksdb::IOOptions(), nullptr).ok());
  EXPECT_EQ(fs::file_size(name), 3u);
}

}  // namespace
}  // namespace dynarock::testing
