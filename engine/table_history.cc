// File: engine/table_history.cc
//
// A table as it was at a time, and what changed between two times: the
// point-in-time history (change_log.h, "point-in-time history") read
// against one snapshot of the table's items. RestoreTableToPointInTime,
// ExportTableToPointInTime and incremental exports read through here.
//
// The table at T is the items now with, for each item changed after T, the
// old image of its first change after T: the history is walked from its
// newest record back to T, so the map below ends up holding, per item, the
// earliest record after T. Its size is the number of items changed since T
// (kept in memory: docs/architecture.md, "Point-in-time recovery").

#include <rocksdb/db.h>

#include <cmath>
#include <map>
#include <memory>

#include "engine/change_log.h"
#include "engine/db_impl.h"
#include "engine/item_codec.h"
#include "engine/key_codec.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"
#include "engine/time_text.h"

namespace dynarock {
namespace {

// Releases a snapshot on every way out.
struct SnapshotHolder {
  rocksdb::DB* db;
  const rocksdb::Snapshot* snapshot;
  ~SnapshotHolder() { db->ReleaseSnapshot(snapshot); }
};

// ISO 8601 in UTC with milliseconds, as DynamoDB's messages print times.
std::string FormatTime(double t) { return Iso8601Millis(std::llround(t * 1000)); }

}  // namespace

Status DBImpl::CheckRestorableTime(const TableInfo& table, double time, ErrorType invalid) const {
  if (!table.pitr_since || table.pitr_history_id == 0) {
    return Status(ErrorType::kPointInTimeRecoveryUnavailable,
                  "Point in time recovery is not enabled for table '" + table.name + "'");
  }
  const double now = change_log_->Now();
  const double earliest = PitrWindowStart(table, now);
  // Times are kept to the millisecond.
  if (!std::isfinite(time) || time < earliest - 0.0005 || time > now + 0.0005) {
    return Status(invalid, "Only RestoreDateTime between " + FormatTime(earliest) + " and " +
                               FormatTime(now) + " can be used");
  }
  return Status();
}

Status DBImpl::CollectHistory(const TableInfo& table, double after, double to,
                              const rocksdb::Snapshot* snapshot, HistoryWalk* walk) const {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  ro.fill_cache = false;
  const std::string lower = ChangeLog::RecordKeyOf(table.pitr_history_id, 0);
  rocksdb::Slice lower_slice(lower);
  ro.iterate_lower_bound = &lower_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, change_log_->records()));
  ChangeLog::HistoryRecord r;
  Item keys;
  // Newest first: each item's entry is overwritten until it holds its
  // earliest record in the span.
  for (it->SeekForPrev(ChangeLog::RecordKeyOf(table.pitr_history_id, UINT64_MAX)); it->Valid();
       it->Prev()) {
    std::string_view k(it->key().data(), it->key().size());
    if (!ChangeLog::ParseHistoryRecord(k, std::string_view(it->value().data(), it->value().size()),
                                       &r)) {
      return InternalError("Corrupt point-in-time history record");
    }
    const double when = static_cast<double>(r.ms) / 1000.0;
    if (when <= after) break;
    keys.clear();
    if (!DecodeItem(r.keys, &keys)) return InternalError("Corrupt point-in-time history record");
    DR_ASSIGN_OR_RETURN(std::string key, ItemKey(table, keys, false));
    if (when > to) {
      walk->after_end[key] = r.old_image ? std::optional<std::string>(std::string(*r.old_image))
                                         : std::nullopt;
      continue;
    }
    HistoryWalk::Change& c = walk->in_span[key];
    if (c.write_micros == 0) {
      c.write_micros = static_cast<int64_t>(r.ms) * 1000;
      c.keys.assign(r.keys);
    }
    c.old_image = r.old_image ? std::optional<std::string>(std::string(*r.old_image)) : std::nullopt;
  }
  return FromRocksDB(it->status());
}

Status DBImpl::ReadTableAt(std::string_view table_name, std::optional<double> time,
                           const std::function<Status(std::string_view item)>& visit) {
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(table_name));
  SnapshotHolder snap{db_, db_->GetSnapshot()};
  HistoryWalk walk;
  if (time) {
    DR_RETURN_IF_ERROR(CheckRestorableTime(*table, *time, ErrorType::kInvalidRestoreTime));
    DR_RETURN_IF_ERROR(CollectHistory(*table, *time, *time, snap.snapshot, &walk));
  }
  auto& past = walk.after_end;  // item key -> the item at `time` (none: absent)
  TableScan it(db_, items_cf_, table->id, snap.snapshot);
  for (; it->Valid(); it->Next()) {
    if (shutting_down_.load(std::memory_order_relaxed)) return InternalError("The database is closing");
    std::string_view value(it->value().data(), it->value().size());
    if (!past.empty()) {
      auto found = past.find(std::string(it->key().data(), it->key().size()));
      if (found != past.end()) {
        if (found->second) DR_RETURN_IF_ERROR(visit(*found->second));
        past.erase(found);
        continue;
      }
    }
    DR_RETURN_IF_ERROR(visit(value));
  }
  DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
  // Items deleted since.
  for (const auto& [key, image] : past) {
    if (image) DR_RETURN_IF_ERROR(visit(*image));
  }
  return Status();
}

Status DBImpl::ReadTableChanges(std::string_view table_name, double from, double to,
                                const std::function<Status(const TableChange&)>& visit) {
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(table_name));
  if (!(from < to)) return ValidationError("The start of the span must be before its end");
  DR_RETURN_IF_ERROR(CheckRestorableTime(*table, from, ErrorType::kInvalidRestoreTime));
  DR_RETURN_IF_ERROR(CheckRestorableTime(*table, to, ErrorType::kInvalidRestoreTime));
  SnapshotHolder snap{db_, db_->GetSnapshot()};
  HistoryWalk walk;
  DR_RETURN_IF_ERROR(CollectHistory(*table, from, to, snap.snapshot, &walk));
  rocksdb::ReadOptions ro;
  ro.snapshot = snap.snapshot;
  TableChange change;
  for (auto& [key, c] : walk.in_span) {
    change.keys = std::move(c.keys);
    change.old_image = std::move(c.old_image);
    change.write_micros = c.write_micros;
    // The item at `to`: the old image of its first change after `to`, or now.
    auto later = walk.after_end.find(key);
    if (later != walk.after_end.end()) {
      change.new_image = std::move(later->second);
    } else {
      std::string now_value;
      rocksdb::Status s = db_->Get(ro, items_cf_, key, &now_value);
      if (!s.ok() && !s.IsNotFound()) return FromRocksDB(s);
      change.new_image = s.ok() ? std::optional<std::string>(std::move(now_value)) : std::nullopt;
    }
    if (!change.old_image && !change.new_image) continue;  // came and went within the span
    if (change.old_image && change.new_image && *change.old_image == *change.new_image) continue;
    DR_RETURN_IF_ERROR(visit(change));
  }
  return Status();
}

}  // namespace dynarock
