// File: engine/table_load.h
//
// DBImpl::Loader: fills a table being created by a restore or a load
// (DB::LoadTable), which nobody else reads or writes until it is whole
// (TableInfo::loading). A new item's records are those any write of it would
// stage (its encoding, its index entries from index/, its statistics), minus
// the stream and history records a loading table has none of; how they reach
// RocksDB is the loader's own (engine/table_load.cc): on disk, a stager thread
// of the loader's own encodes the items handed to it while the caller adds
// the next ones, and sorts the table's and its indexes' entries into table
// files that are ingested, bypassing the memtable and the write-ahead log; in
// memory, sorted batches without the write-ahead log. A key added twice goes
// through StageWrite at Finish, over the version before it.

#ifndef DYNAROCK_ENGINE_TABLE_LOAD_H_
#define DYNAROCK_ENGINE_TABLE_LOAD_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "dynarock/backups.h"
#include "engine/db_impl.h"

namespace dynarock {

// Sorts `order` (numbers of entries, below kSuperseded) by their keys
// (`key_of`), then by number, and marks with kSuperseded each entry followed
// by another of the same key (a later version). A multikey sort, eight key
// bytes at a time: the keys of a table file share long prefixes.
constexpr uint32_t kSuperseded = 1u << 31;
void SortLoadEntries(const std::function<std::string_view(uint32_t)>& key_of,
                     std::vector<uint32_t>* order);

class DBImpl::Loader : public TableLoader {
 public:
  // `unique_keys`: every key is added once (a restore), so none is read back.
  Loader(DBImpl* db, const TableInfo* table, bool unique_keys);
  ~Loader() override;

  Status Add(Item item) override;
  Status AddPrepared(Item item) override;
  Status AddEncoded(std::string_view encoded) override;
  // An item in the item codec, as stored (restores).
  Status AddStored(std::string_view stored);
  Status SaveCheckpointWithTable(std::string_view name, std::string value) override;
  // Those checkpoints, for FinishLoading.
  const std::map<std::string, std::string, std::less<>>& checkpoints() const { return checkpoints_; }
  // Writes everything added, durably: the table can turn ACTIVE.
  Status Finish();
  // Waits until the items handed to the stager (on disk) are in table files
  // and ingested, and says how that went; an error is kept, and returned by
  // every later call. A load that fails waits for it before its table is
  // dropped.
  Status WaitForIngest();
  // Stops the stager once it has finished what it was handed, its writer
  // joined: no table file is being written or ingested after it returns. A
  // failed load calls it before its table is dropped; the destructor too.
  void Stop();

  int64_t items() const override { return items_; }
  int64_t bytes() const override { return bytes_; }

 private:
  // Bytes in buffers of a megabyte or more, never moved once written: one
  // allocation (and one free, on whichever thread) per megabyte.
  struct ByteArena {
    std::vector<std::unique_ptr<char[]>> chunks;
    char* next = nullptr;  // the last chunk's first free byte
    size_t room = 0;       // and how many follow it
    char* Take(size_t n);
    std::string_view Copy(std::string_view bytes);
  };
  struct Pending {
    std::string key;
    std::optional<Item> item;  // or, for AddEncoded, its encoding (its key
    std::string_view encoded;  // empty until DeriveKey): in the batch's arena,
    std::string own;           // or, set aside in later_, its own
    std::string_view bytes() const { return own.empty() ? encoded : std::string_view(own); }
    size_t size = 0;  // the item's DynamoDB size
  };
  // Entries bound for a column family's next table file.
  struct FileEntries {
    struct Ref {
      const char* at;  // the key; the value follows it
      uint32_t key_size, value_size;
    };
    ByteArena bytes;
    std::vector<Ref> refs;
    void Add(std::string_view key, std::string_view value);
    std::string_view key(const Ref& r) const { return {r.at, r.key_size}; }
    std::string_view value(const Ref& r) const { return {r.at + r.key_size, r.value_size}; }
    bool empty() const { return refs.empty(); }
  };

  // A set of 64-bit key hashes (open addressing; 0 stands for itself in
  // `zero_`): whether a key may have been added before.
  class KeyHashes {
   public:
    bool Insert(uint64_t h);  // false: there already
    void Prefetch(uint64_t h) const;  // h's slot, soon to be looked at
   private:
    size_t Slot(uint64_t h) const;
    std::vector<uint64_t> slots_;
    size_t size_ = 0;
    bool zero_ = false;
  };

  Status Stage(Pending p);
  // An item added encoded: its key read from its bytes (into `scratch`), and
  // checked as AddPrepared checks an item's.
  Status DeriveKey(Pending* p, Item* scratch);
  // Sets `p` aside in later_ (true) if its key may have been added before.
  bool Repeated(Pending* p, uint64_t hash);  // hash: std::hash of its key
  // On disk: hands a batch to the stager thread (started on the first),
  // waiting while kQueuedBatches are ahead of it; with `write_files`, the
  // table files are written once the batch is staged.
  Status Hand(std::vector<Pending> batch, ByteArena arena, bool write_files);
  void RunStager();
  // The stager's work on one batch: its entries into the table files'
  // buffers, its statistics written; the files sorted, written and ingested
  // when full (or asked).
  Status StageBatch(std::vector<Pending>* batch, bool write_files);
  // Waits for the table files being written (writer_), and says how that went.
  Status JoinWriter();
  // Writes stats_ (and clears it) with `batch`.
  Status WriteStats(rocksdb::WriteBatch* batch);
  // What a write of a new item stages, straight to `put(cf, key, value)`:
  // the item's encoding, its index entries (the same bytes for an index
  // projecting every attribute) and its statistics, summed in stats_.
  // `keys`: an encoded item's key attributes, if read already (DeriveKey).
  template <typename Put>
  Status StageNew(const Pending& p, const Item* keys, std::string* value, Put&& put);
  // Stages the pending items (in key order) and writes them; with `all`,
  // also ingests what is waiting for a table file, so that every item added
  // can be read back.
  Status Flush(bool all);
  // Writes the items whose keys were added before (later_), in order, each
  // over the version it replaces; after everything else is readable.
  Status WriteRepeated();
  // Sorts one column family's entries into table file `number` and ingests it.
  Status Ingest(rocksdb::ColumnFamilyHandle* cf, FileEntries* entries, int number);


  DBImpl* db_;
  const TableInfo* table_;
  bool unique_keys_;
  bool ingest_;  // on disk: through table files
  std::vector<Pending> pending_;
  ByteArena pending_arena_;  // pending_'s encoded items
  std::vector<Pending> later_;  // keys added before: written at Finish (or when many)
  size_t later_bytes_ = 0;
  size_t pending_bytes_ = 0;
  FileEntries items_file_, index_file_;  // waiting for Ingest
  // Statistics of the items staged since the last write: count and bytes per
  // table or index id (its StatsKey).
  std::vector<std::pair<uint32_t, std::pair<int64_t, int64_t>>> stats_;
  size_t file_bytes_ = 0;
  int files_ = 0;
  // The stager (on disk): batches waiting for it, whether it is at one, and
  // the first error it met. items_file_, index_file_, stats_ and the files'
  // numbering are its own while it runs.
  struct Handed {
    std::vector<Pending> items;
    ByteArena arena;  // their encodings
    bool write_files = false;
  };
  std::thread stager_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Handed> handed_;
  bool staging_ = false;
  bool stop_ = false;
  Status stager_status_;
  std::thread writer_;    // the stager's: sorting, writing and ingesting files
  Status writer_status_;  // its outcome, read after joining it
  KeyHashes seen_;  // hashes of every key added
  // The table's and its indexes' key attributes (sorted), what an encoded
  // item is read for; whether every index projects all attributes (else
  // StageNew decodes an encoded item whole); and the maps they are read into,
  // reused: keys_ by the caller's thread, stage_item_ by StageNew's.
  std::vector<std::string> key_names_;
  bool all_projected_ = true;
  Item keys_, stage_item_;
  Item derived_keys_[2];  // the stager's: an item's keys and the next one's
  std::map<std::string, std::string, std::less<>> checkpoints_;
  std::atomic<int64_t> items_ = 0;  // (less a key's earlier versions: WriteRepeated)
  std::atomic<int64_t> bytes_ = 0;
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_TABLE_LOAD_H_
