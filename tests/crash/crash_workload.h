// File: tests/crash/crash_workload.h
//
// What the kill -9 crash test's writer and verifier (crash_writer.cc, crash_graph.cc)
// share: the numbered writes (each write's kind and content are a pure function of
// its number, so the verifier can recompute them), the history of a crash test
// parsed from the writer runs' output, and the verifier's problem list.
//
// The history file is the concatenated stdout of `crash_writer run`:
//   start N T0     a run begins with write N; T0 = its start in seconds since the epoch
//   ack n          write n was acknowledged (the call returned OK)
//   resumed n      write n, a DeleteNode the previous run was killed in, was finished
//                  by the next run before it started (an application that remembers
//                  to call DeleteNode again until done)
// Each run has at most one write in flight when it is killed: the one after its
// last acknowledgement, which may or may not have been applied (in part, when it
// is not atomic).

#ifndef DYNAROCK_TESTS_CRASH_CRASH_WORKLOAD_H_
#define DYNAROCK_TESTS_CRASH_CRASH_WORKLOAD_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dynarock/db.h"

namespace crash {

using dynarock::AttributeValue;
using dynarock::Item;

inline AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
inline AttributeValue N(int64_t v) { return AttributeValue::N(std::to_string(v)); }

inline uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A small deterministic stream of random numbers for write number n.
struct Rng {
  explicit Rng(uint64_t n) : s(SplitMix(n * 0x2545F4914F6CDD1DULL + 17)) {}
  uint64_t Next() { return s = SplitMix(s); }
  int64_t Uniform(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  uint64_t s;
};

// ---------------------------------------------------------------- the writes

enum class Kind {
  // Table "crash": bank transfers and single-item writes (crash_writer.cc).
  kTxn, kPut, kUpdate, kDelete,
  // Table "crash_graph", through the graph layer (crash_graph.cc).
  kAddEdge, kRemoveEdge, kAddEdges, kPutNode, kDeleteNode,
};

inline Kind KindOf(int64_t n) {
  Rng r(static_cast<uint64_t>(n));
  int64_t k = r.Uniform(0, 99);
  if (k < 30) return Kind::kTxn;
  if (k < 47) return Kind::kPut;
  if (k < 60) return Kind::kUpdate;
  if (k < 68) return Kind::kDelete;
  if (k < 84) return Kind::kAddEdge;
  if (k < 90) return Kind::kRemoveEdge;
  if (k < 94) return Kind::kAddEdges;
  if (k < 98) return Kind::kPutNode;
  return Kind::kDeleteNode;
}

inline bool IsItemWrite(Kind k) { return k == Kind::kPut || k == Kind::kUpdate || k == Kind::kDelete; }
inline bool IsGraphWrite(Kind k) { return k >= Kind::kAddEdge; }

// ---------------------------------------------------------------- the history

struct Run {
  int64_t start = 0;
  double t0 = 0;         // seconds since the epoch at its start
  int64_t last = 0;      // its last acknowledged write; start - 1 when none
};

struct History {
  bool given = false;           // --acks was passed
  std::vector<Run> runs;
  std::set<int64_t> acked;      // acknowledged or resumed
  std::set<int64_t> resumed;
  std::vector<int64_t> in_flight;  // per run: the write that may have been applied
  std::vector<std::string> errors;

  // Parses the lines of the runs' stdout (see the file comment).
  void Parse(const std::vector<std::string>& lines);

  // The run write n belongs to (nullptr before every run).
  const Run* RunOf(int64_t n) const {
    const Run* found = nullptr;
    for (const Run& r : runs)
      if (r.start <= n) found = &r;
    return found;
  }
  double T0Of(int64_t n) const {
    const Run* r = RunOf(n);
    return r ? r->t0 : 0;
  }
  bool InFlight(int64_t n) const {
    return std::find(in_flight.begin(), in_flight.end(), n) != in_flight.end();
  }
  // Every write that was acknowledged or may have been applied, in the order
  // they ran: (number, acknowledged).
  std::vector<std::pair<int64_t, bool>> Ordered() const {
    std::vector<std::pair<int64_t, bool>> out;
    for (int64_t n : acked) out.emplace_back(n, true);
    for (int64_t n : in_flight) out.emplace_back(n, false);
    std::sort(out.begin(), out.end());
    return out;
  }
};

inline void History::Parse(const std::vector<std::string>& lines) {
  given = true;
  for (const std::string& line : lines) {
    char word[16];
    long long v = 0;
    double t = 0;
    int got = std::sscanf(line.c_str(), "%15s %lld %lf", word, &v, &t);
    if (got < 2) continue;
    std::string w = word;
    if (w == "start") {
      runs.push_back(Run{v, got == 3 ? t : 0, v - 1});
    } else if (w == "ack" || w == "resumed") {
      if (runs.empty() || v < runs.back().start) {
        errors.push_back(w + " " + std::to_string(v) + " outside any run");
        continue;
      }
      acked.insert(v);
      if (w == "resumed") {
        resumed.insert(v);
      } else {
        runs.back().last = std::max<int64_t>(runs.back().last, v);
      }
    }
  }
  for (const Run& r : runs) {
    if (!acked.count(r.last + 1)) in_flight.push_back(r.last + 1);
  }
}

// ---------------------------------------------------------------- problems

struct Problems {
  std::vector<std::string> list;
  void Add(std::string s) {
    if (list.size() < 200) std::printf("problem: %s\n", s.c_str());
    list.push_back(std::move(s));
  }
};

// What a table's stream says, per item (key string -> records in order), after
// CheckStream's checks.
struct StreamSummary {
  size_t records = 0;
  size_t ttl_removes = 0;
  std::map<std::string, std::vector<dynarock::StreamRecord>> by_key;
};

// Reads every record of `table`'s stream over all its shards and checks that
// sequence numbers increase and that each item's records chain (every record's
// old image is the previous record's new image, INSERT from absent, REMOVE to
// absent) and end in the item's state now (`now_by_key`, keyed by key_of). With
// `trimmed` (records past the stream's retention may be gone), an item's first
// record may follow a trimmed one and an item may have no record left. Keeps the
// records of the items `keep` selects (by key) in the summary.
StreamSummary CheckStream(dynarock::DB* db, const std::string& table,
                          const std::function<std::string(const Item&)>& key_of,
                          const std::map<std::string, Item>& now_by_key, bool trimmed,
                          const std::function<bool(const std::string&)>& keep, Problems* p);

}  // namespace crash

#endif  // DYNAROCK_TESTS_CRASH_CRASH_WORKLOAD_H_
