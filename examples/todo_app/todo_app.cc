// A desktop-style todo list on the embedded DB: one table keyed by list and
// item, a global secondary index by due date, and a transaction that completes
// an item and counts it on its list at once.
//
//   todo_app [DATA_DIR]     (in memory without one)

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
  dynarock::Options options;
  options.in_memory = argc < 2;
  auto db = dynarock::DB::Open(options, argc < 2 ? "" : argv[1]);
  Check(db.status(), "open");

  // todos: PK list, SK item; GSI "by_due": all items of every list by due date.
  dynarock::CreateTableRequest create;
  create.table_name = "todos";
  create.key_schema = {{"list", KeyType::kHash}, {"item", KeyType::kRange}};
  create.attribute_definitions = {{"list", AttrType::kS}, {"item", AttrType::kS},
                                  {"status", AttrType::kS}, {"due", AttrType::kS}};
  create.billing_mode = "PAY_PER_REQUEST";
  dynarock::GlobalSecondaryIndex by_due;
  by_due.index_name = "by_due";
  by_due.key_schema = {{"status", KeyType::kHash}, {"due", KeyType::kRange}};
  by_due.projection.projection_type = dynarock::ProjectionType::kAll;
  create.global_secondary_indexes.push_back(by_due);
  Check((*db)->CreateTable(create).status(), "create table");

  const char* items[][3] = {{"home", "paint fence", "2026-12-01"},
                            {"home", "fix tap", "2026-11-28"},
                            {"work", "write report", "2026-11-30"}};
  for (const auto& it : items) {
    dynarock::PutItemRequest put;
    put.table_name = "todos";
    put.item = {{"list", AttributeValue::S(it[0])}, {"item", AttributeValue::S(it[1])},
                {"status", AttributeValue::S("open")}, {"due", AttributeValue::S(it[2])}};
    Check((*db)->PutItem(put).status(), "put");
  }

  // Complete "fix tap" and count it on the list's header item, atomically.
  dynarock::TransactWriteItemsRequest tx;
  dynarock::TransactWriteItem done;
  done.kind = dynarock::TransactWriteItem::Kind::kUpdate;
  done.table_name = "todos";
  done.key = {{"list", AttributeValue::S("home")}, {"item", AttributeValue::S("fix tap")}};
  done.update_expression = "SET #s = :done";
  done.condition_expression = "#s = :open";
  done.expression_attribute_names = {{"#s", "status"}};
  done.has_expression_attribute_names = true;
  done.expression_attribute_values = {{":done", AttributeValue::S("done")},
                                      {":open", AttributeValue::S("open")}};
  done.has_expression_attribute_values = true;
  dynarock::TransactWriteItem count;
  count.kind = dynarock::TransactWriteItem::Kind::kUpdate;
  count.table_name = "todos";
  count.key = {{"list", AttributeValue::S("home")}, {"item", AttributeValue::S("#header")}};
  count.update_expression = "ADD completed :one";
  count.expression_attribute_values = {{":one", AttributeValue::N("1")}};
  count.has_expression_attribute_values = true;
  tx.transact_items = {done, count};
  Check((*db)->TransactWriteItems(tx).status(), "complete");

  // Doing it again fails as a whole: the condition no longer holds.
  auto again = (*db)->TransactWriteItems(tx);
  std::printf("completing twice: %s\n",
              std::string(dynarock::ErrorTypeName(again.status().type())).c_str());

  // Open items, soonest first, across lists (the index).
  dynarock::QueryRequest open_items;
  open_items.table_name = "todos";
  open_items.index_name = "by_due";
  open_items.key_condition_expression = "#s = :open";
  open_items.expression_attribute_names = {{"#s", "status"}};
  open_items.has_expression_attribute_names = true;
  open_items.expression_attribute_values = {{":open", AttributeValue::S("open")}};
  open_items.has_expression_attribute_values = true;
  auto open = (*db)->Query(open_items);
  Check(open.status(), "query index");
  for (const auto& item : open->items) {
    std::printf("open: %s (%s) due %s\n", item.at("item").scalar().c_str(),
                item.at("list").scalar().c_str(), item.at("due").scalar().c_str());
  }

  dynarock::GetItemRequest header;
  header.table_name = "todos";
  header.key = {{"list", AttributeValue::S("home")}, {"item", AttributeValue::S("#header")}};
  auto h = (*db)->GetItem(header);
  Check(h.status(), "get");
  std::printf("home completed: %s\n", h->item->at("completed").scalar().c_str());
  return 0;
}
