// File: engine/transfer/item_formats.cc

#include "engine/transfer/item_formats.h"

#include <simdjson.h>

#include <utility>

#include "dynarock/item_view.h"
#include "engine/api/base64.h"
#include "engine/api/json_decoder.h"
#include "engine/api/json_encode.h"
#include "engine/api/json_writer.h"
#include "engine/item_codec.h"
#include "engine/transfer/ion.h"

namespace dynarock::transfer {

std::string_view DataFormatName(DataFormat f) {
  switch (f) {
    case DataFormat::kDynamoDbJson: return "DYNAMODB_JSON";
    case DataFormat::kIon: return "ION";
    case DataFormat::kCsv: return "CSV";
  }
  return "";
}

// ---------------------------------------------------------------- writing

bool AppendItemLine(DataFormat format, std::string_view encoded_item, std::string* out) {
  if (format == DataFormat::kIon) {
    Item item;
    if (!DecodeItem(encoded_item, &item)) return false;
    out->append("$ion_1_0 {Item:");
    AppendIonStruct(item, out);
    out->append("}\n");
    return true;
  }
  api::JsonWriter w;
  w.BeginObject();
  w.Key("Item");
  if (!api::WriteEncodedItem(&w, ItemView(encoded_item))) return false;
  w.EndObject();
  out->append(w.str());
  out->push_back('\n');
  return true;
}

bool AppendChangeLine(DataFormat format, const TableChange& change, bool old_images,
                      std::string* out) {
  const std::string micros = std::to_string(change.write_micros);
  if (format == DataFormat::kIon) {
    Item keys, image;
    if (!DecodeItem(change.keys, &keys)) return false;
    out->append("$ion_1_0 {Metadata:{WriteTimestampMicros:");
    out->append(micros);
    out->append(".},Keys:");
    AppendIonStruct(keys, out);
    if (change.new_image) {
      if (!DecodeItem(*change.new_image, &image)) return false;
      out->append(",NewImage:");
      AppendIonStruct(image, out);
    }
    if (old_images && change.old_image) {
      if (!DecodeItem(*change.old_image, &image)) return false;
      out->append(",OldImage:");
      AppendIonStruct(image, out);
    }
    out->append("}\n");
    return true;
  }
  api::JsonWriter w;
  w.BeginObject();
  w.Key("Metadata");
  w.BeginObject();
  w.Key("WriteTimestampMicros");
  w.BeginObject();
  w.Member("N", micros);
  w.EndObject();
  w.EndObject();
  w.Key("Keys");
  if (!api::WriteEncodedItem(&w, ItemView(change.keys))) return false;
  if (change.new_image) {
    w.Key("NewImage");
    if (!api::WriteEncodedItem(&w, ItemView(*change.new_image))) return false;
  }
  if (old_images && change.old_image) {
    w.Key("OldImage");
    if (!api::WriteEncodedItem(&w, ItemView(*change.old_image))) return false;
  }
  w.EndObject();
  out->append(w.str());
  out->push_back('\n');
  return true;
}

// ---------------------------------------------------------------- CSV

Status SplitCsvRecord(std::string_view text, char delimiter, std::vector<std::string>* fields,
                      bool* incomplete) {
  fields->clear();
  *incomplete = false;
  std::string field;
  size_t i = 0;
  for (;;) {
    field.clear();
    if (i < text.size() && text[i] == '"') {
      ++i;
      for (;;) {
        if (i >= text.size()) {
          *incomplete = true;
          return Status();
        }
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field.push_back(text[i++]);
      }
      if (i < text.size() && text[i] != delimiter) {
        return Status(ErrorType::kValidation,
                      "CSV: unexpected character after a quoted field (field " +
                          std::to_string(fields->size() + 1) + ")");
      }
    } else {
      while (i < text.size() && text[i] != delimiter) {
        if (text[i] == '"') {
          return Status(ErrorType::kValidation, "CSV: a quote inside an unquoted field (field " +
                                                    std::to_string(fields->size() + 1) + ")");
        }
        field.push_back(text[i++]);
      }
    }
    fields->push_back(field);
    if (i >= text.size()) return Status();
    ++i;  // the delimiter
  }
}

// ---------------------------------------------------------------- parsing

struct ItemParser::Impl {
  DataFormat format;
  char delimiter;
  std::vector<std::string> fixed_header;
  std::map<std::string, std::string, std::less<>> types;
  std::vector<std::string> header;
  bool need_header = false;
  std::string pending;  // an unfinished ION or CSV record
  std::vector<std::string> fields;
  simdjson::dom::parser json;

  Status Json(std::string_view line, Item* item, bool* has_item) {
    namespace dom = simdjson::dom;
    dom::element doc;
    if (json.parse(line.data(), line.size()).get(doc) != simdjson::SUCCESS) {
      return Status(ErrorType::kValidation, "Invalid JSON");
    }
    dom::object root;
    if (doc.get_object().get(root) != simdjson::SUCCESS) {
      return Status(ErrorType::kValidation, "A line must be a JSON object with an Item member");
    }
    dom::element body;
    if (root.at_key("Item").get(body) != simdjson::SUCCESS || body.is_null()) {
      return Status(ErrorType::kValidation, "The line has no Item member");
    }
    api::json_internal::Decoder d;
    dom::object m;
    if (!d.AsObject(body, &m) || !d.ItemBody(m, item)) {
      Status s = d.Finish();
      return Status(ErrorType::kValidation, "Invalid Item: " + std::string(s.message()));
    }
    Status s = d.Finish();
    if (!s.ok()) return Status(ErrorType::kValidation, std::string(s.message()));
    *has_item = true;
    return Status();
  }

  Status Ion(std::string_view line, Item* item, bool* has_item) {
    std::string_view text = line;
    if (!pending.empty()) {
      pending.push_back('\n');
      pending.append(line);
      text = pending;
    }
    Item record;
    bool incomplete = false;
    Status s = ParseIonRecord(text, &record, &incomplete);
    if (incomplete) {
      if (pending.empty()) pending.assign(line);
      return Status();
    }
    pending.clear();
    if (!s.ok()) return s;
    auto it = record.find("Item");
    if (it == record.end() || !it->second.is(AttrType::kM)) {
      return Status(ErrorType::kValidation, "The Ion record has no Item struct");
    }
    *item = std::move(it->second.mutable_map());
    *has_item = true;
    return Status();
  }

  Status Csv(std::string_view line, Item* item, bool* has_item) {
    std::string_view text = line;
    if (!pending.empty()) {
      pending.push_back('\n');
      pending.append(line);
      text = pending;
    }
    bool incomplete = false;
    Status s = SplitCsvRecord(text, delimiter, &fields, &incomplete);
    if (incomplete) {
      if (pending.empty()) pending.assign(line);
      return Status();
    }
    pending.clear();
    if (!s.ok()) return s;
    if (need_header) {
      need_header = false;
      header = fields;
      for (const std::string& h : header) {
        if (h.empty()) return Status(ErrorType::kValidation, "CSV: an empty column name in the header");
      }
      return Status();
    }
    if (fields.size() == 1 && fields[0].empty()) return Status();  // a blank line
    if (fields.size() > header.size()) {
      return Status(ErrorType::kValidation, "CSV: " + std::to_string(fields.size()) +
                                                " fields, but the header has " +
                                                std::to_string(header.size()));
    }
    item->clear();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].empty()) continue;
      auto t = types.find(header[i]);
      const std::string_view type = t == types.end() ? "S" : std::string_view(t->second);
      if (type == "N") {
        item->insert_or_assign(header[i], AttributeValue::N(std::move(fields[i])));
      } else if (type == "B") {
        std::string bytes, error;
        if (!api::Base64Decode(fields[i], &bytes, &error)) {
          return Status(ErrorType::kValidation, "CSV: column " + header[i] +
                                                    " is not valid base64: " + error);
        }
        item->insert_or_assign(header[i], AttributeValue::B(std::move(bytes)));
      } else {
        item->insert_or_assign(header[i], AttributeValue::S(std::move(fields[i])));
      }
    }
    *has_item = true;
    return Status();
  }
};

ItemParser::ItemParser(DataFormat format, char csv_delimiter, std::vector<std::string> header,
                       std::map<std::string, std::string, std::less<>> types)
    : impl_(std::make_unique<Impl>()) {
  impl_->format = format;
  impl_->delimiter = csv_delimiter;
  impl_->fixed_header = std::move(header);
  impl_->types = std::move(types);
  StartFile();
}

ItemParser::~ItemParser() = default;

void ItemParser::StartFile() {
  impl_->pending.clear();
  impl_->header = impl_->fixed_header;
  impl_->need_header = impl_->format == DataFormat::kCsv && impl_->fixed_header.empty();
}

Status ItemParser::Line(std::string_view line, Item* item, bool* has_item) {
  *has_item = false;
  if (impl_->pending.empty()) {
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size() && impl_->format != DataFormat::kCsv) return Status();
  }
  switch (impl_->format) {
    case DataFormat::kDynamoDbJson: return impl_->Json(line, item, has_item);
    case DataFormat::kIon: return impl_->Ion(line, item, has_item);
    case DataFormat::kCsv: return impl_->Csv(line, item, has_item);
  }
  return Status();
}

Status ItemParser::EndFile() {
  if (impl_->pending.empty()) return Status();
  impl_->pending.clear();
  return Status(ErrorType::kValidation, impl_->format == DataFormat::kCsv
                                            ? "CSV: a quoted field is not closed at the end of the file"
                                            : "the Ion record is not complete at the end of the file");
}

}  // namespace dynarock::transfer
