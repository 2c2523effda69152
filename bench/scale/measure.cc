// File: bench/scale/measure.cc
//
// The measuring children: each opens one size's database and times every
// operation in blocks (GetItem, Query of 20, Scan, PutItem), reporting on
// its standard output to the parent.

#include <sched.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "bench/scale/scale.h"

namespace scale {

namespace {

// One operation on one DB, run in blocks. Requests are built beforehand, so
// only the calls are timed.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual void Warmup() = 0;
  // Runs one block; appends each call's wall time (us) to `calls` when it
  // times calls; returns the units done (calls, or items for Scan).
  virtual uint64_t Block(std::vector<double>* calls) = 0;
};

// A runner of single calls: `warmup` untimed, then blocks of `block`, each
// call timed.
class CallRunner : public Runner {
 public:
  CallRunner(int warmup, int block) : warmup_(warmup), block_(block) {}
  void Warmup() override {
    for (int i = 0; i < warmup_; ++i) Call();
  }
  uint64_t Block(std::vector<double>* calls) override {
    for (int i = 0; i < block_; ++i) {
      const auto t0 = Clock::now();
      Call();
      calls->push_back(Seconds(Clock::now() - t0) * 1e6);
    }
    return static_cast<uint64_t>(block_);
  }

 protected:
  virtual void Call() = 0;

 private:
  int warmup_, block_;
};

class GetRunner : public CallRunner {
 public:
  GetRunner(dynarock::DB* db, uint64_t partitions, bool encoded, int warmup, int block, int blocks,
            uint64_t seed)
      : CallRunner(warmup, block), db_(db), encoded_(encoded) {
    Rng rng(seed);
    for (int i = 0; i < warmup + block * blocks; ++i) {
      keys_.push_back(
          KeyOf(rng.Below(partitions), SortKey(static_cast<int>(rng.Below(kPartitionItems)))));
    }
    req_.table_name = kTable;
    req_.encoded_items = encoded;
  }

 private:
  void Call() override {
    req_.key.swap(keys_[next_++]);
    auto r = db_->GetItem(req_);
    if (!r.ok() || !(encoded_ ? r->encoded_item.has_value() : r->item.has_value())) {
      Die("GetItem: " + (r.ok() ? std::string("item not found") : r.status().ToString()));
    }
  }
  dynarock::DB* db_;
  bool encoded_;
  std::vector<Item> keys_;
  size_t next_ = 0;
  dynarock::GetItemRequest req_;
};

class QueryRunner : public CallRunner {
 public:
  QueryRunner(dynarock::DB* db, uint64_t partitions, bool encoded, int warmup, int block,
              int blocks, uint64_t seed)
      : CallRunner(warmup, block), db_(db), encoded_(encoded) {
    Rng rng(seed);
    for (int i = 0; i < warmup + block * blocks; ++i) {
      pks_.push_back(AttributeValue::S(PartitionKey(rng.Below(partitions))));
    }
    req_.table_name = kTable;
    req_.key_condition_expression = "pk = :p";
    req_.has_expression_attribute_values = true;
    req_.expression_attribute_values = {{":p", AttributeValue::S("")}};
    req_.encoded_items = encoded;
  }

 private:
  void Call() override {
    std::swap(req_.expression_attribute_values.begin()->second, pks_[next_++]);
    auto r = db_->Query(req_);
    const size_t n = !r.ok() ? 0 : encoded_ ? r->encoded_items.size() : r->items.size();
    if (n != kPartitionItems) {
      Die("Query: " + (r.ok() ? "got " + std::to_string(n) + " items" : r.status().ToString()));
    }
  }
  dynarock::DB* db_;
  bool encoded_;
  std::vector<AttributeValue> pks_;
  size_t next_ = 0;
  dynarock::QueryRequest req_;
};

// Pages of kScanPage over the first `range` items, from the start again when
// the range is done. A block reads `block` items; the warm-up, the range once.
class ScanRunner : public Runner {
 public:
  ScanRunner(dynarock::DB* db, uint64_t range, bool encoded, uint64_t block)
      : db_(db), range_(range), block_(block) {
    req_.table_name = kTable;
    req_.encoded_items = encoded;
  }
  void Warmup() override {
    uint64_t read = 0;
    while (read < range_) read += Page();
  }
  uint64_t Block(std::vector<double>*) override {
    uint64_t read = 0;
    while (read < block_) read += Page();
    return read;
  }

 private:
  uint64_t Page() {
    req_.limit = static_cast<int64_t>(std::min<uint64_t>(kScanPage, range_ - pos_));
    auto r = db_->Scan(req_);
    if (!r.ok()) Die("Scan: " + r.status().ToString());
    const uint64_t n = req_.encoded_items ? r->encoded_items.size() : r->items.size();
    if (n != static_cast<uint64_t>(*req_.limit)) Die("Scan: short page");
    pos_ += n;
    if (pos_ >= range_ || !r->last_evaluated_key) {
      pos_ = 0;
      req_.exclusive_start_key.reset();
    } else {
      req_.exclusive_start_key = std::move(r->last_evaluated_key);
    }
    return n;
  }
  dynarock::DB* db_;
  uint64_t range_, block_;
  uint64_t pos_ = 0;
  dynarock::ScanRequest req_;
};

// Overwrites of random existing items ("seq" changed), or (`fresh`) inserts
// of new items, each the first of a new partition (the key hash puts it
// anywhere in the table's key range), deleted again, untimed, by Finish().
class PutRunner : public CallRunner {
 public:
  PutRunner(dynarock::DB* db, uint64_t partitions, bool fresh, int warmup, int block, int blocks,
            uint64_t seed)
      : CallRunner(warmup, block), db_(db) {
    // New partition keys unique to this process, so that --reuse runs insert too.
    static const uint64_t run =
        static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    static uint64_t serial = 0;
    Rng rng(seed);
    char key[64];
    items_.resize(static_cast<size_t>(warmup + block * blocks));
    for (auto& item : items_) {
      std::snprintf(key, sizeof key, "item#%02d", static_cast<int>(rng.Below(kPartitionItems)));
      MakeItem(rng.Below(partitions), key, 1 + rng.Below(1000), &item);
      if (fresh) {
        std::snprintf(key, sizeof key, "new#%016" PRIx64 "#%08" PRIu64, run, serial++);
        item["pk"] = AttributeValue::S(key);
        new_keys_.push_back(Item{{"pk", item.at("pk")}, {"sk", item.at("sk")}});
      }
    }
    req_.table_name = kTable;
  }
  void Finish() {
    dynarock::DeleteItemRequest del;
    del.table_name = kTable;
    for (size_t i = 0; i < next_ && i < new_keys_.size(); ++i) {
      del.key.swap(new_keys_[i]);
      Check(db_->DeleteItem(del).status(), "DeleteItem");
    }
  }

 private:
  void Call() override {
    req_.item.swap(items_[next_++]);
    Check(db_->PutItem(req_).status(), "PutItem");
  }
  dynarock::DB* db_;
  std::vector<Item> items_;
  std::vector<Item> new_keys_;
  size_t next_ = 0;
  dynarock::PutItemRequest req_;
};

}  // namespace

void Pin(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) std::perror("sched_setaffinity");
}

// Measures `op` on `db` (of `n` items): a warm-up, then cfg.blocks blocks,
// appended to `s`. Runs in a child process of its own (see main()).
void MeasureOp(const Config& cfg, int op, dynarock::DB* db, uint64_t n, int round, Series* s) {
  const int blocks = cfg.blocks;
  const int per_round = cfg.rounds * blocks;
  auto per_block = [&](int total) { return std::max(1, total / per_round); };
  const uint64_t partitions = n / kPartitionItems;
  const uint64_t seed = 1000 * static_cast<uint64_t>(op) + 17 * static_cast<uint64_t>(round) + 1;
  std::unique_ptr<Runner> r;
  switch (op) {
    case kGet:
    case kGetEnc:
      // Warm-up: enough calls to fill the block cache (or to read every
      // block of the smaller tables into it).
      r = std::make_unique<GetRunner>(db, partitions, op == kGetEnc, 20000, per_block(cfg.get_ops),
                                      blocks, seed);
      break;
    case kQuery:
    case kQueryEnc:
      r = std::make_unique<QueryRunner>(db, partitions, op == kQueryEnc, 5000,
                                        per_block(cfg.query_ops), blocks, seed);
      break;
    case kScan:
    case kScanEnc:
      r = std::make_unique<ScanRunner>(
          db, std::min(n, cfg.scan_items), op == kScanEnc,
          std::max<uint64_t>(kScanPage, cfg.scan_items / static_cast<uint64_t>(per_round)));
      break;
    default:
      r = std::make_unique<PutRunner>(db, partitions, op == kPutNew, 2000, per_block(cfg.put_ops),
                                      blocks, seed);
  }
  r->Warmup();
  for (int c = 0; c < blocks; ++c) {
    const double cpu0 = ThreadCpuSeconds();
    const auto t0 = Clock::now();
    const uint64_t units = r->Block(&s->calls);
    const double wall = Seconds(Clock::now() - t0), cpu = ThreadCpuSeconds() - cpu0;
    s->wall.push_back(wall * 1e6 / static_cast<double>(units));
    s->cpu.push_back(cpu * 1e6 / static_cast<double>(units));
  }
  if (auto* put = dynamic_cast<PutRunner*>(r.get())) put->Finish();
}

const char* const kOpGroups[kOps] = {"get", "get", "query", "query", "scan", "scan", "put", "put"};

// The child process's part: one round on one size's database, every
// operation, the results written to stdout as text lines
//   S <op> <blocks> <wall> <cpu> ...     per block, us per unit
//   C <op> <calls> <us> ...              every timed call
int ChildMain(const Config& cfg, uint64_t n, int round) {
  auto opened = dynarock::DB::Open(DbOptions(cfg), cfg.dir + "/n" + std::to_string(n));
  Check(opened.status(), "DB::Open");
  std::unique_ptr<dynarock::DB> db = std::move(*opened);
  Pin(cfg.pin);
  if (cfg.prefill) {
    ScanRunner whole(db.get(), n, true, n);
    whole.Warmup();
  }
  for (int op = 0; op < kOps; ++op) {
    if (!cfg.Runs(kOpGroups[op])) continue;
    Series s;
    MeasureOp(cfg, op, db.get(), n, round, &s);
    std::printf("S %d %zu", op, s.wall.size());
    for (size_t i = 0; i < s.wall.size(); ++i) std::printf(" %.6g %.6g", s.wall[i], s.cpu[i]);
    std::printf("\nC %d %zu", op, s.calls.size());
    for (double v : s.calls) std::printf(" %.4g", v);
    std::printf("\n");
  }
  std::fflush(stdout);
  return 0;
}

// Runs `command` (this program in child mode) and adds what it reports to `row`.
void RunChild(const std::string& command, Row* row) {
  FILE* f = popen(command.c_str(), "r");
  if (f == nullptr) Die("popen failed");
  char kind = 0;
  int op = 0;
  size_t count = 0;
  while (std::fscanf(f, " %c %d %zu", &kind, &op, &count) == 3) {
    if (op < 0 || op >= kOps) Die("bad child output");
    Series& s = row->ops[op];
    for (size_t i = 0; i < count; ++i) {
      double a = 0, b = 0;
      if (kind == 'S') {
        if (std::fscanf(f, "%lf %lf", &a, &b) != 2) Die("bad child output");
        s.wall.push_back(a);
        s.cpu.push_back(b);
      } else {
        if (std::fscanf(f, "%lf", &a) != 1) Die("bad child output");
        s.calls.push_back(a);
      }
    }
  }
  const int status = pclose(f);
  if (status != 0) Die("measuring child failed: " + command);
}

}  // namespace scale
