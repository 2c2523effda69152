// File: engine/storage_env.h
//
// Internal, for tests: opening a DB whose files go through a given RocksDB
// Env, such as one over a fault-injecting FileSystem (tests/unit/fault_fs.h:
// power loss, EIO and ENOSPC, corrupted blocks). The public header
// dynarock/db.h names no RocksDB type, so the hook lives here, outside the
// installed headers; embedders have no use for it.

#ifndef DYNAROCK_ENGINE_STORAGE_ENV_H_
#define DYNAROCK_ENGINE_STORAGE_ENV_H_

#include <memory>
#include <string_view>

#include "dynarock/db.h"

namespace rocksdb {
class Env;
class FileSystem;
class MergeOperator;
}  // namespace rocksdb

namespace dynarock::internal {

// DB::Open(options, path), with every file RocksDB reads or writes going
// through `env` (its threads and clock too). The DB holds `env` until it is
// destroyed. Ignored with options.in_memory (the memory Env is used). Files
// the engine writes itself (backups, saved snapshots) still go to the disk
// directly.
StatusOr<std::unique_ptr<DB>> OpenWithEnv(const Options& options, std::string_view path,
                                          std::shared_ptr<rocksdb::Env> env);

// DB::Open(options, path), a new directory created through `base` (wrapped
// as engine/fresh_directory.h wraps the disk's FileSystem) instead of the
// disk's: for tests that count the syncs reaching it.
StatusOr<std::unique_ptr<DB>> OpenCreatingThrough(const Options& options, std::string_view path,
                                                  std::shared_ptr<rocksdb::FileSystem> base);

// Compacts every column family of `db` (a DB::Open'd one) to its last
// level, as RocksDB's manual compaction does, the files written with the
// engine's own table options (Bloom and prefix filters): for benchmarks that
// measure a settled database. `items_bytes`, when given: the items' table
// files' bytes afterwards.
Status CompactAll(DB* db, uint64_t* items_bytes = nullptr);

// Returns once a new data directory that `db` (a DB::Open'd one) created
// is durable: its files and the directory synced and the creation's marker
// removed, which DB::Open leaves to a thread of its own
// (engine/fresh_directory.h). For tests, and for `serve`, which releases its
// start-up pages after it; writes with sync_writes wait for it themselves.
Status WaitForCreation(DB* db);

// The catalog column family's merge operator (index/maintainer.h's statistics
// deltas, summed), for programs that open a DB's files with RocksDB directly
// or mirror it (the benchmarks' raw baselines).
std::shared_ptr<rocksdb::MergeOperator> NewStatsMergeOperator();

}  // namespace dynarock::internal

#endif  // DYNAROCK_ENGINE_STORAGE_ENV_H_
