// File: tests/unit/testutil.h
//
// Shared helpers for the GoogleTest suites: short constructors for attribute
// values and items, status assertions, and a fixture that opens a fresh
// in-memory DB.

#ifndef DYNAROCK_TESTS_UNIT_TESTUTIL_H_
#define DYNAROCK_TESTS_UNIT_TESTUTIL_H_

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "dynarock/db.h"

namespace dynarock::testing {

inline AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
inline AttributeValue N(std::string n) { return AttributeValue::N(std::move(n)); }
inline AttributeValue B(std::string b) { return AttributeValue::B(std::move(b)); }
Item MakeItem(std::initializer_list<std::pair<const std::string, AttributeValue>> attrs);

#define ASSERT_OK(expr)                                      \
  do {                                                       \
    const auto& dr_s_ = (expr);                              \
    ASSERT_TRUE(dr_s_.ok()) << dr_s_.status().ToString();    \
  } while (0)
// ASSERT_OK for a plain Status.
#define ASSERT_STATUS_OK(expr)                   \
  do {                                           \
    const ::dynarock::Status dr_s_ = (expr);     \
    ASSERT_TRUE(dr_s_.ok()) << dr_s_.ToString(); \
  } while (0)
#define EXPECT_ERROR(expr, error_type, substring)                               \
  do {                                                                          \
    auto dr_s_ = (expr).status();                                               \
    EXPECT_EQ(dr_s_.type(), error_type) << dr_s_.ToString();                    \
    EXPECT_NE(dr_s_.message().find(substring), std::string::npos)               \
        << "message: " << dr_s_.message() << "\nexpected to contain: " << substring; \
  } while (0)

// CreateTable of an on-demand table keyed by "pk" (S), nothing else.
CreateTableRequest PkTableRequest(const std::string& name);

// An on-demand table "pk" (S) with a GSI "by_g" on "g" (S), ALL projected,
// and a stream of `stream_view` unless empty.
void CreateGsiTable(DB* db, const std::string& name, const std::string& stream_view = "");

// Wait (up to 30 s) until table `name` is ACTIVE (restores fill it in the
// background) or backup `arn` is AVAILABLE; a fatal failure otherwise (callers
// wrap them in ASSERT_NO_FATAL_FAILURE to stop there).
void WaitActive(DB* db, const std::string& name);
void WaitAvailable(DB* db, const std::string& arn);

// An UpdateTable of `table` creating GSI `index` on `key_schema` (its
// attributes defined as `definitions`), projecting `projection`.
UpdateTableRequest CreateGsiRequest(const std::string& table, const std::string& index,
                                    std::vector<KeySchemaElement> key_schema,
                                    std::vector<AttributeDefinition> definitions,
                                    ProjectionType projection = ProjectionType::kAll);
// Wait (up to 30 s) until index `index` of table `table` is ACTIVE (a
// backfill done); a fatal failure otherwise.
void WaitIndexActive(DB* db, const std::string& table, const std::string& index);

// A fresh in-memory DB per test, with helpers to create the usual tables.
class DBTest : public ::testing::Test {
 protected:
  void SetUp() override;
  // A PAY_PER_REQUEST table with hash key `hash` (type `hash_type`) and, when
  // `range` is non-empty, range key `range` (type `range_type`).
  void CreateTable(const std::string& name, const std::string& hash, AttrType hash_type,
                   const std::string& range = "", AttrType range_type = AttrType::kS);
  void Put(const std::string& table, Item item);
  std::optional<Item> Get(const std::string& table, Item key);

  std::unique_ptr<DB> db_;
};

// -1, 0 or 1: the sign of a comparison's result.
inline int Sign(int v) { return v < 0 ? -1 : (v > 0 ? 1 : 0); }

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UNIT_TESTUTIL_H_
