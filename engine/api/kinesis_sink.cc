// File: engine/api/kinesis_sink.cc

#include "engine/api/kinesis_sink.h"


#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"

namespace dynarock::api {
namespace {

// A version-4 UUID ("8-4-4-4-12", as DynamoDB's Kinesis records carry) from
// a record's 32 hex digits (a hash, stable for the record): the version
// nibble is 4, the variant's two bits 10.
std::string Uuid(std::string hex) {
  if (hex.size() != 32) return hex;
  hex[12] = '4';
  const char c = hex[16];
  const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
  hex[16] = "89ab"[v & 3];
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

}  // namespace

KinesisSink::KinesisSink(DB* db, std::string dir) : db_(db), dir_(std::move(dir)) {
  thread_ = std::thread([this] { Run(); });
}

KinesisSink::~KinesisSink() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::string KinesisSink::FileName(std::string_view arn) {
  const size_t at = arn.rfind("stream/");
  std::string name(at == std::string_view::npos ? arn : arn.substr(at + 7));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '_';
  }
  if (name.empty() || name[0] == '.') name = "_" + name;
  return name + ".jsonl";
}

std::string KinesisSink::RecordJson(const StreamRecord& r, const std::string& table,
                                    bool microseconds) {
  JsonWriter w;
  w.BeginObject();
  w.Member("awsRegion", r.aws_region);
  w.Member("eventID", Uuid(r.event_id));
  w.Member("eventName", r.event_name);
  w.Key("userIdentity");
  if (r.by_time_to_live) {
    w.BeginObject();
    w.Member("type", "Service");
    w.Member("principalId", "dynamodb.amazonaws.com");
    w.EndObject();
  } else {
    w.Null();
  }
  w.Member("recordFormat", "application/json");
  w.Member("tableName", table);
  w.Key("dynamodb");
  w.BeginObject();
  const int64_t ms = std::llround(r.approximate_creation_date_time * 1000);
  w.MemberInt("ApproximateCreationDateTime", microseconds ? ms * 1000 : ms);
  if (microseconds) w.Member("ApproximateCreationDateTimePrecision", "MICROSECOND");
  w.Key("Keys");
  WriteItem(&w, r.keys);
  if (r.new_image) {
    w.Key("NewImage");
    WriteItem(&w, *r.new_image);
  }
  if (r.old_image) {
    w.Key("OldImage");
    WriteItem(&w, *r.old_image);
  }
  w.MemberInt("SizeBytes", r.size_bytes);
  w.EndObject();
  w.Member("eventSource", "aws:dynamodb");
  w.EndObject();
  return w.Release();
}

Status KinesisSink::Write(const DB::KinesisRecords& batch) {
  std::string lines;
  for (const StreamRecord& r : batch.records) {
    lines += RecordJson(r, batch.table_name, batch.microseconds);
    lines += '\n';
  }
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  const std::string path = dir_ + "/" + FileName(batch.stream_arn);
  const bool existed = std::filesystem::exists(path, ec);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return InternalError("Kinesis sink " + path + ": " + std::strerror(errno));
  // One append to a file at a time: every namespace has a sink, tables of
  // several may stream to one Kinesis stream (or to streams of one name),
  // and processes may share a folder; lines must neither interleave nor be
  // taken for a line cut short. flock(2) holds each open of the file apart,
  // in this process and others, until the close.
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      const int e = errno;
      ::close(fd);
      return InternalError("Kinesis sink " + path + ": lock: " + std::strerror(e));
    }
  }
  auto fail = [&](const std::string& what, off_t keep) {
    const int e = errno;
    // No partial line stays: the batch is offered again, whole (and should
    // the truncation fail too, the next batch's tail check trims it).
    if (keep >= 0) (void)!::ftruncate(fd, keep);
    ::close(fd);
    return InternalError("Kinesis sink " + path + ": " + what + ": " + std::strerror(e));
  };
  // Appends after the last whole line: a line cut short by a crash (the
  // batch was not acknowledged, and comes again) is dropped first.
  off_t end = ::lseek(fd, 0, SEEK_END);
  if (end < 0) return fail("seek", -1);
  off_t keep = end;
  char c = '\n';
  while (keep > 0 && ::pread(fd, &c, 1, keep - 1) == 1 && c != '\n') --keep;
  if (keep != end && ::ftruncate(fd, keep) != 0) return fail("truncate", -1);
  size_t written = 0;
  while (written < lines.size()) {
    const ssize_t n = ::pwrite(fd, lines.data() + written, lines.size() - written,
                               keep + static_cast<off_t>(written));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("write", keep);
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("fsync", keep);
  ::close(fd);
  if (!existed) {
    // A new file's name is durable before its records count as delivered.
    const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool synced = dfd >= 0 && ::fsync(dfd) == 0;
    if (dfd >= 0) ::close(dfd);
    if (!synced) return InternalError("Kinesis sink " + dir_ + ": the folder could not be synced");
  }
  return Status();
}

void KinesisSink::Run() {
  bool reported = false;
  for (;;) {
    int64_t delivered = 0;
    const Status s = db_->DeliverKinesisRecords(
        [this](const DB::KinesisRecords& batch) { return Write(batch); }, &delivered);
    if (!s.ok() && !reported) {
      std::fprintf(stderr, "dynarock: Kinesis delivery to %s stopped: %s (retrying)\n",
                   dir_.c_str(), s.ToString().c_str());
    }
    reported = !s.ok();
    std::unique_lock<std::mutex> lock(mu_);
    if (stop_) return;
    // More at once when there was more; else a look every 50 ms.
    if (delivered > 0 && s.ok()) continue;
    cv_.wait_for(lock, std::chrono::milliseconds(s.ok() ? 50 : 1000), [this] { return stop_; });
    if (stop_) return;
  }
}

}  // namespace dynarock::api
