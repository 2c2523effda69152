// The todo app of examples/todo_app on the document API (document/): plain
// values instead of attribute values, expressions built from typed calls
// instead of strings and placeholder maps, pages read through a table handle.
// The same code runs against any DynamoDB endpoint with client::HttpClient in
// place of client::EmbeddedClient.
//
//   todo_document [DATA_DIR]     (in memory without one)

#include <cstdio>
#include <string>

#include "client/embedded_client.h"
#include "document/table.h"
#include "dynarock/db.h"

namespace doc = dynarock::document;

static void Check(const dynarock::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

int main(int argc, char** argv) {
  dynarock::Options options;
  options.in_memory = argc < 2;
  auto db = dynarock::DB::Open(options, argc < 2 ? "" : argv[1]);
  Check(db.status(), "open");
  dynarock::client::EmbeddedClient client(db->get());

  // todos: PK list, SK item; GSI "by_due": all items of every list by due date.
  dynarock::CreateTableRequest create;
  create.table_name = "todos";
  create.key_schema = {{"list", dynarock::KeyType::kHash}, {"item", dynarock::KeyType::kRange}};
  create.attribute_definitions = {{"list", dynarock::AttrType::kS}, {"item", dynarock::AttrType::kS},
                                  {"status", dynarock::AttrType::kS}, {"due", dynarock::AttrType::kS}};
  create.billing_mode = "PAY_PER_REQUEST";
  dynarock::GlobalSecondaryIndex by_due;
  by_due.index_name = "by_due";
  by_due.key_schema = {{"status", dynarock::KeyType::kHash}, {"due", dynarock::KeyType::kRange}};
  by_due.projection.projection_type = dynarock::ProjectionType::kAll;
  create.global_secondary_indexes.push_back(by_due);
  Check(client.CreateTable(create).status(), "create table");

  doc::Table todos(&client, "todos");
  Check(todos.BatchPut({
            doc::Map{{"list", "home"}, {"item", "paint fence"}, {"status", "open"}, {"due", "2026-12-01"}},
            doc::Map{{"list", "home"}, {"item", "fix tap"}, {"status", "open"}, {"due", "2026-11-28"}},
            doc::Map{{"list", "work"}, {"item", "write report"}, {"status", "open"}, {"due", "2026-11-30"}},
        }),
        "put");

  // One transaction: complete "fix tap" only while it is open, and count it
  // on the list's header.
  auto complete = [&] {
    doc::Transaction tx(&client);
    tx.Update(todos, doc::Map{{"list", "home"}, {"item", "fix tap"}}, doc::Update().Set("status", "done"),
              doc::Name("status").Eq("open"))
        .Update(todos, doc::Map{{"list", "home"}, {"item", "#header"}}, doc::Update().Add("completed", 1));
    return tx.Commit();
  };
  Check(complete(), "complete");

  // Doing it again fails as a whole: the condition no longer holds.
  std::printf("completing twice: %s\n", std::string(dynarock::ErrorTypeName(complete().type())).c_str());

  // Open items, soonest first, across lists (the index).
  doc::QueryOptions by_due_date;
  by_due_date.index = "by_due";
  auto open = todos.QueryAll(doc::Key("status").Eq("open"), by_due_date);
  Check(open.status(), "query index");
  for (const doc::Value& item : *open) {
    std::printf("open: %s (%s) due %s\n", item["item"].AsString().value().c_str(),
                item["list"].AsString().value().c_str(), item["due"].AsString().value().c_str());
  }

  auto header = todos.Get(doc::Map{{"list", "home"}, {"item", "#header"}});
  Check(header.status(), "get");
  std::printf("home completed: %lld\n", static_cast<long long>((**header)["completed"].AsInt().value()));
  return 0;
}
