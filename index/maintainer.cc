#include "index/maintainer.h"

#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>

#include "engine/item_codec.h"
#include "dynarock/item_size.h"
#include "engine/key_codec.h"
#include "engine/limits.h"
#include "engine/rocksdb_status.h"

namespace dynarock {

std::string StatsKey(uint32_t id) {
  std::string key = "s/";
  for (int shift = 24; shift >= 0; shift -= 8) key.push_back(static_cast<char>(id >> shift));
  return key;
}

std::string StatsDelta(int64_t count, int64_t bytes) {
  std::string out(16, '\0');
  memcpy(&out[0], &count, 8);
  memcpy(&out[8], &bytes, 8);
  return out;
}

std::optional<std::string> IndexEntryKey(const TableInfo& table, const IndexInfo& index,
                                         const Item& item) {
  auto hash = item.find(index.key.hash_name);
  if (hash == item.end() || hash->second.type() != index.key.hash_type) return std::nullopt;
  const AttributeValue* range = nullptr;
  if (index.key.range_name) {
    auto it = item.find(*index.key.range_name);
    if (it == item.end() || it->second.type() != index.key.range_type) return std::nullopt;
    range = &it->second;
  }
  std::string key = EncodePartitionPrefix(index.id, hash->second);
  if (range) AppendEscapedSortKey(*range, &key);
  auto table_hash = item.find(table.key.hash_name);
  if (table_hash == item.end()) return std::nullopt;
  const AttributeValue* table_range = nullptr;
  if (table.key.range_name) {
    auto it = item.find(*table.key.range_name);
    if (it == item.end()) return std::nullopt;
    table_range = &it->second;
  }
  key += EncodeItemKey(table.id, table_hash->second, table_range);
  return key;
}

bool IndexProjects(const TableInfo& table, const IndexInfo& index, std::string_view name) {
  if (table.key.IsKeyAttribute(name) || index.key.IsKeyAttribute(name)) return true;
  switch (index.projection.projection_type.value_or(ProjectionType::kAll)) {
    case ProjectionType::kAll:
      return true;
    case ProjectionType::kKeysOnly:
      return false;
    case ProjectionType::kInclude:
      for (const auto& a : index.projection.non_key_attributes)
        if (a == name) return true;
      return false;
  }
  return true;
}

Item ProjectIndexEntry(const TableInfo& table, const IndexInfo& index, const Item& item) {
  if (index.projection.projection_type.value_or(ProjectionType::kAll) == ProjectionType::kAll) {
    return item;
  }
  Item out;
  for (const auto& [name, value] : item) {
    if (IndexProjects(table, index, name)) out.emplace(name, value);
  }
  return out;
}

Status CheckIndexKeyTypes(const TableInfo& table, const Item& item, bool by_update) {
  for (const auto& index : table.indexes) {
    auto check = [&](const std::string& name, AttrType type, size_t max_bytes) -> Status {
      auto it = item.find(name);
      if (it == item.end()) return Status();
      if (it->second.type() != type) {
        if (by_update) {
          return ValidationError(
              "The update expression attempted to update the secondary index key to "
              "unsupported type");
        }
        return ValidationError(
            "One or more parameter values were invalid: Type mismatch for Index Key " + name +
            " Expected: " + std::string(AttrTypeName(type)) +
            " Actual: " + std::string(AttrTypeName(it->second.type())) +
            " IndexName: " + index.name);
      }
      const size_t size = it->second.scalar().size();
      if ((type == AttrType::kS || type == AttrType::kB) && size > max_bytes) {
        if (by_update) {
          return ValidationError(
              "The update expression attempted to update the secondary index key beyond "
              "allowed size limits");
        }
        return ValidationError(
            "One or more parameter values were invalid: Size limit exceeded for Index Key " +
            name + " Actual Size: " + std::to_string(size) + " bytes Max Size: " +
            std::to_string(max_bytes) + " bytes IndexName: " + index.name);
      }
      if ((type == AttrType::kS || type == AttrType::kB) && it->second.scalar().empty()) {
        return ValidationError(
            "One or more parameter values are not valid. A value specified for a secondary index "
            "key is not supported. The AttributeValue for a key attribute cannot contain an "
            "empty " + std::string(type == AttrType::kS ? "string" : "binary") +
            " value. IndexName: " + index.name + ", IndexKey: " + name);
      }
      return Status();
    };
    DR_RETURN_IF_ERROR(check(index.key.hash_name, index.key.hash_type, kPartitionKeyBytesMax));
    if (index.key.range_name) {
      DR_RETURN_IF_ERROR(check(*index.key.range_name, index.key.range_type, kSortKeyBytesMax));
    }
  }
  return Status();
}

Status StageIndexUpdates(const TableInfo& table, const std::optional<Item>& old_item,
                         const std::optional<Item>& new_item, rocksdb::ColumnFamilyHandle* index_cf,
                         rocksdb::ColumnFamilyHandle* stats_cf, rocksdb::WriteBatch* batch,
                         const std::function<bool(const std::string&)>& entry_exists,
                         CapacityCounter* cost) {
  for (const auto& index : table.indexes) {
    std::optional<std::string> old_key, new_key;
    Item old_entry, new_entry;
    if (old_item) {
      old_key = IndexEntryKey(table, index, *old_item);
      if (old_key && index.status != "ACTIVE" && !entry_exists(*old_key)) old_key.reset();
      if (old_key) old_entry = ProjectIndexEntry(table, index, *old_item);
    }
    if (new_item) {
      new_key = IndexEntryKey(table, index, *new_item);
      if (new_key) new_entry = ProjectIndexEntry(table, index, *new_item);
    }
    if (cost) {
      double units = 0;
      size_t old_size = old_key ? ItemSize(old_entry) : 0;
      size_t new_size = new_key ? ItemSize(new_entry) : 0;
      if (old_key && new_key && *old_key == *new_key) {
        if (!(old_entry == new_entry)) units = WriteUnits(std::max(old_size, new_size));
      } else {
        if (old_key) units += WriteUnits(old_size);
        if (new_key) units += WriteUnits(new_size);
      }
      if (units > 0) cost->AddIndex(index.name, index.global, units);
    }
    int64_t count = 0, bytes = 0;
    if (old_key) {
      count -= 1;
      bytes -= static_cast<int64_t>(ItemSize(old_entry));
      if (!new_key || *new_key != *old_key) {
        DR_RETURN_IF_ERROR(FromRocksDB(batch->Delete(index_cf, *old_key)));
      }
    }
    if (new_key) {
      count += 1;
      bytes += static_cast<int64_t>(ItemSize(new_entry));
      if (!old_key || *old_key != *new_key || !(old_entry == new_entry)) {
        std::string value;
        EncodeItemTo(new_entry, &value);
        DR_RETURN_IF_ERROR(FromRocksDB(batch->Put(index_cf, *new_key, value)));
      }
    }
    if (count != 0 || bytes != 0) {
      DR_RETURN_IF_ERROR(FromRocksDB(batch->Merge(stats_cf, StatsKey(index.id), StatsDelta(count, bytes))));
    }
  }
  return Status();
}

}  // namespace dynarock
