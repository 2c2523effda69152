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

namespace {

// The bytes of StatsKey() and StatsDelta(), written where the caller says.
constexpr size_t kStatsKeyBytes = 6;
constexpr size_t kStatsDeltaBytes = 16;
void PutStatsKey(uint32_t id, char* out) {
  out[0] = 's';
  out[1] = '/';
  for (int i = 0, shift = 24; shift >= 0; ++i, shift -= 8) out[2 + i] = static_cast<char>(id >> shift);
}
void PutStatsDelta(int64_t count, int64_t bytes, char* out) {
  memcpy(out, &count, 8);
  memcpy(out + 8, &bytes, 8);
}

}  // namespace

std::string StatsKey(uint32_t id) {
  char key[kStatsKeyBytes];
  PutStatsKey(id, key);
  return std::string(key, sizeof key);
}

std::string StatsDelta(int64_t count, int64_t bytes) {
  char delta[kStatsDeltaBytes];
  PutStatsDelta(count, bytes, delta);
  return std::string(delta, sizeof delta);
}

void DecodeStatsDelta(std::string_view value, int64_t* count, int64_t* bytes) {
  *count = *bytes = 0;
  if (value.size() != 16) return;
  memcpy(count, value.data(), 8);
  memcpy(bytes, value.data() + 8, 8);
}

std::optional<std::string> IndexEntryKey(const TableInfo& table, const IndexInfo& index,
                                         const Item& item) {
  // Every index key attribute, present and of its declared type (sparse indexes).
  const AttributeValue* parts[8];
  size_t n = 0;
  for (const auto* part : {&index.key.hash, &index.key.range}) {
    for (const auto& a : *part) {
      auto it = item.find(a.name);
      if (it == item.end() || it->second.type() != a.type) return std::nullopt;
      parts[n++] = &it->second;
    }
  }
  const size_t hash_count = index.key.hash.size();
  auto table_hash = item.find(table.key.hash_name());
  if (table_hash == item.end()) return std::nullopt;
  const AttributeValue* table_range = nullptr;
  if (table.key.has_range()) {
    auto it = item.find(table.key.range_name());
    if (it == item.end()) return std::nullopt;
    table_range = &it->second;
  }
  // One allocation, about right: the index's key parts, then the item's key.
  size_t hint = ItemKeySizeHint(table_hash->second, table_range);
  for (size_t i = 0; i < n; ++i) hint += parts[i]->scalar().size() + 6;
  std::string key;
  if (hash_count == 1) {
    key.reserve(hint);
    AppendItemKey(index.id, *parts[0], nullptr, &key);  // its partition prefix
  } else {
    key = EncodePartitionPrefix(index.id,
                                std::vector<const AttributeValue*>(parts, parts + hash_count));
    key.reserve(hint);
  }
  for (size_t i = hash_count; i < n; ++i) AppendEscapedSortKey(*parts[i], &key);
  AppendItemKey(table.id, table_hash->second, table_range, &key);
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

bool IndexProjectsAll(const IndexInfo& index) {
  return index.projection.projection_type.value_or(ProjectionType::kAll) == ProjectionType::kAll;
}

Item ProjectIndexEntry(const TableInfo& table, const IndexInfo& index, const Item& item) {
  if (IndexProjectsAll(index)) return item;
  Item out;
  for (const auto& [name, value] : item) {
    if (IndexProjects(table, index, name)) out.emplace(name, value);
  }
  return out;
}

void ForEachIndexEntry(
    const TableInfo& table, const Item& item, std::string_view encoded, size_t size,
    const std::function<void(const IndexInfo&, std::string_view key, std::string_view value,
                             size_t value_size)>& entry) {
  std::string projected;
  for (const IndexInfo& index : table.indexes) {
    const std::optional<std::string> key = IndexEntryKey(table, index, item);
    if (!key) continue;
    if (IndexProjectsAll(index)) {
      entry(index, *key, encoded, size);
      continue;
    }
    const Item kept = ProjectIndexEntry(table, index, item);
    const size_t kept_size = ItemSize(kept);
    projected.clear();
    EncodeItemTo(kept, kept_size, &projected);
    entry(index, *key, projected, kept_size);
  }
}

Status EmptyIndexKeyValue(std::string_view index_name, std::string_view name, AttrType type) {
  return ValidationError(
      "One or more parameter values are not valid. A value specified for a secondary index key "
      "is not supported. The AttributeValue for a key attribute cannot contain an empty " +
      std::string(type == AttrType::kS ? "string" : "binary") + " value. IndexName: " +
      std::string(index_name) + ", IndexKey: " + std::string(name));
}

Status CheckKeyPartSize(const std::vector<KeyAttribute>& attrs,
                        const std::vector<const AttributeValue*>& values,
                        std::string_view index_name, bool is_hash) {
  size_t size = 0;
  for (const AttributeValue* v : values) size += AttributeValueSize(*v);
  const size_t limit = is_hash ? kPartitionKeyBytesMax : kSortKeyBytesMax;
  if (size <= limit) return Status();
  std::string names;
  for (size_t i = 0; i < values.size() && i < attrs.size(); ++i) {
    if (i) names += ", ";
    names += attrs[i].name;
  }
  return ValidationError(std::string("Aggregate size for ") + (is_hash ? "HASH" : "RANGE") +
                         " key attributes " + names + " of index " + std::string(index_name) +
                         " has exceeded limit " + std::to_string(limit) +
                         " bytes, with actual size " + std::to_string(size) + " bytes");
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
        return EmptyIndexKeyValue(index.name, name, type);
      }
      return Status();
    };
    for (const auto& a : index.key.hash) {
      DR_RETURN_IF_ERROR(check(a.name, a.type, kPartitionKeyBytesMax));
    }
    for (const auto& a : index.key.range) DR_RETURN_IF_ERROR(check(a.name, a.type, kSortKeyBytesMax));
    if (index.key.multi_attribute()) {
      // Sizes summed per part, when the item has every attribute of the part.
      for (bool is_hash : {true, false}) {
        const auto& attrs = is_hash ? index.key.hash : index.key.range;
        std::vector<const AttributeValue*> values;
        for (const auto& a : attrs) {
          auto it = item.find(a.name);
          if (it == item.end()) break;
          values.push_back(&it->second);
        }
        if (values.size() == attrs.size()) {
          DR_RETURN_IF_ERROR(CheckKeyPartSize(attrs, values, index.name, is_hash));
        }
      }
    }
  }
  return Status();
}

Status StageIndexUpdates(const TableInfo& table, const Item* old_item, const Item* new_item,
                         rocksdb::ColumnFamilyHandle* index_cf,
                         StatsDeltas* stats, rocksdb::WriteBatch* batch,
                         const std::function<bool(const std::string&)>& entry_exists,
                         CapacityCounter* cost) {
  for (const auto& index : table.indexes) {
    std::optional<std::string> old_key, new_key;
    // The entries' attributes: the items themselves for an index projecting
    // all of them, else their projections (kept in *_kept).
    const bool all = IndexProjectsAll(index);
    Item old_kept, new_kept;
    const Item* old_entry_p = &old_kept;
    const Item* new_entry_p = &new_kept;
    if (old_item) {
      old_key = IndexEntryKey(table, index, *old_item);
      if (old_key && index.status != "ACTIVE" && !entry_exists(*old_key)) old_key.reset();
      if (old_key && all) old_entry_p = old_item;
      if (old_key && !all) old_kept = ProjectIndexEntry(table, index, *old_item);
    }
    if (new_item) {
      new_key = IndexEntryKey(table, index, *new_item);
      if (new_key && all) new_entry_p = new_item;
      if (new_key && !all) new_kept = ProjectIndexEntry(table, index, *new_item);
    }
    const Item& old_entry = *old_entry_p;
    const Item& new_entry = *new_entry_p;
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
      const size_t new_entry_size = ItemSize(new_entry);
      count += 1;
      bytes += static_cast<int64_t>(new_entry_size);
      if (!old_key || *old_key != *new_key || !(old_entry == new_entry)) {
        std::string value;
        EncodeItemTo(new_entry, new_entry_size, &value);
        DR_RETURN_IF_ERROR(FromRocksDB(batch->Put(index_cf, *new_key, value)));
      }
    }
    if (count != 0 || bytes != 0) {
      auto& [c, b] = (*stats)[index.id];
      c += count;
      b += bytes;
    }
  }
  return Status();
}

Status MergeStats(rocksdb::ColumnFamilyHandle* stats_cf, StatsDeltas* stats, rocksdb::WriteBatch* batch) {
  for (const auto& [id, delta] : *stats) {
    if (delta.first == 0 && delta.second == 0) continue;
    // StatsKey() and StatsDelta()'s bytes, on the stack.
    char key[kStatsKeyBytes];
    char value[kStatsDeltaBytes];
    PutStatsKey(id, key);
    PutStatsDelta(delta.first, delta.second, value);
    DR_RETURN_IF_ERROR(FromRocksDB(batch->Merge(stats_cf, rocksdb::Slice(key, sizeof key),
                                                rocksdb::Slice(value, sizeof value))));
  }
  stats->clear();
  return Status();
}

}  // namespace dynarock
