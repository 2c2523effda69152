// File: engine/api/json_items.cc
//
// Items and attribute values as DynamoDB JSON ({"name":{"S":"x"},...}), from
// an Item or straight from an item's stored bytes (EncodedItems, read by
// item_codec.h's visitor, nothing built): the two write the same JSON.

#include <array>
#include <string>

#include "engine/api/base64.h"
#include "engine/api/json_encode.h"
#include "engine/item_codec.h"

namespace dynarock::api {
namespace {

// `{"S":` for each type: a value's opening, its type tag written once here
// (from AttrTypeName) rather than escaped on every value.
const std::string& OpenText(AttrType type) {
  static const std::array<std::string, 11> kOpen = [] {
    std::array<std::string, 11> open;
    for (int t = 1; t <= 10; ++t) {
      open[t] = "{\"" + std::string(AttrTypeName(static_cast<AttrType>(t))) + "\":";
    }
    return open;
  }();
  return kOpen[static_cast<size_t>(type)];
}

void OpenValue(JsonWriter* w, AttrType type) {
  w->BeginObjectWithKey(std::string_view(OpenText(type)).substr(1));
}

// `{"S":"text"}` and `{"N":"12"}` in one write.
void WriteStringValue(JsonWriter* w, AttrType type, std::string_view text) {
  w->ObjectWithString(OpenText(type), text);
}

}  // namespace

void WriteStringList(JsonWriter* w, const std::vector<std::string>& list) {
  w->BeginArray();
  for (const auto& s : list) w->String(s);
  w->EndArray();
}

void WriteAttributeList(JsonWriter* w, const std::vector<AttributeValue>& list) {
  w->BeginArray();
  for (const auto& v : list) WriteAttributeValue(w, v);
  w->EndArray();
}

void WriteAttributeValue(JsonWriter* w, const AttributeValue& v) {
  if (v.type() == AttrType::kS || v.type() == AttrType::kN) {
    WriteStringValue(w, v.type(), v.scalar());
    return;
  }
  OpenValue(w, v.type());
  switch (v.type()) {
    case AttrType::kS:
    case AttrType::kN:
      break;  // above
    case AttrType::kB: {
      std::string text;
      Base64EncodeTo(v.scalar(), &text);
      w->String(text);
      break;
    }
    case AttrType::kBool:
      w->Bool(v.boolean());
      break;
    case AttrType::kNull:
      w->Bool(true);
      break;
    case AttrType::kL:
      WriteAttributeList(w, v.list());
      break;
    case AttrType::kM:
      WriteItem(w, v.map());
      break;
    case AttrType::kSS:
    case AttrType::kNS:
      WriteStringList(w, v.set());
      break;
    case AttrType::kBS: {
      w->BeginArray();
      std::string text;
      for (const auto& b : v.set()) {
        text.clear();
        Base64EncodeTo(b, &text);
        w->String(text);
      }
      w->EndArray();
      break;
    }
  }
  w->EndObject();
}

void WriteItem(JsonWriter* w, const Item& item) {
  w->BeginObject();
  for (const auto& [name, value] : item) {
    w->Key(name);
    WriteAttributeValue(w, value);
  }
  w->EndObject();
}

namespace {

// The visitor that writes DynamoDB JSON as it walks an encoded item.
class JsonItemWriter : public EncodedItemVisitor {
 public:
  explicit JsonItemWriter(JsonWriter* w) : w_(w) {}

  void BeginMap(bool top_level) override {
    if (!top_level) OpenValue(w_, AttrType::kM);
    w_->BeginObject();
  }
  void Name(std::string_view name) override { w_->Key(name); }
  void EndMap(bool top_level) override {
    w_->EndObject();
    if (!top_level) w_->EndObject();
  }
  void BeginList() override {
    OpenValue(w_, AttrType::kL);
    w_->BeginArray();
  }
  void EndList() override {
    w_->EndArray();
    w_->EndObject();
  }
  void Scalar(AttrType type, std::string_view bytes) override {
    if (type != AttrType::kB) {
      WriteStringValue(w_, type, bytes);
      return;
    }
    OpenValue(w_, type);
    WriteBase64(bytes);
    w_->EndObject();
  }
  void Boolean(bool b) override {
    OpenValue(w_, AttrType::kBool);
    w_->Bool(b);
    w_->EndObject();
  }
  void Null() override {
    OpenValue(w_, AttrType::kNull);
    w_->Bool(true);
    w_->EndObject();
  }
  void BeginSet(AttrType type) override {
    set_type_ = type;
    OpenValue(w_, type);
    w_->BeginArray();
  }
  void SetElement(std::string_view bytes) override {
    if (set_type_ == AttrType::kBS) {
      WriteBase64(bytes);
    } else {
      w_->String(bytes);
    }
  }
  void EndSet() override {
    w_->EndArray();
    w_->EndObject();
  }

 private:
  void WriteBase64(std::string_view bytes) {
    scratch_.clear();
    Base64EncodeTo(bytes, &scratch_);
    w_->String(scratch_);
  }

  JsonWriter* w_;
  AttrType set_type_ = AttrType::kSS;
  std::string scratch_;
};

}  // namespace

bool WriteEncodedItem(JsonWriter* w, ItemView item) {
  JsonItemWriter writer(w);
  return VisitEncodedItem(item.encoded(), &writer);
}

std::string EncodeAttributeValueJson(const AttributeValue& v) {
  JsonWriter w;
  WriteAttributeValue(&w, v);
  return w.Release();
}

std::string EncodeItemJson(const Item& item) {
  JsonWriter w;
  WriteItem(&w, item);
  return w.Release();
}

}  // namespace dynarock::api
