// File: tests/concurrency/history_driver.cc
//
// The embedded half of the history checker: threads running the workload of
// tests/concurrency/workload.py on one DB (the public API, DB::Open), each
// recording every invocation and completion, in the history format that
// tests/concurrency/checker.py checks (workload.py's header describes both).
// Not a test itself: tests/concurrency/test_history.py runs it and checks what
// it wrote.
//
//   history_driver --out FILE [--threads 8] [--seconds 5] [--ops 2000]
//                  [--epoch-ops 200] [--registers 3] [--accounts 5]
//                  [--seed N] [--data DIR]
//
// Each thread runs at most --ops operations (and stops after --seconds); its
// i-th operation uses the keys of epoch i / --epoch-ops (registers reg#e#k,
// accounts acct#e#i), so that each key's history stays short. When the threads
// are done, the final state is read (process "final"). In memory unless --data.
// Outcomes: ok; fail (the error's DynamoDB type); info (unknown) for an
// InternalServerError or ServiceUnavailable, which the embedded API only gives
// when something went wrong underneath.
// Exit 0 when the history is written; 2 on usage errors; 3 when the database
// cannot be set up.

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "dynarock/db.h"

namespace {

using dynarock::AttributeValue;
using dynarock::DB;
using dynarock::ErrorType;
using dynarock::Item;
using dynarock::ReturnValue;
using dynarock::Status;

constexpr char kTable[] = "history";
constexpr int64_t kInitialBalance = 100;

struct Config {
  std::string out;
  std::string data;
  int threads = 8;
  double seconds = 5;
  int64_t ops = 2000;
  int64_t epoch_ops = 200;
  int registers = 3;
  int accounts = 5;
  uint64_t seed = 1;
};

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t v) { return AttributeValue::N(std::to_string(v)); }

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string RegisterKey(int64_t epoch, int k) {
  return "reg#" + std::to_string(epoch) + "#" + std::to_string(k);
}
std::string AccountKey(int64_t epoch, int i) {
  return "acct#" + std::to_string(epoch) + "#" + std::to_string(i);
}

// ---------------------------------------------------------------- JSON text

std::string Q(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string I(int64_t v) { return std::to_string(v); }

// {"a":1,"b":"x"} from already-rendered values.
std::string Obj(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ",";
    out += Q(fields[i].first) + ":" + fields[i].second;
  }
  return out + "}";
}

std::string List(const std::vector<std::string>& rendered) {
  std::string out = "[";
  for (size_t i = 0; i < rendered.size(); ++i) out += (i ? "," : "") + rendered[i];
  return out + "]";
}

int64_t Num(const Item& item, const char* name) {
  auto it = item.find(name);
  return it == item.end() ? 0 : std::stoll(it->second.scalar());
}

// A register's state: [ver, val, cnt] or null.
std::string RegisterState(const std::optional<Item>& item) {
  if (!item) return "null";
  auto val = item->find("val");
  return "[" + I(Num(*item, "ver")) + "," + Q(val == item->end() ? "" : val->second.scalar()) +
         "," + I(Num(*item, "cnt")) + "]";
}

// An account in a snapshot: balance, and its log's length, last id and CRC-32
// (the ids, each followed by a newline); the whole log with `full`.
std::string AccountSnapshot(const std::optional<Item>& item, bool full) {
  if (!item) return "null";
  std::vector<std::string> ids;
  auto log = item->find("log");
  if (log != item->end() && log->second.is(dynarock::AttrType::kL)) {
    for (const auto& v : log->second.list()) ids.push_back(v.scalar());
  }
  uLong crc = crc32(0L, Z_NULL, 0);
  for (const auto& id : ids) {
    std::string line = id + "\n";
    crc = crc32(crc, reinterpret_cast<const Bytef*>(line.data()), static_cast<uInt>(line.size()));
  }
  std::vector<std::pair<std::string, std::string>> f = {
      {"bal", I(Num(*item, "bal"))},
      {"n", I(static_cast<int64_t>(ids.size()))},
      {"last", ids.empty() ? "null" : Q(ids.back())},
      {"crc", I(static_cast<int64_t>(crc))}};
  if (full) {
    std::vector<std::string> q;
    for (const auto& id : ids) q.push_back(Q(id));
    f.emplace_back("log", List(q));
  }
  return Obj(f);
}

std::string ReasonCodes(const Status& s) {
  std::vector<std::string> codes;
  for (const auto& r : s.cancellation_reasons()) codes.push_back(Q(r.code));
  return List(codes);
}

// ---------------------------------------------------------------- an actor

class Actor {
 public:
  Actor(std::string name, DB* db, const Config& cfg, uint64_t seed)
      : name_(std::move(name)), db_(db), cfg_(cfg), rng_(seed) {}

  void Run(int64_t deadline_ns) {
    static const std::vector<std::pair<int, void (Actor::*)(int64_t)>> kOps = {
        {14, &Actor::Get},    {10, &Actor::PutNew}, {10, &Actor::PutVer},
        {12, &Actor::UpdAdd}, {12, &Actor::UpdCas}, {8, &Actor::Del},
        {8, &Actor::TxnAdd},  {18, &Actor::Transfer}, {8, &Actor::ReadAll}};
    int total = 0;
    for (const auto& [w, fn] : kOps) total += w;
    while (index_ < cfg_.ops && NowNs() < deadline_ns) {
      int pick = Uniform(0, total - 1);
      for (const auto& [w, fn] : kOps) {
        if (pick < w) {
          (this->*fn)(index_ / cfg_.epoch_ops);
          break;
        }
        pick -= w;
      }
    }
  }

  // The final reads: every register, and each bank with its whole logs.
  void Final(int64_t epochs) {
    for (int64_t e = 0; e < epochs; ++e) {
      for (int k = 0; k < cfg_.registers; ++k) GetKey(RegisterKey(e, k));
      ReadAllOf(e, /*final=*/true);
    }
  }

  const std::string& events() const { return events_; }

 private:
  // The result of an operation: its outcome event's "value" (rendered JSON).
  using Call = std::function<Status(std::string* value)>;
  using OnFail = std::function<std::string(const Status&)>;

  void Do(const std::string& f, const std::string& args, const Call& call,
          const OnFail& on_fail = nullptr) {
    const int64_t i = index_++;
    events_ += Obj({{"type", Q("invoke")}, {"process", Q(name_)}, {"index", I(i)},
                    {"f", Q(f)}, {"args", args}, {"time", I(NowNs())}}) + "\n";
    std::string value;
    Status s = call(&value);
    std::vector<std::pair<std::string, std::string>> end = {{"process", Q(name_)},
                                                            {"index", I(i)}};
    if (s.ok()) {
      end.emplace_back("type", Q("ok"));
      end.emplace_back("value", value);
    } else if (s.type() == ErrorType::kInternalServerError ||
               s.type() == ErrorType::kServiceUnavailable) {
      end.emplace_back("type", Q("info"));
      end.emplace_back("error", Q(dynarock::ErrorTypeName(s.type())));
      std::fprintf(stderr, "history_driver: %s: %s\n", f.c_str(), s.ToString().c_str());
    } else {
      end.emplace_back("type", Q("fail"));
      end.emplace_back("error", Q(dynarock::ErrorTypeName(s.type())));
      if (on_fail) end.emplace_back("value", on_fail(s));
    }
    end.emplace_back("time", I(NowNs()));
    events_ += Obj(end) + "\n";
  }

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  std::string Register(int64_t e) { return RegisterKey(e, Uniform(0, cfg_.registers - 1)); }
  std::string Val() const { return name_ + ":" + std::to_string(index_); }
  static Item Key(const std::string& k) { return Item{{"pk", S(k)}}; }

  int64_t GuessVer(const std::string& key) {
    auto it = vers_.find(key);
    int64_t v = it == vers_.end() ? 1 : it->second;
    return Chance(0.75) ? v : Uniform(1, static_cast<int>(v) + 1);
  }
  void Saw(const std::string& key, const std::optional<Item>& item) {
    if (item) vers_[key] = Num(*item, "ver");
  }
  OnFail OldOnFail(const std::string& key) {
    return [this, key](const Status& s) {
      Saw(key, s.item());
      return Obj({{"old", RegisterState(s.item())}});
    };
  }

  void Get(int64_t e) { GetKey(Register(e)); }

  void GetKey(const std::string& k) {
    Do("get", Obj({{"key", Q(k)}}), [&](std::string* value) {
      dynarock::GetItemRequest r;
      r.table_name = kTable;
      r.key = Key(k);
      r.consistent_read = true;
      auto got = db_->GetItem(r);
      if (!got.ok()) return got.status();
      Saw(k, got->item);
      *value = Obj({{"item", RegisterState(got->item)}});
      return Status();
    });
  }

  void PutNew(int64_t e) {
    std::string k = Register(e), v = Val();
    Do("put_new", Obj({{"key", Q(k)}, {"val", Q(v)}}), [&](std::string* value) {
      dynarock::PutItemRequest r;
      r.table_name = kTable;
      r.item = {{"pk", S(k)}, {"ver", N(1)}, {"val", S(v)}, {"cnt", N(0)}};
      r.condition_expression = "attribute_not_exists(pk)";
      r.return_values_on_condition_check_failure_all_old = true;
      auto put = db_->PutItem(r);
      if (!put.ok()) return put.status();
      vers_[k] = 1;
      *value = "{}";
      return Status();
    }, OldOnFail(k));
  }

  void PutVer(int64_t e) {
    std::string k = Register(e), v = Val();
    int64_t ver = GuessVer(k);
    Do("put_ver", Obj({{"key", Q(k)}, {"ver", I(ver)}, {"val", Q(v)}}), [&](std::string* value) {
      dynarock::PutItemRequest r;
      r.table_name = kTable;
      r.item = {{"pk", S(k)}, {"ver", N(ver + 1)}, {"val", S(v)}, {"cnt", N(0)}};
      r.condition_expression = "ver = :v";
      r.expression_attribute_values[":v"] = N(ver);
      r.has_expression_attribute_values = true;
      r.return_values = ReturnValue::kAllOld;
      r.return_values_on_condition_check_failure_all_old = true;
      auto put = db_->PutItem(r);
      if (!put.ok()) return put.status();
      vers_[k] = ver + 1;
      *value = Obj({{"old", RegisterState(put->attributes)}});
      return Status();
    }, OldOnFail(k));
  }

  void UpdAdd(int64_t e) {
    std::string k = Register(e), v = Val();
    int d = Uniform(1, 5);
    Do("upd_add", Obj({{"key", Q(k)}, {"d", I(d)}, {"val", Q(v)}}), [&](std::string* value) {
      dynarock::UpdateItemRequest r;
      r.table_name = kTable;
      r.key = Key(k);
      r.update_expression = "SET val = :v ADD cnt :d, ver :one";
      r.expression_attribute_values = {{":v", S(v)}, {":d", N(d)}, {":one", N(1)}};
      r.has_expression_attribute_values = true;
      r.return_values = ReturnValue::kAllNew;
      auto upd = db_->UpdateItem(r);
      if (!upd.ok()) return upd.status();
      Saw(k, upd->attributes);
      *value = Obj({{"new", RegisterState(upd->attributes)}});
      return Status();
    });
  }

  void UpdCas(int64_t e) {
    std::string k = Register(e), v = Val();
    int64_t ver = GuessVer(k);
    Do("upd_cas", Obj({{"key", Q(k)}, {"ver", I(ver)}, {"val", Q(v)}}), [&](std::string* value) {
      dynarock::UpdateItemRequest r;
      r.table_name = kTable;
      r.key = Key(k);
      r.update_expression = "SET val = :x ADD ver :one";
      r.condition_expression = "ver = :v";
      r.expression_attribute_values = {{":x", S(v)}, {":v", N(ver)}, {":one", N(1)}};
      r.has_expression_attribute_values = true;
      r.return_values = ReturnValue::kUpdatedNew;
      r.return_values_on_condition_check_failure_all_old = true;
      auto upd = db_->UpdateItem(r);
      if (!upd.ok()) return upd.status();
      vers_[k] = ver + 1;
      std::string uver = "null", uval = "null";
      if (upd->attributes) {
        if (upd->attributes->count("ver")) uver = I(Num(*upd->attributes, "ver"));
        auto it = upd->attributes->find("val");
        if (it != upd->attributes->end()) uval = Q(it->second.scalar());
      }
      *value = Obj({{"upd", Obj({{"ver", uver}, {"val", uval}})}});
      return Status();
    }, OldOnFail(k));
  }

  void Del(int64_t e) {
    std::string k = Register(e);
    std::optional<int64_t> ver;
    if (Chance(0.5)) ver = GuessVer(k);
    Do("del", Obj({{"key", Q(k)}, {"ver", ver ? I(*ver) : "null"}}), [&](std::string* value) {
      dynarock::DeleteItemRequest r;
      r.table_name = kTable;
      r.key = Key(k);
      r.return_values = ReturnValue::kAllOld;
      if (ver) {
        r.condition_expression = "ver = :v";
        r.expression_attribute_values[":v"] = N(*ver);
        r.has_expression_attribute_values = true;
        r.return_values_on_condition_check_failure_all_old = true;
      }
      auto del = db_->DeleteItem(r);
      if (!del.ok()) return del.status();
      vers_.erase(k);
      *value = Obj({{"old", RegisterState(del->attributes)}});
      return Status();
    }, OldOnFail(k));
  }

  void TxnAdd(int64_t e) {
    int a = Uniform(0, cfg_.registers - 1), b = Uniform(0, cfg_.registers - 2);
    if (b >= a) ++b;
    std::vector<std::string> keys = {RegisterKey(e, std::min(a, b)), RegisterKey(e, std::max(a, b))};
    std::string v = Val();
    int d = Uniform(1, 5);
    Do("txn_add", Obj({{"keys", List({Q(keys[0]), Q(keys[1])})}, {"d", I(d)}, {"val", Q(v)}}),
       [&](std::string* value) {
         dynarock::TransactWriteItemsRequest r;
         for (const auto& k : keys) {
           dynarock::TransactWriteItem w;
           w.kind = dynarock::TransactWriteItem::Kind::kUpdate;
           w.table_name = kTable;
           w.key = Key(k);
           w.update_expression = "SET val = :v ADD cnt :d, ver :one";
           w.condition_expression = "attribute_exists(pk)";
           w.expression_attribute_values = {{":v", S(v)}, {":d", N(d)}, {":one", N(1)}};
           w.has_expression_attribute_values = true;
           r.transact_items.push_back(std::move(w));
         }
         auto t = db_->TransactWriteItems(r);
         if (!t.ok()) return t.status();
         *value = "{}";
         return Status();
       },
       [](const Status& s) { return Obj({{"reasons", ReasonCodes(s)}}); });
  }

  void Transfer(int64_t e) {
    std::vector<int> order(static_cast<size_t>(cfg_.accounts));
    for (int i = 0; i < cfg_.accounts; ++i) order[static_cast<size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), rng_);
    std::string from = AccountKey(e, order[0]), to = AccountKey(e, order[1]);
    std::optional<std::string> check;
    if (cfg_.accounts >= 3 && Chance(0.3)) check = AccountKey(e, order[2]);
    int amt = Uniform(1, 40);
    std::string id = Val();
    std::vector<std::string> keys = {Q(from), Q(to)};
    if (check) keys.push_back(Q(*check));
    std::string args = Obj({{"keys", List(keys)}, {"from", Q(from)}, {"to", Q(to)},
                            {"check", check ? Q(*check) : "null"}, {"amt", I(amt)},
                            {"id", Q(id)}});
    Do("transfer", args, [&](std::string* value) {
      dynarock::TransactWriteItemsRequest r;
      auto add = [&](const std::string& k, const char* update, const char* cond, bool old) {
        dynarock::TransactWriteItem w;
        w.kind = dynarock::TransactWriteItem::Kind::kUpdate;
        w.table_name = kTable;
        w.key = Key(k);
        w.update_expression = update;
        w.condition_expression = cond;
        w.expression_attribute_names = {{"#l", "log"}};
        w.has_expression_attribute_names = true;
        w.expression_attribute_values = {{":a", N(amt)}, {":id", AttributeValue::L({S(id)})}};
        w.has_expression_attribute_values = true;
        w.return_values_on_condition_check_failure_all_old = old;
        r.transact_items.push_back(std::move(w));
      };
      add(from, "SET bal = bal - :a, #l = list_append(#l, :id)", "bal >= :a", true);
      add(to, "SET bal = bal + :a, #l = list_append(#l, :id)", "attribute_exists(pk)", false);
      if (check) {
        dynarock::TransactWriteItem c;
        c.kind = dynarock::TransactWriteItem::Kind::kConditionCheck;
        c.table_name = kTable;
        c.key = Key(*check);
        c.condition_expression = "attribute_exists(pk)";
        r.transact_items.push_back(std::move(c));
      }
      auto t = db_->TransactWriteItems(r);
      if (!t.ok()) return t.status();
      *value = "{}";
      return Status();
    }, [](const Status& s) {
      std::vector<std::pair<std::string, std::string>> f = {{"reasons", ReasonCodes(s)}};
      const auto& reasons = s.cancellation_reasons();
      if (!reasons.empty() && reasons[0].item) {
        f.emplace_back("from", AccountSnapshot(reasons[0].item, false));
      }
      return Obj(f);
    });
  }

  void ReadAll(int64_t e) { ReadAllOf(e, false); }

  void ReadAllOf(int64_t e, bool final) {
    std::vector<std::string> keys, quoted;
    for (int i = 0; i < cfg_.accounts; ++i) {
      keys.push_back(AccountKey(e, i));
      quoted.push_back(Q(keys.back()));
    }
    std::vector<std::pair<std::string, std::string>> args = {{"keys", List(quoted)}};
    if (final) args.emplace_back("final", "true");
    Do("read_all", Obj(args), [&](std::string* value) {
      dynarock::TransactGetItemsRequest r;
      for (const auto& k : keys) {
        dynarock::TransactGetItem g;
        g.table_name = kTable;
        g.key = Key(k);
        r.transact_items.push_back(std::move(g));
      }
      auto t = db_->TransactGetItems(r);
      if (!t.ok()) return t.status();
      std::vector<std::pair<std::string, std::string>> accts;
      for (size_t i = 0; i < keys.size() && i < t->responses.size(); ++i) {
        accts.emplace_back(keys[i], AccountSnapshot(t->responses[i], final));
      }
      *value = Obj({{"accounts", Obj(accts)}});
      return Status();
    }, [](const Status& s) { return Obj({{"reasons", ReasonCodes(s)}}); });
  }

  std::string name_;
  DB* db_;
  const Config& cfg_;
  std::mt19937_64 rng_;
  int64_t index_ = 0;
  std::map<std::string, int64_t> vers_;
  std::string events_;
};

// ---------------------------------------------------------------- setup

[[noreturn]] void Die(const std::string& what, const Status& s) {
  std::fprintf(stderr, "history_driver: %s: %s\n", what.c_str(), s.ToString().c_str());
  std::exit(3);
}

std::string Setup(DB* db, const Config& cfg, int64_t epochs) {
  dynarock::CreateTableRequest c;
  c.table_name = kTable;
  c.billing_mode = "PAY_PER_REQUEST";
  dynarock::KeySchemaElement ks;
  ks.attribute_name = "pk";
  ks.key_type = dynarock::KeyType::kHash;
  c.key_schema = {ks};
  dynarock::AttributeDefinition ad;
  ad.attribute_name = "pk";
  ad.attribute_type = dynarock::AttrType::kS;
  c.attribute_definitions = {ad};
  auto created = db->CreateTable(c);
  if (!created.ok()) Die("CreateTable", created.status());
  std::vector<std::string> banks;
  for (int64_t e = 0; e < epochs; ++e) {
    std::vector<std::pair<std::string, std::string>> bank;
    for (int i = 0; i < cfg.accounts; ++i) {
      dynarock::PutItemRequest p;
      p.table_name = kTable;
      p.item = {{"pk", S(AccountKey(e, i))}, {"bal", N(kInitialBalance)},
                {"log", AttributeValue::L({})}};
      auto put = db->PutItem(p);
      if (!put.ok()) Die("PutItem", put.status());
      bank.emplace_back(AccountKey(e, i), I(kInitialBalance));
    }
    banks.push_back(Obj(bank));
  }
  return Obj({{"type", Q("init")}, {"banks", List(banks)}}) + "\n";
}

int Usage() {
  std::fprintf(stderr,
               "usage: history_driver --out FILE [--threads N] [--seconds S] [--ops N]\n"
               "                      [--epoch-ops N] [--registers N] [--accounts N]\n"
               "                      [--seed N] [--data DIR]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) return Usage();
    std::string v = argv[++i];
    try {
      if (flag == "--out") cfg.out = v;
      else if (flag == "--data") cfg.data = v;
      else if (flag == "--threads") cfg.threads = std::stoi(v);
      else if (flag == "--seconds") cfg.seconds = std::stod(v);
      else if (flag == "--ops") cfg.ops = std::stoll(v);
      else if (flag == "--epoch-ops") cfg.epoch_ops = std::stoll(v);
      else if (flag == "--registers") cfg.registers = std::stoi(v);
      else if (flag == "--accounts") cfg.accounts = std::stoi(v);
      else if (flag == "--seed") cfg.seed = std::stoull(v);
      else return Usage();
    } catch (const std::exception&) {
      return Usage();
    }
  }
  if (cfg.out.empty() || cfg.threads < 1 || cfg.ops < 1 || cfg.epoch_ops < 1 ||
      cfg.registers < 2 || cfg.accounts < 2) {
    return Usage();
  }
  dynarock::Options options;
  options.in_memory = cfg.data.empty();
  auto opened = DB::Open(options, cfg.data);
  if (!opened.ok()) Die("DB::Open", opened.status());
  std::unique_ptr<DB> db = std::move(*opened);
  const int64_t epochs = (cfg.ops + cfg.epoch_ops - 1) / cfg.epoch_ops;
  std::string history = Setup(db.get(), cfg, epochs);

  std::vector<std::unique_ptr<Actor>> actors;
  for (int t = 0; t < cfg.threads; ++t) {
    actors.push_back(std::make_unique<Actor>("cc" + std::to_string(t), db.get(), cfg,
                                             cfg.seed * 1000 + static_cast<uint64_t>(t)));
  }
  const int64_t deadline = NowNs() + static_cast<int64_t>(cfg.seconds * 1e9);
  std::vector<std::thread> threads;
  for (auto& a : actors) threads.emplace_back([&a, deadline] { a->Run(deadline); });
  for (auto& t : threads) t.join();
  Actor final("final", db.get(), cfg, 0);
  final.Final(epochs);

  std::ofstream out(cfg.out, std::ios::binary | std::ios::trunc);
  out << history;
  for (const auto& a : actors) out << a->events();
  out << final.events();
  out.close();
  if (!out) {
    std::fprintf(stderr, "history_driver: cannot write %s\n", cfg.out.c_str());
    return 3;
  }
  return 0;
}
