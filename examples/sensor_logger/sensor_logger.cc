// An IoT-style sensor logger with the small-device settings: time-series
// readings keyed by device and time, expired by TimeToLive, read back by device
// and time range.
//
//   sensor_logger [DATA_DIR]     (in memory without one)

#include <cstdio>
#include <string>

#include "dynarock/db.h"

using dynarock::AttributeValue;
using dynarock::AttrType;
using dynarock::KeyType;

static void Check(const dynarock::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

int main(int argc, char** argv) {
  // 1 MiB block cache and write buffers, few open files, one background job.
  dynarock::Options options = dynarock::Options::SmallDevice();
  options.in_memory = argc < 2;
  auto db = dynarock::DB::Open(options, argc < 2 ? "" : argv[1]);
  Check(db.status(), "open");

  dynarock::CreateTableRequest create;
  create.table_name = "readings";
  create.key_schema = {{"device", KeyType::kHash}, {"ts", KeyType::kRange}};
  create.attribute_definitions = {{"device", AttrType::kS}, {"ts", AttrType::kN}};
  create.billing_mode = "PAY_PER_REQUEST";
  Check((*db)->CreateTable(create).status(), "create table");

  // Readings expire a day after they are taken ("expires", seconds since the epoch).
  dynarock::UpdateTimeToLiveRequest ttl;
  ttl.table_name = "readings";
  ttl.time_to_live_specification.attribute_name = "expires";
  ttl.time_to_live_specification.enabled = true;
  Check((*db)->UpdateTimeToLive(ttl).status(), "time to live");

  // Three devices, a reading a minute for 300 minutes.
  const long start = 1764028800;  // 2025-11-25T00:00:00Z
  const char* devices[] = {"boiler", "fridge", "porch"};
  int written = 0;
  for (int minute = 0; minute < 300; ++minute) {
    for (int d = 0; d < 3; ++d) {
      long ts = start + minute * 60;
      double celsius = 20 + d * 5 + (minute % 10) * 0.1;
      dynarock::PutItemRequest put;
      put.table_name = "readings";
      char value[32];
      std::snprintf(value, sizeof value, "%.1f", celsius);
      put.item = {{"device", AttributeValue::S(devices[d])},
                  {"ts", AttributeValue::N(std::to_string(ts))},
                  {"celsius", AttributeValue::N(value)},
                  {"expires", AttributeValue::N(std::to_string(ts + 86400))}};
      Check((*db)->PutItem(put).status(), "put");
      ++written;
    }
  }
  std::printf("written: %d readings\n", written);

  // The fridge between 01:00 and 02:00, newest first.
  dynarock::QueryRequest q;
  q.table_name = "readings";
  q.key_condition_expression = "device = :d AND ts BETWEEN :from AND :to";
  q.expression_attribute_values = {{":d", AttributeValue::S("fridge")},
                                   {":from", AttributeValue::N(std::to_string(start + 3600))},
                                   {":to", AttributeValue::N(std::to_string(start + 7200))}};
  q.has_expression_attribute_values = true;
  q.scan_index_forward = false;
  auto r = (*db)->Query(q);
  Check(r.status(), "query");
  std::printf("fridge 01:00-02:00: %zu readings, newest %s C, oldest %s C\n", r->items.size(),
              r->items.front().at("celsius").scalar().c_str(),
              r->items.back().at("celsius").scalar().c_str());

  dynarock::DescribeTimeToLiveRequest d;
  d.table_name = "readings";
  auto t = (*db)->DescribeTimeToLive(d);
  Check(t.status(), "describe time to live");
  std::printf("time to live: %s on %s\n", t->time_to_live_status.c_str(),
              t->attribute_name.value_or("").c_str());
  return 0;
}
