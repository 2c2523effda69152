// File: tools/replicate/stream_reader.h
//
// Reads a table's change records through the DynamoDB Streams API of a DB, in
// order, from a position on: every stream of the table (oldest first, so a
// stream disabled and enabled again is followed), every shard by lineage.
// `replicate` ships what it reads; `streams tail` prints it.
//
//   StreamReader reader(db, "notes");
//   reader.set_position(saved);               // "" = from the oldest kept
//   auto n = reader.Poll([&](const std::vector<StreamRecord>& page) { ...; return Status(); });

#ifndef DYNAROCK_TOOLS_REPLICATE_STREAM_READER_H_
#define DYNAROCK_TOOLS_REPLICATE_STREAM_READER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/db.h"

namespace dynarock {

// a < b for DynamoDB sequence numbers (decimal strings of any length).
bool SequenceNumberLess(std::string_view a, std::string_view b);

class StreamReader {
 public:
  StreamReader(DB* db, std::string table) : db_(db), table_(std::move(table)) {}

  // The last sequence number handed out; records at or before it are skipped.
  void set_position(std::string position) { position_ = std::move(position); }
  const std::string& position() const { return position_; }
  // Records trimmed before they could be read (a consumer that fell behind
  // the retention), counted as a gap.
  bool gap() const { return gap_; }

  // Hands every record written since the position to `consume`, a page at a
  // time; the position advances past a page once `consume` returns OK (an
  // error stops the poll and is returned). Returns how many it handed out.
  using Consumer = std::function<Status(const std::vector<StreamRecord>& page)>;
  StatusOr<int64_t> Poll(const Consumer& consume);

 private:
  DB* db_;
  std::string table_;
  std::string position_;
  bool gap_ = false;
};

}  // namespace dynarock

#endif  // DYNAROCK_TOOLS_REPLICATE_STREAM_READER_H_
