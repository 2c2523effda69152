#include "engine/capacity.h"

#include "engine/limits.h"

namespace dynarock {

double ReadUnits(size_t bytes, bool consistent_read) {
  size_t units = (bytes + kReadCapacityUnitBytes - 1) / kReadCapacityUnitBytes;
  if (units == 0) units = 1;
  return consistent_read ? static_cast<double>(units) : units / 2.0;
}

double WriteUnits(size_t bytes) {
  size_t units = (bytes + kWriteCapacityUnitBytes - 1) / kWriteCapacityUnitBytes;
  return static_cast<double>(units == 0 ? 1 : units);
}

double CapacityCounter::Total() const {
  double total = table;
  for (const auto& [name, units] : global_indexes) total += units;
  for (const auto& [name, units] : local_indexes) total += units;
  return total;
}

void CapacityCounter::Add(const CapacityCounter& other, double factor) {
  table += other.table * factor;
  for (const auto& [name, units] : other.global_indexes) global_indexes[name] += units * factor;
  for (const auto& [name, units] : other.local_indexes) local_indexes[name] += units * factor;
}

std::optional<ConsumedCapacity> ReportCapacity(ReturnConsumedCapacity mode,
                                               const std::string& table_name,
                                               const CapacityCounter& counter, bool is_read,
                                               bool transactional) {
  if (mode == ReturnConsumedCapacity::kNone) return std::nullopt;
  auto capacity = [&](double units) {
    Capacity c;
    c.capacity_units = units;
    if (transactional) (is_read ? c.read_capacity_units : c.write_capacity_units) = units;
    return c;
  };
  ConsumedCapacity out;
  out.table_name = table_name;
  out.capacity_units = counter.Total();
  if (transactional) {
    (is_read ? out.read_capacity_units : out.write_capacity_units) = out.capacity_units;
  }
  if (mode == ReturnConsumedCapacity::kIndexes) {
    out.table = capacity(counter.table);
    for (const auto& [name, units] : counter.global_indexes)
      out.global_secondary_indexes[name] = capacity(units);
    for (const auto& [name, units] : counter.local_indexes)
      out.local_secondary_indexes[name] = capacity(units);
  }
  return out;
}

}  // namespace dynarock
