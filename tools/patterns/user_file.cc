#include "tools/patterns/user_file.h"

#include <memory>
#include <utility>

#include "engine/api/json_decode.h"
#include "tools/patterns/json.h"

namespace dynarock::patterns {

// ---------------------------------------------------------------- Template

StatusOr<Template> Template::Compile(std::string_view text) {
  Template t;
  std::string literal;
  auto is_lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t pos = 0;
  while (pos < text.size()) {
    char c = text[pos];
    if (c != '{' || pos + 1 >= text.size() || !is_lower(text[pos + 1])) {
      literal.push_back(c);
      ++pos;
      continue;
    }
    // {name[:N][opN]}
    size_t p = pos + 1;
    size_t name_start = p;
    while (p < text.size() && is_lower(text[p])) ++p;
    std::string_view name = text.substr(name_start, p - name_start);
    auto number = [&](int64_t* out) {
      size_t b = p;
      int64_t v = 0;
      while (p < text.size() && is_digit(text[p]) && p - b < 15) v = v * 10 + (text[p++] - '0');
      *out = v;
      return p > b;
    };
    Part part;
    bool ok = true;
    if (p < text.size() && text[p] == ':') {
      ++p;
      ok = name == "rand" && number(&part.rand_bound) && part.rand_bound > 0;
    }
    while (ok && p < text.size() &&
           std::string_view("+-*/%").find(text[p]) != std::string_view::npos) {
      char op = text[p++];
      int64_t operand = 0;
      ok = number(&operand) && !((op == '/' || op == '%') && operand == 0);
      part.ops.emplace_back(op, operand);
    }
    size_t end = text.find('}', pos);
    if (!ok || p >= text.size() || text[p] != '}') {
      return ValidationError("invalid placeholder '" +
                             std::string(text.substr(pos, end == std::string_view::npos
                                                              ? std::string_view::npos
                                                              : end - pos + 1)) +
                             "': expected {i}, {j}, {rand} or {rand:N}, optionally followed by "
                             "operations +N, -N, *N, /N, %N");
    }
    if (name == "i") {
      part.var = Var::kI;
    } else if (name == "j") {
      part.var = Var::kJ;
    } else if (name == "rand") {
      part.var = Var::kRand;
    } else {
      return ValidationError("unknown placeholder '{" + std::string(name) +
                             "...}': expected {i}, {j}, {rand} or {rand:N}");
    }
    if (!literal.empty()) {
      Part lit;
      lit.literal = std::move(literal);
      literal.clear();
      t.parts_.push_back(std::move(lit));
    }
    t.parts_.push_back(part);
    pos = p + 1;
  }
  if (!literal.empty() || t.parts_.empty()) {
    Part lit;
    lit.literal = std::move(literal);
    t.parts_.push_back(std::move(lit));
  }
  return t;
}

std::string Template::Expand(int64_t i, int64_t j, Rng& rng) const {
  std::string out;
  for (const Part& p : parts_) {
    if (p.var == Var::kNone) {
      out.append(p.literal);
      continue;
    }
    int64_t v = 0;
    switch (p.var) {
      case Var::kI: v = i; break;
      case Var::kJ: v = j; break;
      case Var::kRand: v = rng.Uniform(p.rand_bound > 0 ? p.rand_bound : (int64_t{1} << 31)); break;
      case Var::kNone: break;
    }
    // + - * wrap around (two's complement) instead of overflowing; operands are >= 0.
    for (const auto& [op, operand] : p.ops) {
      const uint64_t u = static_cast<uint64_t>(v), w = static_cast<uint64_t>(operand);
      switch (op) {
        case '+': v = static_cast<int64_t>(u + w); break;
        case '-': v = static_cast<int64_t>(u - w); break;
        case '*': v = static_cast<int64_t>(u * w); break;
        case '/': v /= operand; break;
        case '%': v %= operand; break;
        default: break;
      }
    }
    out.append(std::to_string(v));
  }
  return out;
}

// ---------------------------------------------------------------- requests

namespace {

// Decodes `body` and runs it through the session (every page with all_pages).
template <typename Req, typename Resp>
Status RunRequest(Session& s, std::string_view body, bool all_pages,
                  StatusOr<Req> (*decode)(std::string_view), StatusOr<Resp> (Session::*call)(Req)) {
  StatusOr<Req> req = decode(body);
  if (!req.ok()) return req.status();
  for (;;) {
    StatusOr<Resp> resp = (s.*call)(*req);
    if (!resp.ok()) return resp.status();
    if constexpr (requires { resp->last_evaluated_key; }) {
      if (all_pages && resp->last_evaluated_key) {
        req->exclusive_start_key = std::move(resp->last_evaluated_key);
        continue;
      }
    }
    return Status::Ok();
  }
}

template <typename Req>
Status CheckDecodes(std::string_view body, StatusOr<Req> (*decode)(std::string_view)) {
  return decode(body).status();
}

struct OperationDef {
  std::string_view name;
  bool pageable;
  Status (*check)(std::string_view body);
  Status (*run)(Session& s, std::string_view body, bool all_pages);
};

#define DR_PATTERN_OP(Name, Pageable)                                                     \
  OperationDef {                                                                          \
    #Name, Pageable,                                                                      \
        [](std::string_view body) { return CheckDecodes(body, api::Decode##Name##Request); }, \
        [](Session& s, std::string_view body, bool all_pages) {                          \
          return RunRequest(s, body, all_pages, api::Decode##Name##Request, &Session::Name); \
        }                                                                                 \
  }

const OperationDef kOperations[] = {
    DR_PATTERN_OP(GetItem, false),          DR_PATTERN_OP(PutItem, false),
    DR_PATTERN_OP(UpdateItem, false),       DR_PATTERN_OP(DeleteItem, false),
    DR_PATTERN_OP(Query, true),             DR_PATTERN_OP(Scan, true),
    DR_PATTERN_OP(BatchGetItem, false),     DR_PATTERN_OP(BatchWriteItem, false),
    DR_PATTERN_OP(TransactGetItems, false), DR_PATTERN_OP(TransactWriteItems, false),
};

#undef DR_PATTERN_OP

const OperationDef* FindOperation(std::string_view name) {
  for (const OperationDef& op : kOperations) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

struct RequestStep {
  const OperationDef* op = nullptr;
  Template body;
  int64_t repeat = 1;
  bool all_pages = false;
};

Status Err(std::string_view source, const std::string& where, const std::string& what) {
  return ValidationError(std::string(source) + ": " + where + (where.empty() ? "" : ": ") + what);
}

// A whole number member from min to max; `dflt` when absent.
bool IntMember(const Json& obj, std::string_view key, int64_t min, int64_t max, int64_t dflt,
               int64_t* out) {
  const Json* v = obj.Find(key);
  if (v == nullptr) {
    *out = dflt;
    return true;
  }
  if (!v->is_number() || v->text.empty() || v->text.size() > 15) return false;
  int64_t n = 0;
  for (char c : v->text) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  if (n < min || n > max) return false;
  *out = n;
  return true;
}

std::string StringMember(const Json& obj, std::string_view key) {
  const Json* v = obj.Find(key);
  return v != nullptr && v->is_string() ? v->text : std::string();
}

}  // namespace

StatusOr<Suite> LoadPatternFile(std::string_view text, std::string_view source) {
  auto parsed = ParseJson(text);
  if (!parsed.ok()) return Err(source, "", "not JSON: " + parsed.status().message());
  const Json& doc = *parsed;
  if (!doc.is_object()) return Err(source, "", "expected a JSON object at the top");

  Suite suite;
  suite.name = StringMember(doc, "name");
  if (suite.name.empty()) suite.name = "custom";
  suite.title = suite.name + " (" + std::string(source) + ")";
  suite.description = StringMember(doc, "description");

  // ---- setup
  std::vector<std::string> tables;  // CreateTable bodies
  struct ItemGen {
    std::string table;
    int64_t count = 0;
    Template item;
  };
  std::vector<ItemGen> generators;
  if (const Json* setup = doc.Find("setup")) {
    if (!setup->is_object()) return Err(source, "setup", "expected an object");
    if (const Json* ts = setup->Find("tables")) {
      if (!ts->is_array()) return Err(source, "setup.tables", "expected an array");
      for (size_t k = 0; k < ts->array.size(); ++k) {
        std::string body = WriteJson(ts->array[k]);
        Status s = api::DecodeCreateTableRequest(body).status();
        if (!ts->array[k].is_object()) s = ValidationError("expected a CreateTable request object");
        if (!s.ok()) return Err(source, "setup.tables[" + std::to_string(k) + "]", s.message());
        tables.push_back(std::move(body));
      }
    }
    if (const Json* is = setup->Find("items")) {
      if (!is->is_array()) return Err(source, "setup.items", "expected an array");
      for (size_t k = 0; k < is->array.size(); ++k) {
        const std::string where = "setup.items[" + std::to_string(k) + "]";
        const Json& g = is->array[k];
        if (!g.is_object()) return Err(source, where, "expected an object");
        ItemGen gen;
        gen.table = StringMember(g, "table");
        if (gen.table.empty()) return Err(source, where, "\"table\" (a table name) is required");
        if (!IntMember(g, "count", 0, kMaxItemCount, 1, &gen.count)) {
          return Err(source, where,
                     "\"count\" must be a whole number from 0 to " + std::to_string(kMaxItemCount));
        }
        const Json* item = g.Find("item");
        if (item == nullptr || !item->is_object()) {
          return Err(source, where, "\"item\" (an item in DynamoDB JSON) is required");
        }
        auto tmpl = Template::Compile(WriteJson(*item));
        if (!tmpl.ok()) return Err(source, where, tmpl.status().message());
        Rng probe(0);
        Status s = api::DecodeItemJson(tmpl->Expand(0, 0, probe)).status();
        if (!s.ok()) return Err(source, where + ".item", s.message());
        gen.item = std::move(tmpl).value();
        generators.push_back(std::move(gen));
      }
    }
  }
  suite.setup = [tables, generators](DB* db, Rng& rng) -> Status {
    for (const std::string& body : tables) {
      auto req = api::DecodeCreateTableRequest(body);
      if (!req.ok()) return req.status();
      auto r = db->CreateTable(*req);
      if (!r.ok()) return r.status();
    }
    for (const ItemGen& g : generators) {
      for (int64_t i = 0; i < g.count;) {  // in chunks: a large count needs no large memory
        std::vector<Item> items;
        for (const int64_t end = std::min(g.count, i + 1000); i < end; ++i) {
          auto item = api::DecodeItemJson(g.item.Expand(i, 0, rng));
          if (!item.ok()) return item.status();
          items.push_back(std::move(item).value());
        }
        DR_RETURN_IF_ERROR(BatchPut(db, g.table, std::move(items)));
      }
    }
    return Status::Ok();
  };

  // ---- patterns
  const Json* ps = doc.Find("patterns");
  if (ps == nullptr || !ps->is_array() || ps->array.empty()) {
    return Err(source, "", "\"patterns\" (a non-empty array) is required");
  }
  for (size_t k = 0; k < ps->array.size(); ++k) {
    const Json& pj = ps->array[k];
    std::string where = "patterns[" + std::to_string(k) + "]";
    if (!pj.is_object()) return Err(source, where, "expected an object");
    Pattern pattern;
    pattern.name = StringMember(pj, "name");
    if (pattern.name.empty()) return Err(source, where, "\"name\" is required");
    where = "pattern '" + pattern.name + "'";
    for (const Pattern& other : suite.patterns) {
      if (other.name == pattern.name) return Err(source, where, "defined twice");
    }
    pattern.description = StringMember(pj, "description");
    if (!IntMember(pj, "iterations", 1, kMaxIterations, 0, &pattern.iterations)) {
      return Err(source, where,
                 "\"iterations\" must be a whole number from 1 to " + std::to_string(kMaxIterations));
    }
    if (const Json* c = pj.Find("continue_on_error")) {
      if (c->type != Json::Type::kBool) return Err(source, where, "\"continue_on_error\" must be true or false");
      pattern.abort_on_error = !c->boolean;
    }
    const Json* rs = pj.Find("requests");
    if (rs == nullptr || !rs->is_array() || rs->array.empty()) {
      return Err(source, where, "\"requests\" (a non-empty array) is required");
    }
    auto steps = std::make_shared<std::vector<RequestStep>>();
    for (size_t r = 0; r < rs->array.size(); ++r) {
      const std::string rwhere = where + ", request " + std::to_string(r);
      const Json& rj = rs->array[r];
      if (!rj.is_object()) return Err(source, rwhere, "expected an object");
      RequestStep step;
      const std::string op = StringMember(rj, "operation");
      step.op = FindOperation(op);
      if (step.op == nullptr) {
        return Err(source, rwhere,
                   "\"operation\" must be one of GetItem, PutItem, UpdateItem, DeleteItem, Query, "
                   "Scan, BatchGetItem, BatchWriteItem, TransactGetItems, TransactWriteItems (not '" +
                       op + "')");
      }
      if (!IntMember(rj, "repeat", 1, kMaxRepeat, 1, &step.repeat)) {
        return Err(source, rwhere,
                   "\"repeat\" must be a whole number from 1 to " + std::to_string(kMaxRepeat));
      }
      if (const Json* ap = rj.Find("all_pages")) {
        if (ap->type != Json::Type::kBool) return Err(source, rwhere, "\"all_pages\" must be true or false");
        step.all_pages = ap->boolean;
        if (step.all_pages && !step.op->pageable) {
          return Err(source, rwhere, "\"all_pages\" applies to Query and Scan only");
        }
      }
      const Json* body = rj.Find("body");
      if (body == nullptr || !body->is_object()) {
        return Err(source, rwhere, "\"body\" (the request in DynamoDB JSON) is required");
      }
      auto tmpl = Template::Compile(WriteJson(*body));
      if (!tmpl.ok()) return Err(source, rwhere, tmpl.status().message());
      Rng probe(0);
      Status s = step.op->check(tmpl->Expand(0, 0, probe));
      if (!s.ok()) return Err(source, rwhere, s.ToString());
      step.body = std::move(tmpl).value();
      steps->push_back(std::move(step));
    }
    pattern.run = [steps](Session& s, int64_t i, Rng& rng) -> Status {
      Status first_error;
      for (const RequestStep& step : *steps) {
        for (int64_t j = 0; j < step.repeat; ++j) {
          Status st = step.op->run(s, step.body.Expand(i, j, rng), step.all_pages);
          if (!st.ok() && first_error.ok()) first_error = st;
        }
      }
      return first_error;
    };
    suite.patterns.push_back(std::move(pattern));
  }
  return suite;
}

}  // namespace dynarock::patterns
