#include "tools/patterns/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "dynarock/item_size.h"

namespace dynarock::patterns {
namespace {

void AddCapacity(const ConsumedCapacity& c, bool read_op, ExecutionStats* s) {
  if (c.read_capacity_units || c.write_capacity_units) {
    s->rcu += c.read_capacity_units.value_or(0);
    s->wcu += c.write_capacity_units.value_or(0);
  } else {
    (read_op ? s->rcu : s->wcu) += c.capacity_units;
  }
}

void AddItem(const Item& item, ExecutionStats* s) {
  s->items_returned += 1;
  s->bytes_returned += static_cast<int64_t>(ItemSize(item));
}

// What a response read and consumed.
void Account(const GetItemResponse& r, bool read_op, ExecutionStats* s) {
  s->bytes_read += r.bytes_read;
  if (r.item) {
    s->items_read += 1;
    AddItem(*r.item, s);
  }
  if (r.consumed_capacity) AddCapacity(*r.consumed_capacity, read_op, s);
}
template <typename WriteResp>
void AccountWrite(const WriteResp& r, bool read_op, ExecutionStats* s) {
  if (r.consumed_capacity) AddCapacity(*r.consumed_capacity, read_op, s);
}
void Account(const PutItemResponse& r, bool read_op, ExecutionStats* s) {
  AccountWrite(r, read_op, s);
}
void Account(const UpdateItemResponse& r, bool read_op, ExecutionStats* s) {
  AccountWrite(r, read_op, s);
}
void Account(const DeleteItemResponse& r, bool read_op, ExecutionStats* s) {
  AccountWrite(r, read_op, s);
}
void Account(const QueryResponse& r, bool read_op, ExecutionStats* s) {
  s->items_read += r.scanned_count;
  s->bytes_read += r.bytes_read;
  for (const Item& item : r.items) AddItem(item, s);
  if (r.items.empty() && r.count > 0) s->items_returned += r.count;  // Select COUNT
  if (r.consumed_capacity) AddCapacity(*r.consumed_capacity, read_op, s);
}
void Account(const BatchGetItemResponse& r, bool read_op, ExecutionStats* s) {
  s->bytes_read += r.bytes_read;
  for (const auto& [table, items] : r.responses) {
    s->items_read += static_cast<int64_t>(items.size());
    for (const Item& item : items) AddItem(item, s);
  }
  for (const ConsumedCapacity& c : r.consumed_capacity) AddCapacity(c, read_op, s);
}
void Account(const BatchWriteItemResponse& r, bool read_op, ExecutionStats* s) {
  for (const ConsumedCapacity& c : r.consumed_capacity) AddCapacity(c, read_op, s);
}
void Account(const TransactGetItemsResponse& r, bool read_op, ExecutionStats* s) {
  s->bytes_read += r.bytes_read;
  for (const auto& item : r.responses) {
    if (!item) continue;
    s->items_read += 1;
    AddItem(*item, s);
  }
  for (const ConsumedCapacity& c : r.consumed_capacity) AddCapacity(c, read_op, s);
}
void Account(const TransactWriteItemsResponse& r, bool read_op, ExecutionStats* s) {
  for (const ConsumedCapacity& c : r.consumed_capacity) AddCapacity(c, read_op, s);
}

}  // namespace

template <typename Req, typename Resp>
StatusOr<Resp> Session::Call(Req& req, StatusOr<Resp> (DB::*op)(const Req&), bool read_op) {
  req.return_consumed_capacity = ReturnConsumedCapacity::kIndexes;
  const auto start = std::chrono::steady_clock::now();
  StatusOr<Resp> resp = (db_->*op)(req);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  stats_.seconds += took.count();
  stats_.requests += 1;
  if (!resp.ok()) {
    stats_.errors += 1;
    // DynamoDB bills some failures: a failed condition, a cancelled transaction.
    for (const BilledCapacity& b : resp.status().billed()) {
      stats_.rcu += b.read_units;
      stats_.wcu += b.write_units;
    }
    return resp;
  }
  Account(*resp, read_op, &stats_);
  return resp;
}

StatusOr<GetItemResponse> Session::GetItem(GetItemRequest req) {
  return Call(req, &DB::GetItem, true);
}
StatusOr<PutItemResponse> Session::PutItem(PutItemRequest req) {
  return Call(req, &DB::PutItem, false);
}
StatusOr<UpdateItemResponse> Session::UpdateItem(UpdateItemRequest req) {
  return Call(req, &DB::UpdateItem, false);
}
StatusOr<DeleteItemResponse> Session::DeleteItem(DeleteItemRequest req) {
  return Call(req, &DB::DeleteItem, false);
}
StatusOr<QueryResponse> Session::Query(QueryRequest req) { return Call(req, &DB::Query, true); }
StatusOr<ScanResponse> Session::Scan(ScanRequest req) { return Call(req, &DB::Scan, true); }
StatusOr<BatchGetItemResponse> Session::BatchGetItem(BatchGetItemRequest req) {
  return Call(req, &DB::BatchGetItem, true);
}
StatusOr<BatchWriteItemResponse> Session::BatchWriteItem(BatchWriteItemRequest req) {
  return Call(req, &DB::BatchWriteItem, false);
}
StatusOr<TransactGetItemsResponse> Session::TransactGetItems(TransactGetItemsRequest req) {
  return Call(req, &DB::TransactGetItems, true);
}
StatusOr<TransactWriteItemsResponse> Session::TransactWriteItems(TransactWriteItemsRequest req) {
  return Call(req, &DB::TransactWriteItems, false);
}

double Percentile(std::vector<double>* values, double p) {
  if (values->empty()) return 0;
  std::sort(values->begin(), values->end());
  double rank = std::ceil(p * static_cast<double>(values->size()));
  size_t idx = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return (*values)[std::min(idx, values->size() - 1)];
}

Status BatchPut(DB* db, const std::string& table, std::vector<Item> items) {
  size_t pos = 0;
  while (pos < items.size()) {
    BatchWriteItemRequest req;
    auto& writes = req.request_items[table];
    for (size_t n = 0; n < 25 && pos < items.size(); ++n, ++pos) {
      WriteRequest w;
      w.put_item = std::move(items[pos]);
      writes.push_back(std::move(w));
    }
    for (int attempt = 0; !req.request_items.empty(); ++attempt) {
      if (attempt > 100) return InternalError("BatchWriteItem keeps leaving items unprocessed");
      auto resp = db->BatchWriteItem(req);
      if (!resp.ok()) return resp.status();
      req.request_items = std::move(resp->unprocessed_items);
    }
  }
  return Status::Ok();
}

Status RunSuite(const Suite& suite, const RunOptions& options, std::vector<PatternResult>* results) {
  Options db_options;
  db_options.in_memory = true;
  auto opened = DB::Open(db_options, "");
  if (!opened.ok()) return opened.status();
  std::unique_ptr<DB> db = std::move(opened).value();

  Rng setup_rng(options.seed);
  if (suite.setup) {
    Status s = suite.setup(db.get(), setup_rng);
    if (!s.ok()) return Status(s.type(), "setup of '" + suite.name + "': " + s.message());
  }
  for (size_t p = 0; p < suite.patterns.size(); ++p) {
    const Pattern& pattern = suite.patterns[p];
    const int64_t iterations = pattern.iterations > 0 ? pattern.iterations : options.iterations;
    // The same sequence for every pattern, so that patterns drawing the same way
    // (e.g. a random user) see the same inputs and compare like for like.
    Rng rng(options.seed * 1000003u + 17);
    ExecutionStats total;
    std::vector<double> latencies;
    latencies.reserve(static_cast<size_t>(std::max<int64_t>(iterations, 0)));
    const int64_t runs = options.warmup + iterations;
    for (int64_t i = 0; i < runs; ++i) {
      Session session(db.get());
      Status s = pattern.run(session, i, rng);
      if (!s.ok() && (pattern.abort_on_error || session.stats().errors == 0)) {
        return Status(s.type(), "pattern '" + pattern.name + "' of '" + suite.name +
                                    "', execution " + std::to_string(i) + ": " + s.message());
      }
      if (i < options.warmup) continue;
      const ExecutionStats& e = session.stats();
      total.requests += e.requests;
      total.items_read += e.items_read;
      total.items_returned += e.items_returned;
      total.bytes_read += e.bytes_read;
      total.bytes_returned += e.bytes_returned;
      total.rcu += e.rcu;
      total.wcu += e.wcu;
      total.errors += e.errors;
      const double us =
          e.seconds * 1e6 + static_cast<double>(e.requests) * options.round_trip_us;
      total.seconds += us / 1e6;
      latencies.push_back(us);
    }
    PatternResult r;
    r.comparison = suite.name;
    r.pattern = pattern.name;
    r.description = pattern.description;
    r.executions = iterations;
    const double n = iterations > 0 ? static_cast<double>(iterations) : 1;
    r.requests = static_cast<double>(total.requests) / n;
    r.items_read = static_cast<double>(total.items_read) / n;
    r.items_returned = static_cast<double>(total.items_returned) / n;
    r.bytes_read = static_cast<double>(total.bytes_read) / n;
    r.bytes_returned = static_cast<double>(total.bytes_returned) / n;
    r.rcu = total.rcu / n;
    r.wcu = total.wcu / n;
    r.errors = static_cast<double>(total.errors) / n;
    r.mean_us = total.seconds * 1e6 / n;
    r.p50_us = Percentile(&latencies, 0.50);
    r.p99_us = Percentile(&latencies, 0.99);
    // (units per execution) * (USD per million units) = USD per million executions.
    r.cost_per_million =
        r.rcu * options.prices.read_per_million + r.wcu * options.prices.write_per_million;
    results->push_back(std::move(r));
  }
  return Status::Ok();
}

}  // namespace dynarock::patterns
