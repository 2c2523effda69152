// File: engine/table_load.h
//
// DBImpl::Loader: fills a table being created by a restore or a load
// (DB::LoadTable), which nobody else reads or writes until it is whole
// (TableInfo::loading). Items go through StageWrite, so index entries and
// statistics are those of any write; how they reach RocksDB is the loader's
// own (engine/table_load.cc): on disk, the table's and its indexes' entries
// are sorted into table files and ingested (on a thread of the loader's own),
// bypassing the memtable and the write-ahead log; in memory, sorted batches
// without the write-ahead log. A key added twice is written again at Finish,
// over the version before it.

#ifndef DYNAROCK_ENGINE_TABLE_LOAD_H_
#define DYNAROCK_ENGINE_TABLE_LOAD_H_

#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "dynarock/backups.h"
#include "engine/db_impl.h"

namespace dynarock {

class DBImpl::Loader : public TableLoader {
 public:
  // `unique_keys`: every key is added once (a restore), so none is read back.
  Loader(DBImpl* db, const TableInfo* table, bool unique_keys);
  ~Loader() override;

  Status Add(Item item) override;
  Status AddPrepared(Item item) override;
  // An item in the item codec, as stored (restores).
  Status AddStored(std::string_view stored);
  // Writes everything added, durably: the table can turn ACTIVE.
  Status Finish();
  // Waits for the table files being written (ingesting_), and says how that
  // went; an error is kept, and returned by every later call. A load that
  // fails waits for it before its table is dropped.
  Status WaitForIngest();

  int64_t items() const override { return items_; }
  int64_t bytes() const override { return bytes_; }

 private:
  struct Pending {
    std::string key;
    std::optional<Item> item;
    bool old_exists = false;
    size_t old_size = 0;
    std::optional<Item> old_item;
  };
  // An entry bound for a column family's next table file.
  using Entry = std::pair<std::string, std::string>;

  Status Stage(Pending p, size_t size);
  // Stages the pending items (in key order) and writes them; with `all`,
  // also ingests what is waiting for a table file, so that every item added
  // can be read back.
  Status Flush(bool all);
  // Writes the items whose keys were added before (later_), in order, each
  // over the version it replaces; after everything else is readable.
  Status WriteRepeated();
  // Sorts one column family's entries into table file `number` and ingests it.
  Status Ingest(rocksdb::ColumnFamilyHandle* cf, std::vector<Entry>* entries, int number);


  DBImpl* db_;
  const TableInfo* table_;
  bool unique_keys_;
  bool ingest_;  // on disk: through table files
  std::vector<Pending> pending_;
  std::vector<Pending> later_;  // keys added before: written at Finish (or when many)
  size_t later_bytes_ = 0;
  size_t pending_bytes_ = 0;
  std::vector<Entry> items_file_, index_file_;  // waiting for Ingest
  size_t file_bytes_ = 0;
  int files_ = 0;
  std::thread ingesting_;  // writing and ingesting the previous files
  Status ingest_status_;   // its outcome, read after joining it
  std::unordered_set<uint64_t> seen_;  // hashes of every key added
  int64_t items_ = 0;
  int64_t bytes_ = 0;
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_TABLE_LOAD_H_
