// File: engine/capacity.h
//
// Consumed capacity as DynamoDB bills it (Developer Guide, "Read/write capacity
// mode" and "Item sizes and formats"):
//   - reads in 4 KB units, rounded up, at least one unit; eventually consistent
//     reads cost half. GetItem and BatchGetItem round per item (a missing item
//     still costs the minimum); Query and Scan round once per request, on the
//     size of every item evaluated (before filters), not only those returned.
//   - writes in 1 KB units on the larger of the old and the new item, at least
//     one unit.
//   - each secondary index a write touches: nothing when its entry neither
//     appears, disappears nor changes; one write of the entry's size when it
//     appears, disappears or changes in place; two (old and new entry) when the
//     write changes the entry's index key.
//   - transactions cost twice as much, reads and writes.

#ifndef DYNAROCK_ENGINE_CAPACITY_H_
#define DYNAROCK_ENGINE_CAPACITY_H_

#include <map>
#include <optional>
#include <string>

#include "dynarock/requests.h"

namespace dynarock {

// Read units for `bytes` read in one rounding step.
double ReadUnits(size_t bytes, bool consistent_read);
// Write units for an item (or index entry) of `bytes`.
double WriteUnits(size_t bytes);

// The units one request consumed, by table and index, before they are reported.
struct CapacityCounter {
  double table = 0;
  std::map<std::string, double> global_indexes;
  std::map<std::string, double> local_indexes;

  double Total() const;
  void Add(const CapacityCounter& other, double factor = 1);
  void AddIndex(const std::string& name, bool global, double units) {
    (global ? global_indexes : local_indexes)[name] += units;
  }
};

// The ConsumedCapacity DynamoDB reports for `counter` with `mode` (nullopt for
// NONE). `table_name` is as the request named it (a name or an ARN). Only the
// transactional operations split CapacityUnits into ReadCapacityUnits or
// WriteCapacityUnits; the others report CapacityUnits alone.
std::optional<ConsumedCapacity> ReportCapacity(ReturnConsumedCapacity mode,
                                               const std::string& table_name,
                                               const CapacityCounter& counter, bool is_read,
                                               bool transactional = false);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_CAPACITY_H_
