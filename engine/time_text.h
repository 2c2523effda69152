// File: engine/time_text.h
//
// Times as DynamoDB and AWS write them in text: ISO-8601 UTC with
// milliseconds ("2026-11-27T09:00:00.123Z"), for export and import jobs, the
// request log and the document API's time points.

#ifndef DYNAROCK_ENGINE_TIME_TEXT_H_
#define DYNAROCK_ENGINE_TIME_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dynarock {

// Milliseconds since the epoch (before it too) as "YYYY-MM-DDTHH:MM:SS.mmmZ".
std::string Iso8601Millis(int64_t epoch_ms);

// An id made of a time and chance, as DynamoDB's backup, export and import
// ids are: the milliseconds since the epoch in 14 digits, '-', 8 random hex
// digits ("01732790000123-1f2e3d4c").
std::string TimestampedId(int64_t epoch_ms);

// "YYYY-MM-DDTHH:MM:SS[.fraction][Z|+00:00]" (UTC) as milliseconds since the
// epoch (a fraction past milliseconds is cut), or nullopt when it is not that.
std::optional<int64_t> ParseIso8601Millis(std::string_view text);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_TIME_TEXT_H_
