// File: bench/engine/fixtures.cc
//
// The databases the benchmarks share: the engine in memory with its tables
// and items, and a bare RocksDB set up like it with the same keys and values.

#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/engine/engine_bench.h"
#include "engine/api/json_encode.h"
#include "engine/expr/expression.h"
#include "engine/item_codec.h"
#include "engine/key_codec.h"
#include "engine/storage_env.h"
#include "index/maintainer.h"

namespace engine_bench {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "engine_bench: %s\n", what.c_str());
  std::abort();
}

void Check(const dynarock::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}
void Check(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

std::string Numbered(const char* prefix, int i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%06d", prefix, i);
  return buf;
}

// The write benchmarks' item, about 200 bytes (ItemSize): the table key
// (pk, sk), the key attributes of all five GSIs (gsiNpk, gsiNsk) and a few
// ordinary attributes. Every table gets the same item; only the number of
// GSIs differs.
Item WriteItem(int i, int64_t seq) {
  Item item;
  item["pk"] = AttributeValue::S(Numbered("user#", i));
  item["sk"] = AttributeValue::S("profile");
  for (int g = 1; g <= kMaxGsis; ++g) {
    const std::string n = std::to_string(g);
    item["gsi" + n + "pk"] = AttributeValue::S(Numbered(("g" + n + "#").c_str(), i % 1000));
    item["gsi" + n + "sk"] = AttributeValue::S(Numbered("t#", i));
  }
  item["email"] = AttributeValue::S(Numbered("user", i) + "@example.com");
  item["status"] = AttributeValue::S("active");
  item["seq"] = AttributeValue::N(std::to_string(seq));
  return item;
}

// The read benchmarks' item (~200 bytes): key pk (hash) + sk (range).
Item ReadItem(const std::string& pk, const std::string& sk, bool active) {
  Item item;
  item["pk"] = AttributeValue::S(pk);
  item["sk"] = AttributeValue::S(sk);
  item["status"] = AttributeValue::S(active ? "active" : "idle");
  item["name"] = AttributeValue::S("Frodo Baggins");
  item["email"] = AttributeValue::S("frodo@example.com");
  item["age"] = AttributeValue::N("51");
  item["score"] = AttributeValue::N("1234.5");
  item["verified"] = AttributeValue::Bool(true);
  item["tags"] = AttributeValue::SS({"hobbit", "ring-bearer", "shire"});
  item["bio"] = AttributeValue::S(std::string(80, 'b'));
  return item;
}

// A typical ~10-attribute item for the expression benchmarks.
Item ExpressionItem() {
  Item item = ReadItem("USER#Frodo", "profile", true);
  item["version"] = AttributeValue::N("3");
  item["counter"] = AttributeValue::N("41");
  item["tmp"] = AttributeValue::S("scratch");
  return item;
}

// A 20-attribute item of every type for the codec benchmarks.
Item CodecItem() {
  Item item = ReadItem("USER#Frodo", "profile", true);  // 10 attributes
  item["version"] = AttributeValue::N("3");
  item["balance"] = AttributeValue::N("-12.75");
  item["avatar"] = AttributeValue::B(std::string(48, '\x7f'));
  item["deleted"] = AttributeValue::Bool(false);
  item["manager"] = AttributeValue::Null();
  item["history"] = AttributeValue::L({AttributeValue::N("1"), AttributeValue::S("two"),
                                       AttributeValue::Bool(true)});
  item["address"] = AttributeValue::M({{"street", AttributeValue::S("Bagshot Row")},
                                       {"number", AttributeValue::N("3")},
                                       {"city", AttributeValue::S("Hobbiton")}});
  item["scores"] = AttributeValue::NS({"1", "2", "3", "5", "8"});
  item["keys"] = AttributeValue::BS({"\x01\x02", "\x03\x04"});
  item["lastSeen"] = AttributeValue::N("1700000000");
  return item;
}

// ---------------------------------------------------------------- the engine

dynarock::CreateTableRequest TableRequest(const std::string& name, int gsis) {
  dynarock::CreateTableRequest req;
  req.table_name = name;
  req.billing_mode = "PAY_PER_REQUEST";
  req.key_schema = {{"pk", dynarock::KeyType::kHash}, {"sk", dynarock::KeyType::kRange}};
  req.attribute_definitions = {{"pk", dynarock::AttrType::kS}, {"sk", dynarock::AttrType::kS}};
  for (int g = 1; g <= gsis; ++g) {
    const std::string n = std::to_string(g);
    dynarock::GlobalSecondaryIndex gsi;
    gsi.index_name = "gsi" + n;
    gsi.key_schema = {{"gsi" + n + "pk", dynarock::KeyType::kHash},
                      {"gsi" + n + "sk", dynarock::KeyType::kRange}};
    gsi.projection.projection_type = dynarock::ProjectionType::kAll;
    req.global_secondary_indexes.push_back(std::move(gsi));
    req.attribute_definitions.push_back({"gsi" + n + "pk", dynarock::AttrType::kS});
    req.attribute_definitions.push_back({"gsi" + n + "sk", dynarock::AttrType::kS});
  }
  return req;
}

Engine::Engine() {
  dynarock::Options options;
  // DYNAROCK_BENCH_DIR: the engine's files on disk there (emptied first)
  // instead of in memory, as an embedding app keeps them.
  const char* dir = std::getenv("DYNAROCK_BENCH_DIR");
  options.in_memory = dir == nullptr || *dir == '\0';
  // RocksDB's own write buffer size (64 MiB), stated, so that the engine keeps
  // the 32 MiB block cache too (in memory it would otherwise use its small
  // sizes, db.h) and the raw baseline below can mirror it exactly.
  options.write_buffer_bytes = 64u << 20;
  if (!options.in_memory) std::filesystem::remove_all(dir);
  auto opened = dynarock::DB::Open(options, options.in_memory ? "" : dir);
  Check(opened.status(), "DB::Open");
  db = std::move(*opened);
  for (int gsis : {0, 1, 5}) {
    Check(db->CreateTable(TableRequest("put" + std::to_string(gsis), gsis)).status(),
          "CreateTable");
  }
  auto streamed = TableRequest("records", 0);
  streamed.stream_specification = dynarock::StreamSpecification{true, "NEW_AND_OLD_IMAGES"};
  Check(db->CreateTable(streamed).status(), "CreateTable");
  Check(db->CreateTable(TableRequest("txn", 0)).status(), "CreateTable");
  Check(db->CreateTable(TableRequest("reads", 0)).status(), "CreateTable");
  Check(db->CreateTable(TableRequest("query", 0)).status(), "CreateTable");

  dynarock::PutItemRequest put;
  put.table_name = "reads";
  for (int i = 0; i < kReadKeys; ++i) {
    put.item = ReadItem(Numbered("user#", i), "profile", true);
    Check(db->PutItem(put).status(), "PutItem");
  }
  put.table_name = "query";
  for (int i = 0; i < kPartitionItems; ++i) {
    put.item = ReadItem("PARTITION", Numbered("item#", i), i % kFilterEvery == 0);
    Check(db->PutItem(put).status(), "PutItem");
  }
  for (int i = 0; i < kSmallPartitionItems; ++i) {
    put.item = ReadItem("SMALL", Numbered("item#", i), true);
    Check(db->PutItem(put).status(), "PutItem");
  }
  // A stream of kStreamRecords records (inserts of read-sized items).
  put.table_name = "records";
  for (int i = 0; i < kStreamRecords; ++i) {
    put.item = ReadItem(Numbered("user#", i), "profile", true);
    Check(db->PutItem(put).status(), "PutItem");
  }
  // The write benchmarks' items, built here rather than in a benchmark's
  // first iteration (which would skew its iteration count, and cgpair's).
  WriteItems();
}

Engine& GetEngine() {
  static Engine* engine = new Engine();  // never destroyed: no teardown order issues
  return *engine;
}

// 2 x kWriteKeys prebuilt write items: pass p over the keys uses variant p % 2,
// which differs from the stored item in "seq", so every overwrite really
// changes the item and its index entries. Benchmarks swap items in and out of
// their requests (O(1)), so building and copying items is not measured.
std::vector<Item>& WriteItems() {
  static auto* items = [] {
    auto* v = new std::vector<Item>();
    for (int variant = 0; variant < 2; ++variant) {
      for (int i = 0; i < kWriteKeys; ++i) v->push_back(WriteItem(i, variant));
    }
    return v;
  }();
  return *items;
}

Item& NextWriteItem(size_t* counter) {
  std::vector<Item>& items = WriteItems();
  const size_t n = (*counter)++;
  return items[(n / kWriteKeys) % 2 * kWriteKeys + n % kWriteKeys];
}

// ---------------------------------------------------------------- raw RocksDB

using dynarock::StatsDelta;
using dynarock::StatsKey;

Raw::Raw() {
  wo.disableWAL = true;  // as the engine writes in memory
  env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  db_options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  db_options.env = env.get();
  // The engine's sizes for the Options above (engine/db_impl.cc: explicit
  // write buffers, index and filter blocks in the 32 MiB block cache).
  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = rocksdb::NewLRUCache(32u << 20);
  table_options.cache_index_and_filter_blocks = true;
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  rocksdb::ColumnFamilyOptions cf_options;
  cf_options.write_buffer_size = 64u << 20;
  cf_options.max_write_buffer_number = 2;
  cf_options.arena_block_size = 8u << 20;
  db_options.db_write_buffer_size = 128u << 20;
  db_options.stats_dump_period_sec = 0;
  db_options.stats_persist_period_sec = 0;
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  rocksdb::ColumnFamilyOptions catalog_options = cf_options;
  catalog_options.merge_operator = dynarock::internal::NewStatsMergeOperator();
  rocksdb::ColumnFamilyOptions keyed_options = cf_options;  // with the partition-hash prefix
  keyed_options.prefix_extractor.reset(
      rocksdb::NewFixedPrefixTransform(dynarock::kPartitionHashPrefixBytes));
  rocksdb::BlockBasedTableOptions keyed_table = table_options;  // and its data blocks hashed
  keyed_table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  keyed_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(keyed_table));
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, catalog_options},
      {"items", keyed_options},
      {"indexes", keyed_options},
  };
  Check(rocksdb::DB::Open(db_options, "/engine-bench-raw", families, &handles, &db),
        "rocksdb::DB::Open");
  catalog = handles[0];
  items = handles[1];
  indexes = handles[2];

  const AttributeValue profile = AttributeValue::S("profile");
  write_value = dynarock::EncodeItem(WriteItem(0, 0));
  for (int i = 0; i < kWriteKeys; ++i) {
    Item item = WriteItem(i, 0);
    std::string item_key = dynarock::EncodeItemKey(kWriteTable, item["pk"], &item["sk"]);
    for (int g = 0; g < kMaxGsis; ++g) {
      const std::string n = std::to_string(g + 1);
      std::string key = dynarock::EncodePartitionPrefix(kIndexBase + g, item["gsi" + n + "pk"]);
      dynarock::AppendEscapedSortKey(item["gsi" + n + "sk"], &key);
      key += item_key;
      index_keys[g].push_back(std::move(key));
    }
    write_keys.push_back(std::move(item_key));
  }

  rocksdb::WriteBatch batch;
  for (int i = 0; i < kReadKeys; ++i) {
    Item item = ReadItem(Numbered("user#", i), "profile", true);
    read_keys.push_back(dynarock::EncodeItemKey(kReadTable, item["pk"], &profile));
    Check(batch.Put(items, read_keys.back(), dynarock::EncodeItem(item)), "Put");
  }
  partition_prefix = dynarock::EncodePartitionPrefix(kQueryTable, AttributeValue::S("PARTITION"));
  for (int i = 0; i < kPartitionItems; ++i) {
    Item item = ReadItem("PARTITION", Numbered("item#", i), i % kFilterEvery == 0);
    const AttributeValue sk = AttributeValue::S(Numbered("item#", i));
    Check(batch.Put(items, dynarock::EncodeItemKey(kQueryTable, item["pk"], &sk),
                    dynarock::EncodeItem(item)),
          "Put");
  }
  small_partition_prefix =
      dynarock::EncodePartitionPrefix(kQueryTable, AttributeValue::S("SMALL"));
  for (int i = 0; i < kSmallPartitionItems; ++i) {
    Item item = ReadItem("SMALL", Numbered("item#", i), true);
    const AttributeValue sk = AttributeValue::S(Numbered("item#", i));
    Check(batch.Put(items, dynarock::EncodeItemKey(kQueryTable, item["pk"], &sk),
                    dynarock::EncodeItem(item)),
          "Put");
  }
  // The engine's "records" table holds kStreamRecords more items in the same
  // column family: the same memtable size makes every search like for like.
  for (int i = 0; i < kStreamRecords; ++i) {
    Item item = ReadItem(Numbered("user#", i), "profile", true);
    Check(batch.Put(items, dynarock::EncodeItemKey(kRecordsTable, item["pk"], &profile),
                    dynarock::EncodeItem(item)),
          "Put");
  }
  Check(db->Write(wo, &batch), "Write");
}

Raw& GetRaw() {
  static Raw* raw = new Raw();
  return *raw;
}

}  // namespace engine_bench
