// File: engine/transfer/runner.cc

#include "engine/transfer/runner.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

#include "dynarock/item_view.h"
#include "engine/api/base64.h"
#include "engine/api/json_writer.h"
#include "engine/item_validation.h"

namespace dynarock::transfer {
namespace fs = std::filesystem;

std::string RandomToken(size_t n) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 rng(std::random_device{}());
  std::string s;
  s.reserve(n);
  for (size_t i = 0; i < n; ++i) s.push_back(kChars[rng() % 36]);
  return s;
}

namespace {

Status FsError(const std::string& what, const std::error_code& ec) {
  return Status(ErrorType::kInternalServerError, what + ": " + ec.message());
}

std::string Md5Hex(std::string_view data) {
  Md5 h;
  h.Update(data);
  const auto d = h.Final();
  return HexString(d.data(), d.size());
}

// The data files of one export, rolled over every kItemsPerFileMax items.
class DataFiles {
 public:
  DataFiles(const ExportPlan& plan, ExportResult* result)
      : plan_(plan), result_(result) {}

  Status Add(std::string_view line) {
    if (!writer_) DR_RETURN_IF_ERROR(Open());
    buffer_.append(line);
    ++items_in_file_;
    if (buffer_.size() >= (1 << 20)) DR_RETURN_IF_ERROR(Flush());
    if (items_in_file_ >= kItemsPerFileMax) DR_RETURN_IF_ERROR(CloseFile());
    return Status();
  }

  // Closes the last file (making one, empty, when there was none) and writes
  // manifest-files.json.
  Status Finish() {
    if (!writer_ && manifest_.empty()) DR_RETURN_IF_ERROR(Open());
    if (writer_) DR_RETURN_IF_ERROR(CloseFile());
    DR_RETURN_IF_ERROR(WriteFileAtomically(plan_.export_dir + "/manifest-files.json", manifest_));
    return WriteFileAtomically(plan_.export_dir + "/manifest-files.checksum", Md5Hex(manifest_));
  }

 private:
  Status Open() {
    const std::string name = RandomToken(26) + (plan_.format == DataFormat::kIon ? ".ion.gz"
                                                                                  : ".json.gz");
    key_ = plan_.key_prefix + "/data/" + name;
    DR_ASSIGN_OR_RETURN(writer_, GzipFileWriter::Create(plan_.export_dir + "/data/" + name));
    items_in_file_ = 0;
    return Status();
  }
  Status Flush() {
    Status s = writer_->Append(buffer_);
    buffer_.clear();
    return s;
  }
  Status CloseFile() {
    DR_RETURN_IF_ERROR(Flush());
    DR_RETURN_IF_ERROR(writer_->Close());
    const auto& md5 = writer_->md5();
    api::JsonWriter w;
    w.BeginObject();
    w.MemberInt("itemCount", items_in_file_);
    w.Member("md5Checksum",
             api::Base64Encode(std::string_view(reinterpret_cast<const char*>(md5.data()), 16)));
    w.Member("etag", HexString(md5.data(), md5.size()));
    w.Member("dataFileS3Key", key_);
    w.EndObject();
    manifest_ += w.str();
    manifest_ += '\n';
    result_->data_keys.push_back(key_);
    writer_.reset();
    return Status();
  }

  const ExportPlan& plan_;
  ExportResult* result_;
  std::unique_ptr<GzipFileWriter> writer_;
  std::string key_;
  std::string buffer_;
  int64_t items_in_file_ = 0;
  std::string manifest_;
};

Status Stopped() {
  return Status(ErrorType::kInternalServerError, "stopped: the server is shutting down");
}

}  // namespace

StatusOr<ExportResult> RunExport(DB* db, const ExportPlan& plan, Progress* progress,
                                 const std::atomic<bool>* stop) {
  std::error_code ec;
  fs::create_directories(plan.export_dir + "/data", ec);
  if (ec) return FsError("cannot create " + plan.export_dir, ec);
  DR_RETURN_IF_ERROR(WriteFileAtomically(plan.export_dir + "/_started", ""));
  ExportResult result;
  DataFiles files(plan, &result);
  std::string line;
  Status s;
  if (!plan.incremental) {
    s = db->ReadTableAt(plan.table, plan.export_time, [&](std::string_view encoded) -> Status {
      if (stop != nullptr && stop->load(std::memory_order_relaxed)) return Stopped();
      line.clear();
      if (!AppendItemLine(plan.format, encoded, &line)) {
        return Status(ErrorType::kInternalServerError, "a stored item is malformed");
      }
      const auto size = static_cast<int64_t>(ItemView(encoded).Size());
      ++result.item_count;
      result.billed_size_bytes += size;
      progress->items.fetch_add(1, std::memory_order_relaxed);
      progress->bytes.fetch_add(size, std::memory_order_relaxed);
      return files.Add(line);
    });
  } else {
    s = db->ReadTableChanges(plan.table, plan.from_time, plan.to_time,
                             [&](const TableChange& change) -> Status {
      if (stop != nullptr && stop->load(std::memory_order_relaxed)) return Stopped();
      line.clear();
      if (!AppendChangeLine(plan.format, change, plan.old_images, &line)) {
        return Status(ErrorType::kInternalServerError, "a stored item is malformed");
      }
      int64_t size = static_cast<int64_t>(ItemView(change.keys).Size());
      if (change.new_image) size = static_cast<int64_t>(ItemView(*change.new_image).Size());
      ++result.item_count;
      result.billed_size_bytes += size;
      progress->items.fetch_add(1, std::memory_order_relaxed);
      progress->bytes.fetch_add(size, std::memory_order_relaxed);
      return files.Add(line);
    });
  }
  DR_RETURN_IF_ERROR(s);
  DR_RETURN_IF_ERROR(files.Finish());
  return result;
}

Status WriteSummary(const std::string& export_dir, const std::string& summary_json) {
  DR_RETURN_IF_ERROR(WriteFileAtomically(export_dir + "/manifest-summary.json", summary_json));
  return WriteFileAtomically(export_dir + "/manifest-summary.checksum", Md5Hex(summary_json));
}

// ---------------------------------------------------------------- import

StatusOr<TableDescription> RunImport(DB* db, const CreateTableRequest& create,
                                     const ImportSource& source, Progress* progress,
                                     const std::atomic<bool>* stop, const ErrorSink& errors,
                                     const std::function<void(const TableDescription&)>& on_created,
                                     const std::function<Status(TableLoader&)>& on_filled) {
  int64_t total = 0;
  for (const std::string& f : source.files) {
    std::error_code ec;
    const auto size = fs::file_size(f, ec);
    if (!ec) total += static_cast<int64_t>(size);
  }
  progress->total_bytes = total;
  std::map<std::string, std::string, std::less<>> types;
  for (const AttributeDefinition& d : create.attribute_definitions) {
    types[d.attribute_name] = std::string(AttrTypeName(d.attribute_type));
  }
  ItemParser parser(source.format, source.csv_delimiter, source.csv_header, std::move(types));

  return db->LoadTable(create, [&](TableLoader& loader) -> Status {
    if (on_created) {
      DescribeTableRequest d;
      d.table_name = create.table_name;
      auto described = db->DescribeTable(d);
      if (described.ok()) on_created(described->table);
    }
    // Two stages on two threads: this one reads and parses, the loader adds
    // (validation, keys, index entries, table files) as the batches come.
    struct Record {
      Item item;
      Status error;  // a bad record: counted, reported, skipped
      const std::string* file = nullptr;
      int64_t line = 0;
    };
    using Batch = std::vector<Record>;
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Batch> queue;  // at most kQueued batches
    constexpr size_t kQueued = 8, kBatch = 1024;
    bool produced = false, consumer_failed = false;
    Status fatal;
    std::thread consumer([&] {
      for (;;) {
        Batch batch;
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return !queue.empty() || produced; });
          if (queue.empty()) return;
          batch = std::move(queue.front());
          queue.pop_front();
        }
        cv.notify_all();
        for (Record& r : batch) {
          progress->items.fetch_add(1, std::memory_order_relaxed);
          Status st = r.error.ok() ? loader.AddPrepared(std::move(r.item)) : r.error;
          if (st.ok()) {
            progress->imported.fetch_add(1, std::memory_order_relaxed);
            continue;
          }
          if (st.type() != ErrorType::kValidation) {
            std::lock_guard<std::mutex> lock(mu);
            fatal = st;
            consumer_failed = true;
            queue.clear();
            cv.notify_all();
            return;
          }
          progress->errors.fetch_add(1, std::memory_order_relaxed);
          if (errors) errors(*r.file, r.line, std::string(st.message()));
        }
      }
    });
    Batch batch;
    auto push = [&]() -> bool {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return queue.size() < kQueued || consumer_failed; });
      if (consumer_failed) return false;
      queue.push_back(std::move(batch));
      batch = Batch();
      batch.reserve(kBatch);
      cv.notify_all();
      return true;
    };
    Status produce = [&]() -> Status {
      int64_t done_bytes = 0;
      for (const std::string& file : source.files) {
        DR_ASSIGN_OR_RETURN(std::unique_ptr<LineReader> reader,
                            LineReader::Open(file, source.compression));
        parser.StartFile();
        std::string_view line;
        int64_t n = 0;
        Item item;
        while (reader->Next(&line)) {
          if ((++n & 1023) == 0) {
            if (stop != nullptr && stop->load(std::memory_order_relaxed)) return Stopped();
            progress->bytes.store(done_bytes + reader->file_bytes_read(), std::memory_order_relaxed);
          }
          bool has_item = false;
          Status st = parser.Line(line, &item, &has_item);
          if (st.ok() && !has_item) continue;
          if (st.ok()) st = TableLoader::Prepare(&item);
          batch.push_back(Record{st.ok() ? std::move(item) : Item(), st, &file,
                                 reader->line_number()});
          item = Item();
          if (batch.size() >= kBatch && !push()) return Status();
        }
        if (!reader->status().ok()) {
          return Status(ErrorType::kValidation,
                        file + ": " + std::string(reader->status().message()));
        }
        Status end = parser.EndFile();
        if (!end.ok()) batch.push_back(Record{Item(), end, &file, reader->line_number()});
        done_bytes += reader->file_bytes_read();
        progress->bytes.store(done_bytes, std::memory_order_relaxed);
      }
      if (!batch.empty()) push();
      return Status();
    }();
    {
      std::lock_guard<std::mutex> lock(mu);
      produced = true;
      if (!produce.ok()) queue.clear();  // nothing more is added
    }
    cv.notify_all();
    consumer.join();
    if (!produce.ok()) return produce;
    if (!fatal.ok()) return fatal;
    return on_filled ? on_filled(loader) : Status();
  });
}

StatusOr<std::vector<std::string>> ListSourceFiles(const std::string& bucket_dir,
                                                   const std::string& key_prefix) {
  std::vector<std::string> out;
  const size_t slash = key_prefix.rfind('/');
  const std::string start =
      slash == std::string::npos ? bucket_dir : bucket_dir + "/" + key_prefix.substr(0, slash);
  std::error_code ec;
  if (!fs::is_directory(start, ec)) return out;
  fs::recursive_directory_iterator it(start, ec), end;
  if (ec) return FsError("cannot list " + start, ec);
  for (; it != end; it.increment(ec)) {
    if (ec) return FsError("cannot list " + start, ec);
    if (!it->is_regular_file(ec)) continue;
    const std::string path = it->path().string();
    std::string key = path.substr(bucket_dir.size() + 1);
    if (key.compare(0, key_prefix.size(), key_prefix) != 0) continue;
    const std::string name = it->path().filename().string();
    if (name == "_started" || name == "manifest-summary.json" || name == "manifest-files.json" ||
        (name.size() > 9 && name.substr(name.size() - 9) == ".checksum") ||
        (name.size() > 4 && name.substr(name.size() - 4) == ".tmp")) {
      continue;
    }
    out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace dynarock::transfer
