// File: bench/scale/items.cc
//
// The items the bench writes and reads, its table, and small helpers.

#include <sys/resource.h>
#include <time.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "bench/scale/scale.h"

namespace scale {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "scale_bench: %s\n", what.c_str());
  std::exit(1);
}
void Check(const dynarock::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}
void Check(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.ToString());
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// CPU seconds (user + system) used by the whole process so far, every thread
// (RocksDB's flushes and compactions included).
double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// ---------------------------------------------------------------- the items

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string PartitionKey(uint64_t p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "part#%08" PRIu64, p);
  return buf;
}
std::string SortKey(int s) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "item#%02d", s);
  return buf;
}

bool g_random_values = false;

// `len` characters drawn at random (from `*r`) from 64.
std::string RandomText(size_t len, uint64_t* r) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s(len, ' ');
  for (size_t i = 0; i < len; ++i) {
    if (i % 10 == 0) *r = SplitMix(*r + i);
    s[i] = kAlphabet[(*r >> (6 * (i % 10))) & 63];
  }
  return s;
}

// Item s of partition p, 200 bytes by DynamoDB's rules: the key, a few short
// attributes that repeat from item to item (as real items' do) and a 72-char
// text drawn at random from 64 characters, which block compression (Snappy,
// RocksDB's default) cannot shrink. With --random-values the short texts are
// random too (same lengths): the worst case for the disk. `version` goes into
// "seq" (overwrites change it).
void MakeItem(uint64_t p, const std::string& sk, uint64_t version, Item* out) {
  const uint64_t id = p * 64 + std::hash<std::string>()(sk);
  Item& item = *out;
  char buf[64];
  item["pk"] = AttributeValue::S(PartitionKey(p));
  item["sk"] = AttributeValue::S(sk);
  const uint64_t h = SplitMix(id);
  uint64_t r = h;
  if (g_random_values) {
    item["status"] = AttributeValue::S(RandomText(6, &r));
    item["name"] = AttributeValue::S(RandomText(13, &r));
    item["email"] = AttributeValue::S(RandomText(24, &r));
    item["tags"] = AttributeValue::SS(
        {"a" + RandomText(4, &r), "b" + RandomText(3, &r), "c" + RandomText(4, &r)});
  } else {
    item["status"] = AttributeValue::S((h & 3) == 0 ? "idle" : "active");
    std::snprintf(buf, sizeof buf, "User %08" PRIu64, p);
    item["name"] = AttributeValue::S(buf);
    std::snprintf(buf, sizeof buf, "user%08" PRIu64 "@example.com", p);
    item["email"] = AttributeValue::S(buf);
    item["tags"] = AttributeValue::SS({"alpha", "beta", "gamma"});
  }
  item["age"] = AttributeValue::N(std::to_string(18 + h % 70));
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".5", 1000 + (h >> 8) % 9000);
  item["score"] = AttributeValue::N(buf);
  item["verified"] = AttributeValue::Bool(((h >> 20) & 1) != 0);
  item["bio"] = AttributeValue::S(RandomText(72, &r));
  item["seq"] = AttributeValue::N(std::to_string(version));
}

// ---------------------------------------------------------------- the DB

void CreateTable(dynarock::DB* db) {
  dynarock::CreateTableRequest req;
  req.table_name = kTable;
  req.billing_mode = "PAY_PER_REQUEST";
  req.key_schema = {{"pk", dynarock::KeyType::kHash}, {"sk", dynarock::KeyType::kRange}};
  req.attribute_definitions = {{"pk", dynarock::AttrType::kS}, {"sk", dynarock::AttrType::kS}};
  Check(db->CreateTable(req).status(), "CreateTable");
}

void TableStats(dynarock::DB* db, int64_t* items, int64_t* bytes) {
  dynarock::DescribeTableRequest req;
  req.table_name = kTable;
  auto r = db->DescribeTable(req);
  Check(r.status(), "DescribeTable");
  *items = r->table.item_count;
  *bytes = r->table.table_size_bytes;
}

// The bytes of the files in `dir`; with `suffix`, only of the files so named.
uint64_t DirBytes(const std::string& dir, const std::string& suffix) {
  uint64_t total = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!suffix.empty() &&
        (name.size() < suffix.size() ||
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)) {
      continue;
    }
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

Item KeyOf(uint64_t p, const std::string& sk) {
  return Item{{"pk", AttributeValue::S(PartitionKey(p))}, {"sk", AttributeValue::S(sk)}};
}

// ---------------------------------------------------------------- measuring

// The calling thread's CPU time (it still counts what a busy machine's shared
// caches cost, but not the time other processes hold the core).
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}


double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace scale
