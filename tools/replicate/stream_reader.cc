#include "tools/replicate/stream_reader.h"

#include <algorithm>

namespace dynarock {

bool SequenceNumberLess(std::string_view a, std::string_view b) {
  auto strip = [](std::string_view s) {
    while (s.size() > 1 && s.front() == '0') s.remove_prefix(1);
    return s;
  };
  a = strip(a);
  b = strip(b);
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

StatusOr<int64_t> StreamReader::Poll(const Consumer& consume) {
  // The table's streams, oldest first.
  std::vector<StreamDescription> streams;
  ListStreamsRequest list;
  list.table_name = table_;
  for (;;) {
    DR_ASSIGN_OR_RETURN(ListStreamsResponse page, db_->ListStreams(list));
    for (const StreamSummary& s : page.streams) {
      DescribeStreamRequest describe;
      describe.stream_arn = s.stream_arn;
      StreamDescription full;
      for (;;) {
        auto d = db_->DescribeStream(describe);
        if (!d.ok() && d.status().type() == ErrorType::kResourceNotFound) break;  // just trimmed
        if (!d.ok()) return d.status();
        if (full.stream_arn.empty()) full = d->stream_description;
        else
          full.shards.insert(full.shards.end(), d->stream_description.shards.begin(),
                             d->stream_description.shards.end());
        if (!d->stream_description.last_evaluated_shard_id) break;
        describe.exclusive_start_shard_id = d->stream_description.last_evaluated_shard_id;
      }
      if (!full.stream_arn.empty()) streams.push_back(std::move(full));
    }
    if (!page.last_evaluated_stream_arn) break;
    list.exclusive_start_stream_arn = page.last_evaluated_stream_arn;
  }
  std::stable_sort(streams.begin(), streams.end(), [](const auto& a, const auto& b) {
    return a.creation_request_date_time < b.creation_request_date_time;
  });

  int64_t handed = 0;
  for (const StreamDescription& stream : streams) {
    for (const Shard& shard : stream.shards) {
      const auto& range = shard.sequence_number_range;
      if (!position_.empty() && range.ending_sequence_number &&
          !SequenceNumberLess(position_, *range.ending_sequence_number)) {
        continue;  // read to its end already
      }
      GetShardIteratorRequest it;
      it.stream_arn = stream.stream_arn;
      it.shard_id = shard.shard_id;
      const bool inside = !position_.empty() && range.starting_sequence_number &&
                          !SequenceNumberLess(position_, *range.starting_sequence_number);
      if (inside) {
        it.shard_iterator_type = ShardIteratorType::kAfterSequenceNumber;
        it.sequence_number = position_;
      } else if (!position_.empty() && range.starting_sequence_number) {
        // A shard not started yet: from its first number, so that a start
        // already trimmed away is a gap (TRIM_HORIZON would pass over it).
        it.shard_iterator_type = ShardIteratorType::kAtSequenceNumber;
        it.sequence_number = range.starting_sequence_number;
      }
      auto iterator = db_->GetShardIterator(it);
      if (!iterator.ok() && iterator.status().type() == ErrorType::kTrimmedDataAccess) {
        gap_ = true;
        it.shard_iterator_type = ShardIteratorType::kTrimHorizon;
        it.sequence_number.reset();
        iterator = db_->GetShardIterator(it);
      }
      if (!iterator.ok() && iterator.status().type() == ErrorType::kResourceNotFound) continue;
      if (!iterator.ok()) return iterator.status();
      std::optional<std::string> next = iterator->shard_iterator;
      while (next) {
        GetRecordsRequest get;
        get.shard_iterator = *next;
        auto page = db_->GetRecords(get);
        if (!page.ok() && page.status().type() == ErrorType::kTrimmedDataAccess) {
          gap_ = true;
          break;
        }
        if (!page.ok()) return page.status();
        std::vector<StreamRecord> fresh;
        for (auto& r : page->records) {
          if (position_.empty() || SequenceNumberLess(position_, r.sequence_number)) {
            fresh.push_back(std::move(r));
          }
        }
        if (!fresh.empty()) {
          DR_RETURN_IF_ERROR(consume(fresh));
          position_ = fresh.back().sequence_number;
          handed += static_cast<int64_t>(fresh.size());
        }
        // An empty page: caught up (an open shard), or a closed shard whose
        // last numbers are still being committed; the next poll goes on.
        if (page->records.empty()) break;
        next = page->next_shard_iterator;
      }
    }
  }
  return handed;
}

}  // namespace dynarock
