// The sensor logger of examples/sensor_logger on the document API, with a
// typed record: a Reading struct is the item, its time points are epoch
// seconds (what TimeToLive reads), the key condition is built from typed
// calls. The same code runs against any DynamoDB endpoint with
// client::HttpClient in place of client::EmbeddedClient.
//
//   sensor_document [DATA_DIR]     (in memory without one)

#include <chrono>
#include <cstdio>
#include <string>

#include "client/embedded_client.h"
#include "document/table.h"
#include "dynarock/db.h"

namespace doc = dynarock::document;
using Clock = std::chrono::system_clock;

struct Reading {
  std::string device;
  Clock::time_point ts;
  double celsius = 0;
  Clock::time_point expires;
};
DYNAROCK_RECORD(Reading, DYNAROCK_FIELD(device, doc::kPartitionKey),
                DYNAROCK_FIELD(ts, doc::kSortKey, doc::kEpochSeconds), DYNAROCK_FIELD(celsius),
                DYNAROCK_FIELD(expires, doc::kEpochSeconds));

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
  dynarock::client::EmbeddedClient client(db->get());

  dynarock::CreateTableRequest create;
  create.table_name = "readings";
  create.key_schema = {{"device", dynarock::KeyType::kHash}, {"ts", dynarock::KeyType::kRange}};
  create.attribute_definitions = {{"device", dynarock::AttrType::kS}, {"ts", dynarock::AttrType::kN}};
  create.billing_mode = "PAY_PER_REQUEST";
  Check(client.CreateTable(create).status(), "create table");
  // Readings expire a day after they are taken ("expires", seconds since the epoch).
  dynarock::UpdateTimeToLiveRequest ttl;
  ttl.table_name = "readings";
  ttl.time_to_live_specification.attribute_name = "expires";
  ttl.time_to_live_specification.enabled = true;
  Check((*db)->UpdateTimeToLive(ttl).status(), "time to live");

  // Three devices, a reading a minute for 300 minutes.
  doc::Table readings(&client, "readings");
  const Clock::time_point start = Clock::from_time_t(1764028800);  // 2025-11-25T00:00:00Z
  const char* devices[] = {"boiler", "fridge", "porch"};
  int written = 0;
  for (int minute = 0; minute < 300; ++minute) {
    for (int d = 0; d < 3; ++d) {
      const Clock::time_point ts = start + std::chrono::minutes(minute);
      Check(readings.Put(Reading{devices[d], ts, (200 + d * 50 + minute % 10) / 10.0, ts + std::chrono::hours(24)}),
            "put");
      ++written;
    }
  }
  std::printf("written: %d readings\n", written);

  // The fridge between 01:00 and 02:00, newest first.
  doc::QueryOptions newest_first{.forward = false};
  const doc::Time from{start + std::chrono::hours(1), doc::TimeFormat::kEpochSeconds};
  const doc::Time to{start + std::chrono::hours(2), doc::TimeFormat::kEpochSeconds};
  auto r = readings.Query<Reading>(doc::Key("device").Eq("fridge").And(doc::Key("ts").Between(from, to)),
                                   newest_first);
  Check(r.status(), "query");
  std::printf("fridge 01:00-02:00: %zu readings, newest %g C, oldest %g C\n", r->size(), r->front().celsius,
              r->back().celsius);

  dynarock::DescribeTimeToLiveRequest d;
  d.table_name = "readings";
  auto t = (*db)->DescribeTimeToLive(d);
  Check(t.status(), "describe time to live");
  std::printf("time to live: %s on %s\n", t->time_to_live_status.c_str(), t->attribute_name.value_or("").c_str());
  return 0;
}
