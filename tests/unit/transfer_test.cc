// File: tests/unit/transfer_test.cc
//
// Exports and imports (engine/transfer): the byte level (MD5 against RFC
// 1321's vectors, gzip and zstd lines, truncation), the item formats (Ion
// both ways with DynamoDB's type mapping and its documented example line,
// CSV records, DynamoDB JSON lines), and, on a DB, export -> import round
// trips of every attribute type, the hand-written DynamoDB export fixture in
// tests/data/transfer imported through ImportTable, error accounting, the
// API's errors, and jobs cut short by a restart reported FAILED.

#include <zstd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/item_codec.h"
#include "engine/item_validation.h"
#include "engine/transfer/file_codec.h"
#include "engine/transfer/ion.h"
#include "engine/transfer/item_formats.h"
#include "engine/transfer/runner.h"
#include "engine/transfer/transfers.h"
#include "tests/unit/testutil.h"

namespace dynarock::transfer {
namespace {
namespace fs = std::filesystem;
using testing::MakeItem;

std::string SourceDir() {
  std::string f = __FILE__;
  return f.substr(0, f.rfind("/tests/unit/"));
}

std::string Md5Hex(std::string_view s) {
  Md5 h;
  h.Update(s);
  auto d = h.Final();
  return HexString(d.data(), d.size());
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("dynarock-transfer-" + RandomToken(10));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

void WriteFile(const std::string& path, std::string_view data) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << data;
}

std::vector<std::string> ReadLines(const std::string& path, Compression c) {
  auto r = LineReader::Open(path, c);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> out;
  std::string_view line;
  while ((*r)->Next(&line)) out.emplace_back(line);
  EXPECT_TRUE((*r)->status().ok()) << (*r)->status().ToString();
  return out;
}

// Every attribute type, nested ones too.
Item EveryType(const std::string& id) {
  Item m = MakeItem({{"n", AttributeValue::N("-1.25")}, {"s", AttributeValue::S("x")}});
  return MakeItem({
      {"pk", AttributeValue::S(id)},
      {"s", AttributeValue::S("quote \" backslash \\ newline \n tab \t ctrl \x01 utf8 \xc3\xa9")},
      {"n", AttributeValue::N("12345678901234567890.123456789")},
      {"neg", AttributeValue::N("-0.000001")},
      {"b", AttributeValue::B(std::string("\x00\x01\xff\xfe", 4))},
      {"t", AttributeValue::Bool(true)},
      {"f", AttributeValue::Bool(false)},
      {"z", AttributeValue::Null()},
      {"l", AttributeValue::L({AttributeValue::S("a"), AttributeValue::N("1"), AttributeValue::M(m)})},
      {"m", AttributeValue::M(m)},
      {"ss", AttributeValue::SS({"a", "b c"})},
      {"ns", AttributeValue::NS({"1", "2.5", "-3"})},
      {"bs", AttributeValue::BS({std::string("\x00", 1), "\x7f"})},
      {"odd name-with.dots", AttributeValue::S("v")},
      {"null", AttributeValue::S("keyword as a name")},
  });
}

// ---------------------------------------------------------------- bytes

TEST(TransferMd5, Rfc1321Vectors) {
  EXPECT_EQ(Md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a");
  Md5 pieces;  // fed in odd pieces across block boundaries
  std::string big(1000, 'q');
  for (size_t i = 0; i < big.size(); i += 7) pieces.Update(std::string_view(big).substr(i, 7));
  auto d = pieces.Final();
  EXPECT_EQ(HexString(d.data(), d.size()), Md5Hex(big));
}

TEST(TransferFiles, GzipWriterAndReaderRoundTrip) {
  TempDir dir;
  const std::string path = dir.str() + "/a.gz";
  auto w = GzipFileWriter::Create(path);
  ASSERT_OK(w);
  std::string expected;
  for (int i = 0; i < 50000; ++i) {
    const std::string line = "line " + std::to_string(i) + (i % 3 ? "\n" : "\r\n");
    expected += line;
    ASSERT_TRUE((*w)->Append(line).ok());
  }
  ASSERT_TRUE((*w)->Close().ok());
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(HexString((*w)->md5().data(), 16), Md5Hex(ss.str()));
  auto lines = ReadLines(path, Compression::kGzip);
  ASSERT_EQ(lines.size(), 50000u);
  EXPECT_EQ(lines[0], "line 0");
  EXPECT_EQ(lines[49999], "line 49999");

  // Two members (`cat a.gz a.gz`), then a truncated file.
  WriteFile(dir.str() + "/two.gz", ss.str() + ss.str());
  EXPECT_EQ(ReadLines(dir.str() + "/two.gz", Compression::kGzip).size(), 100000u);
  WriteFile(dir.str() + "/cut.gz", ss.str().substr(0, ss.str().size() / 2));
  auto r = LineReader::Open(dir.str() + "/cut.gz", Compression::kGzip);
  ASSERT_OK(r);
  std::string_view line;
  while ((*r)->Next(&line)) {}
  EXPECT_FALSE((*r)->status().ok());
  WriteFile(dir.str() + "/plain.gz", "not gzip at all\n");
  r = LineReader::Open(dir.str() + "/plain.gz", Compression::kGzip);
  while ((*r)->Next(&line)) {}
  EXPECT_FALSE((*r)->status().ok());
}

TEST(TransferFiles, ZstdAndPlainReaders) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "{\"Item\":{\"pk\":{\"S\":\"" + std::to_string(i) + "\"}}}\n";
  std::string z(ZSTD_compressBound(text.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), text.data(), text.size(), 3));
  WriteFile(dir.str() + "/a.zst", z);
  EXPECT_EQ(ReadLines(dir.str() + "/a.zst", Compression::kZstd).size(), 1000u);
  WriteFile(dir.str() + "/cut.zst", z.substr(0, z.size() - 5));
  auto r = LineReader::Open(dir.str() + "/cut.zst", Compression::kZstd);
  std::string_view line;
  while ((*r)->Next(&line)) {}
  EXPECT_FALSE((*r)->status().ok());
  WriteFile(dir.str() + "/p.txt", "a\nb\r\nc");  // no final newline
  EXPECT_EQ(ReadLines(dir.str() + "/p.txt", Compression::kNone),
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(LineReader::Open(dir.str() + "/missing", Compression::kNone).ok());
}

// ---------------------------------------------------------------- Ion

TEST(TransferIon, RoundTripsEveryType) {
  Item item = EveryType("k");
  ASSERT_TRUE(NormalizeAndValidateItem(&item).ok());
  std::string text = "$ion_1_0 ";
  AppendIonStruct(item, &text);
  Item back;
  bool incomplete = false;
  Status s = ParseIonRecord(text, &back, &incomplete);
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << text;
  ASSERT_TRUE(NormalizeAndValidateItem(&back).ok());
  EXPECT_EQ(back, item) << DebugString(back) << "\nvs\n" << DebugString(item);
  EXPECT_NE(text.find("$dynamodb_SS::["), std::string::npos);
  EXPECT_NE(text.find("'odd name-with.dots':"), std::string::npos);
  EXPECT_NE(text.find("'null':"), std::string::npos);
}

TEST(TransferIon, ReadsDynamoDbsDocumentedLine) {
  // The ION line of DynamoDB's "export output format" page.
  const char* line =
      "$ion_1_0 {Item:{Authors:$dynamodb_SS::[\"Author1\",\"Author2\"],Dimensions:\"8.5 x 11.0 "
      "x 1.5\",ISBN:\"333-3333333333\",Id:103.,InPublication:false,PageCount:6d2,Price:2d3,"
      "ProductCategory:\"Book\",Title:\"Book 103 Title\"}}";
  Item record;
  bool incomplete = false;
  ASSERT_TRUE(ParseIonRecord(line, &record, &incomplete).ok());
  Item item = record.at("Item").map();
  ASSERT_TRUE(NormalizeAndValidateItem(&item).ok());
  EXPECT_EQ(item.at("Id"), AttributeValue::N("103"));
  EXPECT_EQ(item.at("PageCount"), AttributeValue::N("600"));
  EXPECT_EQ(item.at("Price"), AttributeValue::N("2000"));
  EXPECT_EQ(item.at("InPublication"), AttributeValue::Bool(false));
  EXPECT_EQ(item.at("Authors"), AttributeValue::SS({"Author1", "Author2"}));
}

TEST(TransferIon, IncompleteAndInvalidText) {
  Item out;
  bool incomplete = false;
  EXPECT_FALSE(ParseIonRecord("{Item:{a:\"x\"", &out, &incomplete).ok());
  EXPECT_TRUE(incomplete);
  EXPECT_TRUE(ParseIonRecord("/* c */ {Item:{a:'''x''' '''y''', b:null.string, c:0x10, d:{{\"hi\"}}}}",
                             &out, &incomplete).ok()) << incomplete;
  const Item& i = out.at("Item").map();
  EXPECT_EQ(i.at("a"), AttributeValue::S("xy"));
  EXPECT_EQ(i.at("b"), AttributeValue::Null());
  EXPECT_EQ(i.at("c"), AttributeValue::N("16"));
  EXPECT_EQ(i.at("d"), AttributeValue::B("hi"));
  for (const char* bad : {"{Item:{a:2020-01-01T00:00Z}}", "{Item:{a:foo::[1]}}", "{Item:{a:(1 2)}}",
                          "{Item:{a:+inf}}", "[1,2]", "{Item:{a:1}} junk",
                          "{Item:{a:$dynamodb_NS::[\"x\"]}}"}) {
    Status s = ParseIonRecord(bad, &out, &incomplete);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_FALSE(incomplete) << bad;
  }
}

// ---------------------------------------------------------------- CSV and lines

TEST(TransferCsv, SplitsRfc4180Records) {
  std::vector<std::string> f;
  bool incomplete = false;
  ASSERT_TRUE(SplitCsvRecord("a,\"b,c\",\"d \"\"q\"\"\",", ',', &f, &incomplete).ok());
  EXPECT_EQ(f, (std::vector<std::string>{"a", "b,c", "d \"q\"", ""}));
  ASSERT_TRUE(SplitCsvRecord("a|\"open", '|', &f, &incomplete).ok());
  EXPECT_TRUE(incomplete);
  EXPECT_FALSE(SplitCsvRecord("a,b\"c", ',', &f, &incomplete).ok());
  EXPECT_FALSE(SplitCsvRecord("\"a\"x,b", ',', &f, &incomplete).ok());
}

TEST(TransferCsv, ParserTypesKeysAndCountsBadRows) {
  ItemParser p(DataFormat::kCsv, ',', {}, {{"id", "N"}, {"bin", "B"}});
  Item item;
  bool has = false;
  ASSERT_TRUE(p.Line("id,name,bin", &item, &has).ok());
  EXPECT_FALSE(has);
  ASSERT_TRUE(p.Line("7,\"multi", &item, &has).ok());
  EXPECT_FALSE(has);
  ASSERT_TRUE(p.Line("line\",AAE=", &item, &has).ok());
  ASSERT_TRUE(has);
  EXPECT_EQ(item.at("id"), AttributeValue::N("7"));
  EXPECT_EQ(item.at("name"), AttributeValue::S("multi\nline"));
  EXPECT_EQ(item.at("bin"), AttributeValue::B(std::string("\x00\x01", 2)));
  ASSERT_TRUE(p.Line("8,,", &item, &has).ok());
  EXPECT_EQ(item.size(), 1u);  // empty fields are no attributes
  EXPECT_FALSE(p.Line("9,a,b,extra", &item, &has).ok());
  EXPECT_FALSE(p.Line("9,a,!!", &item, &has).ok());
  p.StartFile();  // the next file has its own header
  ASSERT_TRUE(p.Line("name,id", &item, &has).ok());
  ASSERT_TRUE(p.Line("x,1", &item, &has).ok());
  EXPECT_EQ(item.at("id"), AttributeValue::N("1"));
}

TEST(TransferLines, DynamoDbJsonLines) {
  Item item = EveryType("k");
  ASSERT_TRUE(NormalizeAndValidateItem(&item).ok());
  std::string encoded = EncodeItem(item);
  for (DataFormat f : {DataFormat::kDynamoDbJson, DataFormat::kIon}) {
    std::string line;
    ASSERT_TRUE(AppendItemLine(f, encoded, &line));
    ASSERT_EQ(line.back(), '\n');
    line.pop_back();
    ItemParser p(f, ',', {}, {});
    Item back;
    bool has = false;
    Status s = p.Line(line, &back, &has);
    ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << line;
    ASSERT_TRUE(has);
    ASSERT_TRUE(NormalizeAndValidateItem(&back).ok());
    EXPECT_EQ(back, item) << line;
  }
  ItemParser p(DataFormat::kDynamoDbJson, ',', {}, {});
  Item back;
  bool has = false;
  EXPECT_TRUE(p.Line("   ", &back, &has).ok());
  EXPECT_FALSE(has);
  for (const char* bad : {"{", "[]", "{\"Items\":{}}", "{\"Item\":{\"a\":{}}}",
                          "{\"Item\":{\"a\":{\"B\":\"***\"}}}"}) {
    EXPECT_FALSE(p.Line(bad, &back, &has).ok()) << bad;
  }
}

TEST(TransferLines, IncrementalLineMembers) {
  TableChange c;
  c.keys = EncodeItem(MakeItem({{"pk", AttributeValue::S("a")}}));
  c.new_image = EncodeItem(MakeItem({{"pk", AttributeValue::S("a")}, {"v", AttributeValue::N("2")}}));
  c.old_image = EncodeItem(MakeItem({{"pk", AttributeValue::S("a")}, {"v", AttributeValue::N("1")}}));
  c.write_micros = 1680109764000000;
  std::string line;
  ASSERT_TRUE(AppendChangeLine(DataFormat::kDynamoDbJson, c, true, &line));
  EXPECT_EQ(line,
            "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1680109764000000\"}},\"Keys\":{\"pk\":"
            "{\"S\":\"a\"}},\"NewImage\":{\"pk\":{\"S\":\"a\"},\"v\":{\"N\":\"2\"}},\"OldImage\":"
            "{\"pk\":{\"S\":\"a\"},\"v\":{\"N\":\"1\"}}}\n");
  line.clear();
  c.new_image.reset();  // a delete, NEW_IMAGES view: the keys alone
  ASSERT_TRUE(AppendChangeLine(DataFormat::kDynamoDbJson, c, false, &line));
  EXPECT_EQ(line.find("Image"), std::string::npos) << line;
}

// ---------------------------------------------------------------- on a DB

class TransferDBTest : public testing::DBTest {
 protected:
  std::vector<Item> ScanAll(const std::string& table) {
    std::vector<Item> out;
    ScanRequest req;
    req.table_name = table;
    for (;;) {
      auto r = db_->Scan(req);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      for (auto& i : r->items) out.push_back(i);
      if (!r->last_evaluated_key) break;
      req.exclusive_start_key = r->last_evaluated_key;
    }
    std::sort(out.begin(), out.end(), [](const Item& a, const Item& b) {
      return a.at("pk").scalar() < b.at("pk").scalar();
    });
    return out;
  }

  StatusOr<std::string> Call(Transfers& t, std::string_view op, std::string_view body) {
    return t.Handle(op, body);
  }

  // Polls DescribeExport/DescribeImport until the status is not IN_PROGRESS.
  std::string WaitDone(Transfers& t, std::string_view op, const std::string& arn_member,
                       const std::string& arn) {
    for (int i = 0; i < 600; ++i) {
      auto r = t.Handle(op, "{\"" + arn_member + "\":\"" + arn + "\"}");
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok() || r->find("IN_PROGRESS") == std::string::npos) return r.ok() ? *r : "";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "";
  }
};

// A top-level member of a description (a string or an integer), found by
// text: this file must not include simdjson.h (the library is compiled with
// SIMDJSON_THREADS_ENABLED, which changes its classes' layout).
std::string Member(const std::string& json, std::string_view key) {
  const std::string needle = "\"" + std::string(key) + "\":";
  const size_t at = json.find(needle);
  if (at == std::string::npos) return "";
  size_t p = at + needle.size();
  if (json[p] == '"') {
    const size_t end = json.find('"', p + 1);
    return json.substr(p + 1, end - p - 1);
  }
  size_t e = p;
  while (e < json.size() && (isdigit(static_cast<unsigned char>(json[e])) || json[e] == '-')) ++e;
  return json.substr(p, e - p);
}

TEST_F(TransferDBTest, ExportThenImportRoundTripsEveryType) {
  CreateTable("src", "pk", AttrType::kS);
  for (int i = 0; i < 300; ++i) Put("src", EveryType("k" + std::to_string(1000 + i)));
  for (DataFormat format : {DataFormat::kDynamoDbJson, DataFormat::kIon}) {
    TempDir dir;
    ExportPlan plan;
    plan.table = "src";
    plan.export_dir = dir.str() + "/b/AWSDynamoDB/x";
    plan.key_prefix = "AWSDynamoDB/x";
    plan.format = format;
    Progress progress;
    auto result = RunExport(db_.get(), plan, &progress, nullptr);
    ASSERT_OK(result);
    EXPECT_EQ(result->item_count, 300);
    EXPECT_GT(result->billed_size_bytes, 300 * 50);
    auto manifest = ReadLines(plan.export_dir + "/manifest-files.json", Compression::kNone);
    ASSERT_EQ(manifest.size(), 1u);
    EXPECT_NE(manifest[0].find("\"itemCount\":300"), std::string::npos);

    ImportSource source;
    source.format = format;
    source.compression = Compression::kGzip;
    auto files = ListSourceFiles(dir.str() + "/b", "AWSDynamoDB/x/");
    ASSERT_OK(files);
    ASSERT_EQ(files->size(), 1u);  // the manifests and _started are left out
    source.files = *files;
    CreateTableRequest create;
    create.table_name = format == DataFormat::kIon ? "dst_ion" : "dst_json";
    create.attribute_definitions = {{"pk", AttrType::kS}};
    create.key_schema = {{"pk", KeyType::kHash}};
    create.billing_mode = "PAY_PER_REQUEST";
    Progress in;
    auto table = RunImport(db_.get(), create, source, &in, nullptr, nullptr, nullptr);
    ASSERT_OK(table);
    EXPECT_EQ(in.imported.load(), 300);
    EXPECT_EQ(in.errors.load(), 0);
    EXPECT_EQ(ScanAll(create.table_name), ScanAll("src"));
  }
}

TEST_F(TransferDBTest, ImportsTheDocumentedExportFixtureThroughImportTable) {
  TempDir root;
  fs::create_directories(root.str() + "/fixtures/exports");
  fs::copy(SourceDir() + "/tests/data/transfer/ddb_export", root.str() + "/fixtures/exports",
           fs::copy_options::recursive);
  Transfers t(db_.get(), root.str());
  auto r = t.Handle("ImportTable", R"({
    "S3BucketSource":{"S3Bucket":"fixtures","S3KeyPrefix":"exports/AWSDynamoDB/01693685827463-2d8752fd/data/"},
    "InputFormat":"DYNAMODB_JSON","InputCompressionType":"GZIP","ClientToken":"tok-1",
    "TableCreationParameters":{"TableName":"ProductCatalog","BillingMode":"PAY_PER_REQUEST",
      "AttributeDefinitions":[{"AttributeName":"Id","AttributeType":"N"},
                              {"AttributeName":"ProductCategory","AttributeType":"S"}],
      "KeySchema":[{"AttributeName":"Id","KeyType":"HASH"}],
      "GlobalSecondaryIndexes":[{"IndexName":"byCategory","KeySchema":[{"AttributeName":"ProductCategory","KeyType":"HASH"}],
                                 "Projection":{"ProjectionType":"ALL"}}]}})");
  ASSERT_OK(r);
  const std::string arn = Member(*r, "ImportArn");
  EXPECT_NE(arn.find(":table/ProductCatalog/import/"), std::string::npos) << *r;
  const std::string done = WaitDone(t, "DescribeImport", "ImportArn", arn);
  EXPECT_EQ(Member(done, "ImportStatus"), "COMPLETED") << done;
  EXPECT_EQ(Member(done, "ImportedItemCount"), "3");
  EXPECT_EQ(Member(done, "ErrorCount"), "0");
  GetItemRequest g;
  g.table_name = "ProductCatalog";
  g.key = MakeItem({{"Id", AttributeValue::N("205")}});
  auto item = db_->GetItem(g);
  ASSERT_OK(item);
  ASSERT_TRUE(item->item);
  EXPECT_EQ(item->item->at("Bins"), AttributeValue::BS({"\x01", "\x02"}));
  QueryRequest q;
  q.table_name = "ProductCatalog";
  q.index_name = "byCategory";
  q.key_condition_expression = "ProductCategory = :c";
  q.expression_attribute_values = {{":c", AttributeValue::S("Book")}};
  auto books = db_->Query(q);
  ASSERT_OK(books);
  EXPECT_EQ(books->items.size(), 2u);

  // The same ClientToken: the same import; other parameters: a conflict.
  auto again = t.Handle("ImportTable", R"({"S3BucketSource":{"S3Bucket":"fixtures"},
    "InputFormat":"ION","ClientToken":"tok-1",
    "TableCreationParameters":{"TableName":"Other","BillingMode":"PAY_PER_REQUEST",
      "AttributeDefinitions":[{"AttributeName":"Id","AttributeType":"N"}],
      "KeySchema":[{"AttributeName":"Id","KeyType":"HASH"}]}})");
  EXPECT_ERROR(again, ErrorType::kImportConflict, "ClientToken");
  // A taken name.
  auto taken = t.Handle("ImportTable", R"({"S3BucketSource":{"S3Bucket":"fixtures"},
    "InputFormat":"DYNAMODB_JSON",
    "TableCreationParameters":{"TableName":"ProductCatalog","BillingMode":"PAY_PER_REQUEST",
      "AttributeDefinitions":[{"AttributeName":"Id","AttributeType":"N"}],
      "KeySchema":[{"AttributeName":"Id","KeyType":"HASH"}]}})");
  EXPECT_ERROR(taken, ErrorType::kResourceInUse, "Table already exists: ProductCatalog");
  auto list = t.Handle("ListImports", "{}");
  ASSERT_OK(list);
  EXPECT_NE(list->find(arn), std::string::npos);
}

TEST_F(TransferDBTest, BadRecordsAreCountedAndTheImportCompletes) {
  TempDir root;
  WriteFile(root.str() + "/bk/in/part1.csv", "pk,v\na,1\nb,2\n");
  WriteFile(root.str() + "/bk/in/part2.csv", "pk,v\nc,3,extra\n,4\nd,\"5\n");
  Transfers t(db_.get(), root.str());
  auto r = t.Handle("ImportTable", R"({"S3BucketSource":{"S3Bucket":"bk","S3KeyPrefix":"in/"},
    "InputFormat":"CSV","TableCreationParameters":{"TableName":"csvtab1","BillingMode":"PAY_PER_REQUEST",
      "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
      "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}})");
  ASSERT_OK(r);
  const std::string done = WaitDone(t, "DescribeImport", "ImportArn", Member(*r, "ImportArn"));
  EXPECT_EQ(Member(done, "ImportStatus"), "COMPLETED") << done;
  EXPECT_EQ(Member(done, "ImportedItemCount"), "2");
  EXPECT_EQ(Member(done, "ErrorCount"), "3") << done;  // extra field, no key, open quote
  EXPECT_EQ(Member(done, "ProcessedItemCount"), "5");
  bool logged = false;
  for (auto& e : fs::recursive_directory_iterator(root.str() + "/.dynarock")) {
    if (e.path().extension() == ".log") logged = fs::file_size(e.path()) > 0;
  }
  EXPECT_TRUE(logged);
}

TEST_F(TransferDBTest, RequestErrors) {
  CreateTable("tab1", "pk", AttrType::kS);
  Transfers none(db_.get(), "");
  EXPECT_ERROR(none.Handle("ListExports", "{}").status().ok() ? none.Handle("ExportTableToPointInTime",
               R"({"TableArn":"arn:aws:dynamodb:us-east-1:000000000000:table/tab1","S3Bucket":"bb"})")
                                                              : none.Handle("ListExports", "{}"),
               ErrorType::kValidation, "--s3-root");
  TempDir root;
  Transfers t(db_.get(), root.str());
  const std::string arn = "arn:aws:dynamodb:us-east-1:000000000000:table/tab1";
  EXPECT_ERROR(t.Handle("ExportTableToPointInTime", R"({"TableArn":")" + arn + R"(","S3Bucket":"-bad-"})"),
               ErrorType::kValidation, "regular expression pattern");
  EXPECT_ERROR(t.Handle("ExportTableToPointInTime", R"({"TableArn":")" + arn +
                                                        R"(","S3Bucket":"bb","ExportFormat":"CSV"})"),
               ErrorType::kValidation, "enum value set");
  EXPECT_ERROR(t.Handle("ExportTableToPointInTime", R"({"TableArn":")" + arn + R"(","S3Bucket":"bb"})"),
               ErrorType::kPointInTimeRecoveryUnavailable, "tab1");
  EXPECT_ERROR(t.Handle("ExportTableToPointInTime",
                        R"({"TableArn":"arn:aws:dynamodb:us-east-1:000000000000:table/nope","S3Bucket":"bb"})"),
               ErrorType::kTableNotFound, "nope");
  EXPECT_ERROR(t.Handle("ExportTableToPointInTime", R"({"TableArn":")" + arn +
                                                        R"(","S3Bucket":"bb","S3Prefix":"a/../../x"})"),
               ErrorType::kValidation, "..");
  EXPECT_ERROR(t.Handle("DescribeExport", R"({"ExportArn":")" + arn + R"(/export/01234567890123-abcdef01"})"),
               ErrorType::kExportNotFound, "Export not found");
  EXPECT_ERROR(t.Handle("DescribeImport", R"({"ImportArn":")" + arn + R"(/import/01234567890123-abcdef01"})"),
               ErrorType::kImportNotFound, "Import not found");
  EXPECT_ERROR(t.Handle("ListExports", R"({"MaxResults":26})"), ErrorType::kValidation, "25");
  EXPECT_ERROR(t.Handle("ImportTable", R"({"S3BucketSource":{"S3Bucket":"bb"},"InputFormat":"XML",
    "TableCreationParameters":{"TableName":"xtab1"}})"), ErrorType::kValidation, "enum value set");
  EXPECT_ERROR(t.Handle("ImportTable", R"({"S3BucketSource":{"S3Bucket":"bb"},"InputFormat":"CSV",
    "InputFormatOptions":{"Csv":{"Delimiter":"x"}},"TableCreationParameters":{"TableName":"xtab1"}})"),
               ErrorType::kValidation, "[,;:|\\t ]");
  EXPECT_ERROR(t.Handle("ImportTable", "{\"S3BucketSource\":{\"S3Bucket\":\"bb\"},\"InputFormat\":\"CSV\"}"),
               ErrorType::kValidation, "tableCreationParameters");
  // A missing bucket folder: the import fails and no table is left.
  auto r = t.Handle("ImportTable", R"({"S3BucketSource":{"S3Bucket":"nobucket"},"InputFormat":"CSV",
    "TableCreationParameters":{"TableName":"xtab2","BillingMode":"PAY_PER_REQUEST",
      "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
      "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}})");
  ASSERT_OK(r);
  const std::string done = WaitDone(t, "DescribeImport", "ImportArn", Member(*r, "ImportArn"));
  EXPECT_EQ(Member(done, "ImportStatus"), "FAILED");
  EXPECT_EQ(Member(done, "FailureCode"), "S3NoSuchBucket");
  DescribeTableRequest d;
  d.table_name = "xtab2";
  EXPECT_FALSE(db_->DescribeTable(d).ok());
}

TEST_F(TransferDBTest, JobsCutShortByARestartAreFailed) {
  TempDir root;
  ASSERT_TRUE(db_->SaveCheckpoint("transfer/exports", "01234567890123-abcdef01\n").ok());
  ASSERT_TRUE(db_->SaveCheckpoint(
      "transfer/export/01234567890123-abcdef01",
      R"({"ExportArn":"arn:aws:dynamodb:us-east-1:000000000000:table/t/export/01234567890123-abcdef01",
          "ExportStatus":"IN_PROGRESS","ExportType":"FULL_EXPORT","ExportFormat":"DYNAMODB_JSON",
          "S3Bucket":"b","StartTime":1,"TableArn":"arn:aws:dynamodb:us-east-1:000000000000:table/t",
          "_Id":"01234567890123-abcdef01"})").ok());
  Transfers t(db_.get(), root.str());
  auto r = t.Handle("DescribeExport",
                    R"({"ExportArn":"arn:aws:dynamodb:us-east-1:000000000000:table/t/export/01234567890123-abcdef01"})");
  ASSERT_OK(r);
  EXPECT_EQ(Member(*r, "ExportStatus"), "FAILED") << *r;
  EXPECT_NE(Member(*r, "FailureMessage").find("interrupted"), std::string::npos);
}

TEST_F(TransferDBTest, ExportTableToPointInTimeWritesDynamoDbsLayout) {
  CreateTable("ptab", "pk", AttrType::kS);
  for (int i = 0; i < 20; ++i) Put("ptab", EveryType("p" + std::to_string(i)));
  UpdateContinuousBackupsRequest u;
  u.table_name = "ptab";
  u.point_in_time_recovery_enabled = true;
  ASSERT_OK(db_->UpdateContinuousBackups(u));
  TempDir root;
  fs::create_directories(root.str() + "/bk");
  Transfers t(db_.get(), root.str());
  DescribeTableRequest d;
  d.table_name = "ptab";
  auto desc = db_->DescribeTable(d);
  ASSERT_OK(desc);
  const std::string body = R"({"TableArn":")" + desc->table.table_arn +
                            R"(","S3Bucket":"bk","S3Prefix":"exp","ExportFormat":"ION","ClientToken":"c1"})";
  auto r = t.Handle("ExportTableToPointInTime", body);
  ASSERT_OK(r);
  EXPECT_EQ(Member(*r, "ExportStatus"), "IN_PROGRESS");
  const std::string arn = Member(*r, "ExportArn");
  EXPECT_EQ(arn.find(desc->table.table_arn + "/export/"), 0u) << arn;
  const std::string done = WaitDone(t, "DescribeExport", "ExportArn", arn);
  ASSERT_EQ(Member(done, "ExportStatus"), "COMPLETED") << done;
  EXPECT_EQ(Member(done, "ItemCount"), "20");
  const std::string manifest = Member(done, "ExportManifest");
  EXPECT_TRUE(fs::exists(root.str() + "/bk/" + manifest)) << manifest;
  const std::string dir = root.str() + "/bk/" + manifest.substr(0, manifest.rfind('/'));
  EXPECT_TRUE(fs::exists(dir + "/_started"));
  EXPECT_TRUE(fs::exists(dir + "/manifest-files.json"));
  auto again = t.Handle("ExportTableToPointInTime", body);  // same token, same export
  ASSERT_OK(again);
  EXPECT_EQ(Member(*again, "ExportArn"), arn);
  std::string other = body;
  other.replace(other.find("\"ION\""), 5, "\"DYNAMODB_JSON\"");
  EXPECT_ERROR(t.Handle("ExportTableToPointInTime", other), ErrorType::kExportConflict, "c1");
  auto list = t.Handle("ListExports", R"({"TableArn":")" + desc->table.table_arn + "\"}");
  ASSERT_OK(list);
  EXPECT_NE(list->find(arn), std::string::npos);
}

}  // namespace
}  // namespace dynarock::transfer
