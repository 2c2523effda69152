#include "engine/consistency.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace dynarock {

IndexLag::IndexLag(double min_seconds, double max_seconds, uint64_t seed,
                   std::function<Status(rocksdb::WriteBatch*)> write, std::function<double()> now)
    : min_(std::max(0.0, std::min(min_seconds, max_seconds))),
      max_(std::max(0.0, max_seconds)),
      write_(std::move(write)),
      now_(std::move(now)),
      rng_(seed) {
  thread_ = std::thread([this] { Run(); });
}

IndexLag::~IndexLag() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
  Drain();
}

void IndexLag::Enqueue(rocksdb::WriteBatch batch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const double lag =
        max_ > min_ ? std::uniform_real_distribution<double>(min_, max_)(rng_) : max_;
    const double due = std::max(last_due_, now_() + lag);
    last_due_ = due;
    queue_.push_back(Entry{due, std::move(batch)});
  }
  cv_.notify_all();
}

void IndexLag::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (queue_.empty()) {
      cv_.wait(lock);
      continue;
    }
    const double wait = queue_.front().due - now_();
    if (wait > 0) {
      // The clock may be moved (tests): look again at least every 50 ms.
      cv_.wait_for(lock, std::chrono::duration<double>(std::min(wait, 0.05)));
      continue;
    }
    lock.unlock();
    ApplyDue();
    lock.lock();
  }
}

void IndexLag::ApplyDue() {
  std::lock_guard<std::mutex> apply(apply_mu_);
  std::optional<Entry> e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Cleared, stopped or not due any more (the clock was moved back) meanwhile.
    if (stopping_ || queue_.empty() || queue_.front().due > now_()) return;
    e = std::move(queue_.front());
    queue_.pop_front();
  }
  (void)write_(&e->batch);
}

void IndexLag::Drain() {
  std::lock_guard<std::mutex> apply(apply_mu_);
  std::deque<Entry> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all.swap(queue_);
  }
  for (Entry& e : all) (void)write_(&e.batch);
}

void IndexLag::Clear() {
  std::lock_guard<std::mutex> apply(apply_mu_);
  std::lock_guard<std::mutex> lock(mu_);
  queue_.clear();
}

size_t IndexLag::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void StaleReads::Remember(std::vector<std::pair<std::string, std::optional<std::string>>>* previous,
                          double now) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, image] : *previous) {
    // The image before the first of the window's writes stays: a stale read
    // may go back that far.
    auto [it, fresh] = recent_.try_emplace(std::move(key));
    if (fresh || it->second.until <= now) it->second.image = std::move(image);
    it->second.until = now + seconds_;
  }
  if (++since_sweep_ >= 1024) {
    since_sweep_ = 0;
    std::erase_if(recent_, [now](const auto& e) { return e.second.until <= now; });
  }
}

bool StaleReads::Draw() {
  return probability_ >= 1 || std::uniform_real_distribution<double>(0, 1)(rng_) < probability_;
}

bool StaleReads::Stale(const std::string& key, double now, std::optional<std::string>* image) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = recent_.find(key);
  if (it == recent_.end() || it->second.until <= now) return false;
  if (!Draw()) return false;
  *image = it->second.image;
  return true;
}

std::vector<StaleReads::StaleImage> StaleReads::PickRange(std::string_view lower,
                                                          std::string_view upper, double now) {
  std::vector<StaleImage> picked;
  if (!(lower < upper)) return picked;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = recent_.lower_bound(lower); it != recent_.end() && it->first < upper; ++it) {
    if (it->second.until <= now || !Draw()) continue;
    picked.push_back(StaleImage{it->first, it->second.image});
  }
  return picked;
}

void StaleReads::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  recent_.clear();
}

}  // namespace dynarock
