// File: engine/group_commit.cc
//
// GroupCommit (dynarock/group_commit.h) and the databases' LogFlush
// (engine/group_commit.h).

#include "engine/group_commit.h"

#include <algorithm>

#include "engine/rocksdb_status.h"

namespace dynarock {

namespace {
// The GroupCommit open on this thread, if any.
constinit thread_local GroupCommit* t_current = nullptr;
}  // namespace

GroupCommit::GroupCommit(std::function<void()> on_hold)
    : on_hold_(std::move(on_hold)), outer_(t_current) {
  t_current = this;
}

GroupCommit::~GroupCommit() {
  (void)Flush();
  t_current = outer_;
}

bool GroupCommit::Hold(const std::shared_ptr<internal::LogFlush>& log) {
  GroupCommit* g = t_current;
  if (g == nullptr) return false;
  ++g->holds_;
  // Nearly always one database: a linear look is the cheapest.
  if (std::find(g->held_.begin(), g->held_.end(), log) == g->held_.end()) {
    const bool first = g->held_.empty();
    g->held_.push_back(log);
    if (first && g->on_hold_) g->on_hold_();
  }
  return true;
}

Status GroupCommit::Flush() {
  Status first;
  // Moved out first: a flush that fails may be reported from code that
  // writes again on this thread.
  std::vector<std::shared_ptr<internal::LogFlush>> held = std::move(held_);
  held_.clear();
  for (const auto& log : held) {
    Status s = log->Flush();
    if (!s.ok() && first.ok()) first = std::move(s);
  }
  return first;
}

namespace internal {

Status LogFlush::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (db_ == nullptr) return Status();
  const rocksdb::Status s = db_->FlushWAL(/*sync=*/false);
  if (!s.ok()) {
    if (on_error_) on_error_(s);
    return FromRocksDB(s);
  }
  return Status();
}

void LogFlush::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  db_ = nullptr;
  on_error_ = nullptr;
}

}  // namespace internal
}  // namespace dynarock
