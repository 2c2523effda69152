// File: engine/transfer/item_formats.h
//
// One item (or one change) per line, in the formats of DynamoDB's exports and
// imports:
//
//   DYNAMODB_JSON  full export:  {"Item":{"pk":{"S":"a"},...}}
//                  incremental:  {"Metadata":{"WriteTimestampMicros":{"N":"..."}},
//                                 "Keys":{...},"NewImage":{...},"OldImage":{...}}
//   ION            $ion_1_0 {Item:{pk:"a",...}}  (engine/transfer/ion.h), and the
//                  incremental lines with the same members
//   CSV            a header line, then one item a line; attributes named in the
//                  AttributeDefinitions take their type (N, B as base64), all
//                  others are S; an empty field is no attribute
//
// Incremental lines: an insert has NewImage (and no OldImage), a delete has
// OldImage (and no NewImage), an update both; with the NEW_IMAGES view the
// OldImage is left out. Internal to engine/transfer.

#ifndef DYNAROCK_TRANSFER_ITEM_FORMATS_H_
#define DYNAROCK_TRANSFER_ITEM_FORMATS_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"
#include "dynarock/backups.h"
#include "dynarock/status.h"

namespace dynarock::transfer {

enum class DataFormat { kDynamoDbJson, kIon, kCsv };

std::string_view DataFormatName(DataFormat f);

// Appends one full-export line (with its "\n") for an item in the item
// codec's encoding. False when the bytes are malformed.
bool AppendItemLine(DataFormat format, std::string_view encoded_item, std::string* out);
// Appends one incremental-export line; `old_images`: NEW_AND_OLD_IMAGES.
bool AppendChangeLine(DataFormat format, const TableChange& change, bool old_images,
                      std::string* out);

// Splits one CSV record. `text` may hold several physical lines (a quoted
// field with newlines); *incomplete is set when a quote is still open.
// Quotes follow RFC 4180 ("" inside a quoted field is one '"').
Status SplitCsvRecord(std::string_view text, char delimiter, std::vector<std::string>* fields,
                      bool* incomplete);

// Turns lines into items. One parser per thread.
class ItemParser {
 public:
  // `types`: attribute name -> "S" | "N" | "B" (the AttributeDefinitions),
  // for CSV. `header`: CSV's HeaderList (empty: each file's first line).
  ItemParser(DataFormat format, char csv_delimiter, std::vector<std::string> header,
             std::map<std::string, std::string, std::less<>> types);
  ~ItemParser();

  // Starts a new file (CSV: its first line is a header again).
  void StartFile();
  // Feeds one line. Returns OK with *has_item when an item is complete, OK
  // without one for blank lines, a CSV header or an unfinished record (ION or
  // CSV continued on the next line), or a ValidationException for a bad
  // record (the record is then dropped).
  Status Line(std::string_view line, Item* item, bool* has_item);
  // Called at the end of a file: an unfinished record is an error.
  Status EndFile();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dynarock::transfer

#endif  // DYNAROCK_TRANSFER_ITEM_FORMATS_H_
