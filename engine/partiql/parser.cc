// File: engine/partiql/parser.cc
//
// A recursive-descent parser for DynamoDB's PartiQL (parser.h), over the
// tokens of lexer.h.
//
//   statement := SELECT projection FROM source [WHERE cond] [ORDER BY path [ASC|DESC]]
//              | INSERT INTO table VALUE value
//              | UPDATE table (SET path = operand | REMOVE path)+ [WHERE cond] [returning]
//              | DELETE FROM table [WHERE cond] [returning]
//              | EXISTS ( SELECT * FROM table WHERE cond )
//   cond      := or;  or := and (OR and)*;  and := not (AND not)*;  not := NOT not | pred
//   pred      := ( cond ) | operand [ cmp operand | BETWEEN operand AND operand
//                | IN ( operand, ... ) | IN [ operand, ... ] | IS [NOT] MISSING | IS [NOT] NULL ]
//   operand   := term (( + | - ) term)*;  term := path | value | ? | name ( operand, ... )
//   returning := RETURNING (ALL | MODIFIED) (OLD | NEW) *

#include "engine/partiql/parser.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "engine/number.h"
#include "engine/partiql/lexer.h"

namespace dynarock::partiql {
namespace {

class Parser {
 public:
  // `parameters` null: parse a template (ParseTemplate).
  Parser(std::vector<Token> tokens, const std::vector<AttributeValue>* parameters)
      : t_(std::move(tokens)), params_(parameters) {}

  // A template with a `?` where only a value can stand.
  bool value_slot() const { return value_slot_; }

  StatusOr<Statement> Parse() {
    Statement st;
    if (Keyword("SELECT")) {
      st.kind = Statement::Kind::kSelect;
      if (!ParseSelect(&st)) return *error_;
    } else if (Keyword("INSERT")) {
      st.kind = Statement::Kind::kInsert;
      if (!ParseInsert(&st)) return *error_;
      if (IsKeyword("RETURNING")) return ValidationError("RETURNING is not supported in INSERT");
    } else if (Keyword("UPDATE")) {
      st.kind = Statement::Kind::kUpdate;
      if (!ParseUpdate(&st)) return *error_;
    } else if (Keyword("DELETE")) {
      st.kind = Statement::Kind::kDelete;
      if (!ParseDelete(&st)) return *error_;
    } else if (Keyword("EXISTS")) {
      st.kind = Statement::Kind::kExists;
      if (!Expect("(") || !ExpectKeyword("SELECT") || !ParseSelect(&st) || !Expect(")")) {
        return *error_;
      }
    } else if ((IsKeyword("CREATE") || IsKeyword("DROP")) &&
               (EqualsIgnoreCase(t_[pos_ + 1].text, "TABLE") ||
                EqualsIgnoreCase(t_[pos_ + 1].text, "INDEX"))) {
      // Data definition is the API's (CreateTable, ...), not PartiQL's.
      std::string op = EqualsIgnoreCase(Cur().text, "CREATE") ? "Create" : "Drop";
      return ValidationError("Unsupported operation: " + op +
                             (EqualsIgnoreCase(t_[pos_ + 1].text, "TABLE") ? "Table" : "Index"));
    } else {
      return Syntax("Expected a statement (SELECT, INSERT, UPDATE, DELETE or EXISTS) at " +
                    Where());
    }
    Punct(";");
    if (Cur().kind != Tok::kEnd) {
      Unexpected();
      return *error_;
    }
    // Fewer parameters than `?` are refused where they run out; more are
    // ignored, as DynamoDB does.
    st.param_count = next_param_;
    return st;
  }

 private:
  const Token& Cur() const { return t_[pos_]; }
  void Advance() {
    if (pos_ + 1 < t_.size()) ++pos_;
  }
  std::string Where() const {
    const Token& c = Cur();
    if (c.kind == Tok::kEnd) return "the end of the statement";
    return "'" + c.text + "' (position " + std::to_string(c.pos + 1) + ")";
  }
  bool Fail(Status s) {
    if (!error_) error_ = std::move(s);
    return false;
  }
  bool Unexpected() {
    if (Cur().kind == Tok::kEnd) return Fail(Syntax("Unexpected end of statement"));
    return Fail(Syntax("Unexpected token " + Where()));
  }
  bool IsKeyword(std::string_view kw) const {
    return Cur().kind == Tok::kIdent && EqualsIgnoreCase(Cur().text, kw);
  }
  bool Keyword(std::string_view kw) {
    if (!IsKeyword(kw)) return false;
    Advance();
    return true;
  }
  bool ExpectKeyword(std::string_view kw) {
    if (Keyword(kw)) return true;
    return Fail(Syntax("Expected " + std::string(kw) + " at " + Where()));
  }
  bool IsPunct(std::string_view p) const { return Cur().kind == Tok::kPunct && Cur().text == p; }
  bool Punct(std::string_view p) {
    if (!IsPunct(p)) return false;
    Advance();
    return true;
  }
  bool Expect(std::string_view p) {
    if (Punct(p)) return true;
    return Fail(Syntax("Expected '" + std::string(p) + "' at " + Where()));
  }

  // "line:column:length" of the current token, as DynamoDB's PartiQL positions.
  std::string Position() const {
    const Token& c = Cur();
    return "1:" + std::to_string(c.pos + 1) + ":" + std::to_string(std::max<size_t>(1, c.len));
  }

  // SQL DynamoDB's PartiQL does not support, refused in its words. `source`:
  // right after FROM's table, where a name would be an alias.
  bool RefuseUnsupported(bool source = false) {
    if (IsKeyword("JOIN") || IsKeyword("INNER") || IsKeyword("LEFT") || IsKeyword("CROSS")) {
      return Fail(ValidationError("Only select from a single table or index is supported."));
    }
    if (IsKeyword("GROUP")) return Fail(ValidationError("Unsupported clause: GROUP BY"));
    static const char* kClauses[] = {"HAVING", "LIMIT", "OFFSET", "UNION", "INTERSECT", "EXCEPT"};
    for (const char* kw : kClauses) {
      if (IsKeyword(kw)) {
        // DynamoDB points at what follows LIMIT and OFFSET (their value).
        std::string kw_text(kw);
        if ((kw_text == "LIMIT" || kw_text == "OFFSET") && t_[pos_ + 1].kind != Tok::kEnd) Advance();
        return Fail(ValidationError("Unsupported clause: " + kw_text + " at " + Position()));
      }
    }
    if (IsKeyword("AS") || (source && Cur().kind == Tok::kIdent && !IsKeyword("WHERE") &&
                            !IsKeyword("ORDER"))) {
      return Fail(ValidationError("Aliasing is not supported"));
    }
    return true;
  }

  bool Identifier(std::string* out) {
    if (Cur().kind == Tok::kQuoted && Cur().text.empty()) {
      return Fail(Syntax("Empty identifier \"\" at position " + std::to_string(Cur().pos + 1)));
    }
    if (Cur().kind == Tok::kIdent && IsReserved(Cur().text)) {
      return Fail(Syntax("'" + Cur().text + "' (position " + std::to_string(Cur().pos + 1) +
                         ") is a reserved word; write it as a quoted name, \"" + Cur().text + "\""));
    }
    if (Cur().kind == Tok::kQuoted || Cur().kind == Tok::kIdent) {
      *out = Cur().text;
      Advance();
      return true;
    }
    return Fail(Syntax("Expected an identifier at " + Where()));
  }

  bool ParsePath(Path* out) {
    PathStep first;
    if (!Identifier(&first.name)) return false;
    out->push_back(std::move(first));
    while (true) {
      if (Punct(".")) {
        PathStep step;
        if (!Identifier(&step.name)) return false;
        out->push_back(std::move(step));
      } else if (IsPunct("[") && t_[pos_ + 1].kind == Tok::kString) {  // m['name']
        Advance();
        PathStep step;
        step.name = Cur().text;
        Advance();
        if (!Expect("]")) return false;
        out->push_back(std::move(step));
      } else if (IsPunct("[")) {
        Advance();
        if (Cur().kind != Tok::kNumber || Cur().text.find_first_not_of("0123456789") != std::string::npos) {
          return Fail(Syntax("Expected a list index at " + Where()));
        }
        PathStep step;
        step.is_index = true;
        step.index = Cur().text.size() > 10 ? -1 : std::stoll(Cur().text);
        if (step.index < 0) return Fail(Syntax("List index out of range at " + Where()));
        Advance();
        if (!Expect("]")) return false;
        out->push_back(std::move(step));
      } else {
        return true;
      }
    }
  }

  bool ParseSource(Statement* st) {
    if (!Identifier(&st->table)) return false;
    if (Punct(".")) {
      std::string index;
      if (!Identifier(&index)) return false;
      st->index = std::move(index);
    }
    return true;
  }

  bool ParseSelect(Statement* st) {
    if (IsKeyword("DISTINCT")) {
      return Fail(ValidationError("Unsupported token in expression: DISTINCT"));
    }
    if (IsKeyword("VALUE") || IsKeyword("PIVOT")) {
      return Fail(ValidationError("Select projection doesn't support value or pivot keywords"));
    }
    if (!Punct("*")) {
      do {
        // A function in the projection (COUNT(*), MAX(x), ...).
        if (Cur().kind == Tok::kIdent && t_[pos_ + 1].kind == Tok::kPunct && t_[pos_ + 1].text == "(") {
          return Fail(ValidationError("Unexpected path component at " + Position()));
        }
        // A parameter or a literal where a path belongs.
        if (Cur().kind == Tok::kString || Cur().kind == Tok::kNumber ||
            (Cur().kind == Tok::kPunct && Cur().text != "*")) {
          return Fail(ValidationError("Unexpected path component at " + Position()));
        }
        Path p;
        if (!ParsePath(&p)) return false;
        if (IsKeyword("AS")) return Fail(ValidationError("Aliasing is not supported"));
        if (IsPunct("+") || IsPunct("-")) {  // arithmetic in the projection
          return Fail(ValidationError("Unexpected path component at " + Position()));
        }
        st->projection.push_back(std::move(p));
      } while (Punct(","));
    }
    if (!ExpectKeyword("FROM")) return false;
    if (IsPunct("(") || IsPunct("?")) return Fail(ValidationError("Unexpected from source"));
    if (!ParseSource(st)) return false;
    if (IsPunct(".")) {
      return Fail(ValidationError("A path may contain at most 2 components in the FROM clause"));
    }
    if (IsPunct(",")) {
      return Fail(ValidationError("Only select from a single table or index is supported."));
    }
    if (!RefuseUnsupported(/*source=*/true)) return false;
    if (Keyword("WHERE") && !ParseCondition(&st->where)) return false;
    if (!RefuseUnsupported()) return false;
    if (Keyword("ORDER")) {
      if (!ExpectKeyword("BY")) return false;
      do {
        OrderTerm term;
        if (!ParsePath(&term.path)) return false;
        if (Keyword("DESC")) {
          term.descending = true;
        } else {
          Keyword("ASC");
        }
        st->order_by.push_back(std::move(term));
      } while (Punct(","));
    }
    return RefuseUnsupported();
  }

  // The table of a write: an index is refused in DynamoDB's words.
  bool WriteTable(Statement* st, bool insert) {
    if (!Identifier(&st->table)) return false;
    if (IsPunct(".")) {
      return Fail(ValidationError(insert ? "FROM clause may only contain a single table name in "
                                           "data manipulation statements"
                                         : "This operation is not supported on an index"));
    }
    return true;
  }

  bool ParseInsert(Statement* st) {
    if (!ExpectKeyword("INTO") || !WriteTable(st, true)) return false;
    if (!ExpectKeyword("VALUE")) return false;
    static const char* kNotATuple =
        "Unsupported format in item expression. Please use struct format {...} to express item "
        "values for insert statement. at ";
    if (IsPunct("?")) return Fail(ValidationError(kNotATuple + Position()));
    const std::string value_at = Position();
    AttributeValue v;
    insert_slots_ = &st->insert_params;
    bool parsed = ParseValue(&v);
    insert_slots_ = nullptr;
    if (!parsed) return false;
    if (!v.is(AttrType::kM)) {
      return Fail(ValidationError(kNotATuple + value_at));
    }
    st->insert_value = v.map();
    return true;
  }

  bool ParseReturning(Statement* st) {
    if (!Keyword("RETURNING")) return true;
    std::string which;
    if (Keyword("ALL")) {
      which = "ALL";
    } else if (Keyword("MODIFIED")) {
      which = "MODIFIED";
    } else {
      return Fail(Syntax("Expected ALL or MODIFIED at " + Where()));
    }
    if (Keyword("OLD")) {
      which += " OLD";
    } else if (Keyword("NEW")) {
      which += " NEW";
    } else {
      return Fail(Syntax("Expected OLD or NEW at " + Where()));
    }
    if (!Expect("*")) return false;
    st->returning = std::move(which);
    return true;
  }

  bool ParseUpdate(Statement* st) {
    if (!WriteTable(st, false)) return false;
    bool any = false;
    while (true) {
      if (Keyword("SET")) {
        do {
          SetClause c;
          if (!ParsePath(&c.path) || !Expect("=") || !ParseOperand(&c.value)) return false;
          st->sets.push_back(std::move(c));
        } while (Punct(","));
        any = true;
      } else if (Keyword("REMOVE")) {
        do {
          Path p;
          if (!ParsePath(&p)) return false;
          st->removes.push_back(std::move(p));
        } while (Punct(","));
        any = true;
      } else {
        break;
      }
    }
    if (!any) return Fail(Syntax("Expected SET or REMOVE at " + Where()));
    if (Keyword("WHERE") && !ParseCondition(&st->where)) return false;
    return ParseReturning(st);
  }

  bool ParseDelete(Statement* st) {
    if (!ExpectKeyword("FROM") || !WriteTable(st, false)) return false;
    if (Keyword("WHERE") && !ParseCondition(&st->where)) return false;
    return ParseReturning(st);
  }

  // ------------------------------------------------------------ conditions

  bool ParseCondition(ExprPtr* out) { return ParseOr(out, 0); }

  bool Depth(int depth) {
    if (depth > 64) return Fail(Syntax("The statement is nested too deeply"));
    return true;
  }

  bool ParseOr(ExprPtr* out, int depth) {
    if (!Depth(depth) || !ParseAnd(out, depth)) return false;
    while (Keyword("OR")) {
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kOr;
      e->args.push_back(std::move(*out));
      ExprPtr rhs;
      if (!ParseAnd(&rhs, depth)) return false;
      e->args.push_back(std::move(rhs));
      *out = std::move(e);
    }
    return true;
  }

  bool ParseAnd(ExprPtr* out, int depth) {
    if (!ParseNot(out, depth)) return false;
    while (Keyword("AND")) {
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kAnd;
      e->args.push_back(std::move(*out));
      ExprPtr rhs;
      if (!ParseNot(&rhs, depth)) return false;
      e->args.push_back(std::move(rhs));
      *out = std::move(e);
    }
    return true;
  }

  bool ParseNot(ExprPtr* out, int depth) {
    if (Keyword("NOT")) {
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kNot;
      ExprPtr inner;
      if (!Depth(depth + 1) || !ParseNot(&inner, depth + 1)) return false;
      e->args.push_back(std::move(inner));
      *out = std::move(e);
      return true;
    }
    return ParsePredicate(out, depth);
  }

  bool ParsePredicate(ExprPtr* out, int depth) {
    if (IsPunct("(")) {
      // A parenthesised condition (a parenthesised operand is not needed here).
      Advance();
      if (!ParseOr(out, depth + 1) || !Expect(")")) return false;
      return true;
    }
    ExprPtr lhs;
    if (!ParseOperand(&lhs, depth)) return false;
    static const char* kCompare[] = {"=", "<>", "!=", "<", "<=", ">", ">="};
    for (const char* op : kCompare) {
      if (IsPunct(op)) {
        Advance();
        auto e = std::make_unique<Expr>();
        e->kind = Expr::Kind::kCompare;
        e->op = std::string(op) == "!=" ? "<>" : op;
        e->args.push_back(std::move(lhs));
        ExprPtr rhs;
        if (!ParseOperand(&rhs, depth)) return false;
        e->args.push_back(std::move(rhs));
        *out = std::move(e);
        return true;
      }
    }
    if (Keyword("BETWEEN")) {
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kBetween;
      e->args.push_back(std::move(lhs));
      ExprPtr lo, hi;
      if (!ParseOperand(&lo, depth) || !ExpectKeyword("AND") || !ParseOperand(&hi, depth)) {
        return false;
      }
      e->args.push_back(std::move(lo));
      e->args.push_back(std::move(hi));
      *out = std::move(e);
      return true;
    }
    if (Keyword("IN")) {
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kIn;
      e->args.push_back(std::move(lhs));
      static const char* kInShape =
          "IN operator must have a left hand argument of type Variable Reference and right hand "
          "argument of type Seq with at least one member";
      if (IsPunct("?") || ((IsPunct("[") || IsPunct("(")) && t_[pos_ + 1].kind == Tok::kPunct &&
                           (t_[pos_ + 1].text == "]" || t_[pos_ + 1].text == ")"))) {
        return Fail(ValidationError(kInShape));
      }
      std::string close = IsPunct("[") ? "]" : ")";
      if (!Punct("[") && !Expect("(")) return false;
      if (IsKeyword("SELECT")) {
        return Fail(ValidationError("IN operator must have a left hand argument of type Variable "
                                    "Reference and right hand argument of type Seq with at least "
                                    "one member"));
      }
      do {
        ExprPtr item;
        if (!ParseOperand(&item, depth)) return false;
        e->args.push_back(std::move(item));
      } while (Punct(","));
      if (!Expect(close)) return false;
      *out = std::move(e);
      return true;
    }
    if (Keyword("IS")) {
      auto e = std::make_unique<Expr>();
      e->negated = Keyword("NOT");
      if (Keyword("MISSING")) {
        e->kind = Expr::Kind::kIsMissing;
      } else if (Keyword("NULL")) {
        e->kind = Expr::Kind::kIsNull;
      } else {
        return Fail(Syntax("Expected MISSING or NULL at " + Where()));
      }
      e->args.push_back(std::move(lhs));
      *out = std::move(e);
      return true;
    }
    // A bare operand: a function call used as a condition (begins_with, ...).
    if (lhs->kind == Expr::Kind::kCall) {
      *out = std::move(lhs);
      return true;
    }
    return Unexpected();
  }

  // ------------------------------------------------------------ operands

  bool ParseOperand(ExprPtr* out, int depth = 0) {
    if (!Depth(depth) || !ParseTerm(out, depth)) return false;
    while (IsPunct("+") || IsPunct("-")) {
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kArith;
      e->op = Cur().text;
      Advance();
      e->args.push_back(std::move(*out));
      ExprPtr rhs;
      if (!ParseTerm(&rhs, depth)) return false;
      e->args.push_back(std::move(rhs));
      *out = std::move(e);
    }
    return true;
  }

  bool ParseTerm(ExprPtr* out, int depth) {
    auto e = std::make_unique<Expr>();
    const Token& c = Cur();
    if (c.kind == Tok::kIdent && t_[pos_ + 1].kind == Tok::kPunct && t_[pos_ + 1].text == "(") {
      // A function call.
      e->kind = Expr::Kind::kCall;
      e->op = c.text;
      for (char& ch : e->op) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      static const char* kFunctions[] = {"begins_with", "contains", "attribute_type", "size",
                                         "list_append", "set_add", "set_delete", "exists",
                                         "missing"};
      if (std::none_of(std::begin(kFunctions), std::end(kFunctions),
                       [&](const char* f) { return e->op == f; })) {
        return Fail(ValidationError("Unrecognized function: " + c.text));
      }
      Advance();
      Advance();
      if (IsKeyword("SELECT")) {
        return Fail(ValidationError("Unsupported token in expression: SELECT at " + Position()));
      }
      if (!IsPunct(")")) {
        do {
          ExprPtr arg;
          if (!ParseOperand(&arg, depth + 1)) return false;
          e->args.push_back(std::move(arg));
        } while (Punct(","));
      }
      if (!Expect(")")) return false;
      *out = std::move(e);
      return true;
    }
    if ((c.kind == Tok::kIdent && !IsLiteralKeyword()) || c.kind == Tok::kQuoted) {
      e->kind = Expr::Kind::kPath;
      if (!ParsePath(&e->path)) return false;
      *out = std::move(e);
      return true;
    }
    e->kind = Expr::Kind::kValue;
    if (params_ == nullptr && IsPunct("?")) {
      e->param = static_cast<int>(next_param_++);
      Advance();
    } else if (!ParseValue(&e->value)) {
      return false;
    }
    *out = std::move(e);
    return true;
  }

  bool IsLiteralKeyword() const {
    return IsKeyword("TRUE") || IsKeyword("FALSE") || IsKeyword("NULL") || IsKeyword("MISSING");
  }

  // ------------------------------------------------------------ values

  bool Number(bool negative, AttributeValue* out) {
    std::string text = (negative ? "-" : "") + Cur().text;
    auto normalized = NormalizeNumber(text);
    if (!normalized.ok()) return Fail(ValidationError(normalized.status().message()));
    // -0 is 0, but a negative zero written as a decimal (-0.0, -0e1) is refused.
    if (negative && *normalized == "0" &&
        Cur().text.find_first_of(".eE") != std::string::npos) {
      return Fail(ValidationError("Negative zero decimal is not supported under key root at " +
                                  Position()));
    }
    *out = AttributeValue::N(*normalized);
    Advance();
    return true;
  }

  bool ParseValue(AttributeValue* out, int depth = 0) {
    if (depth > 32) return Fail(Syntax("The statement is nested too deeply"));
    const Token& c = Cur();
    if (c.kind == Tok::kString) {
      *out = AttributeValue::S(c.text);
      Advance();
      return true;
    }
    if (c.kind == Tok::kNumber) return Number(false, out);
    if (IsPunct("-") && t_[pos_ + 1].kind == Tok::kNumber) {
      Advance();
      return Number(true, out);
    }
    if (IsPunct("?")) {
      if (params_ == nullptr) {  // a template: only operands take slots
        value_slot_ = true;
        *out = AttributeValue::Null();
        ++next_param_;
      } else if (next_param_ >= params_->size()) {
        return Fail(ValidationError("Number of parameters in request and statement don't match."));
      } else {
        *out = (*params_)[next_param_++];
      }
      Advance();
      return true;
    }
    if (Keyword("TRUE")) {
      *out = AttributeValue::Bool(true);
      return true;
    }
    if (Keyword("FALSE")) {
      *out = AttributeValue::Bool(false);
      return true;
    }
    if (Keyword("NULL")) {
      *out = AttributeValue::Null();
      return true;
    }
    if (IsKeyword("MISSING")) return Fail(ValidationError("MISSING must be compared using IS operator"));
    if (Punct("{")) {
      Item m;
      if (!IsPunct("}")) {
        do {
          std::string key;
          std::string key_at;
          if (Cur().kind == Tok::kString) {
            key = Cur().text;
            key_at = Position();
            Advance();
          } else if (Cur().kind == Tok::kQuoted || Cur().kind == Tok::kIdent) {
            return Fail(ValidationError("Tuple keys must be of type String. Actual type: "
                                        "VariableReference under root at " + Position()));
          } else {
            return Fail(Syntax("Expected a 'string' key at " + Where()));
          }
          AttributeValue v;
          if (!Expect(":")) return false;
          if (depth == 0 && insert_slots_ != nullptr && params_ == nullptr && IsPunct("?")) {
            insert_slots_->emplace_back(key, next_param_++);  // filled at execution
            Advance();
          } else if (!ParseValue(&v, depth + 1)) {
            return false;
          }
          if (m.contains(key)) {
            return Fail(ValidationError("Duplicate keys in tuple. Key: " + key + " under root at " +
                                        key_at));
          }
          m.emplace(std::move(key), std::move(v));
        } while (Punct(","));
      }
      if (!Expect("}")) return false;
      *out = AttributeValue::M(std::move(m));
      return true;
    }
    if (Punct("[")) {
      std::vector<AttributeValue> list;
      if (!IsPunct("]")) {
        do {
          AttributeValue v;
          if (!ParseValue(&v, depth + 1)) return false;
          list.push_back(std::move(v));
        } while (Punct(","));
      }
      if (!Expect("]")) return false;
      *out = AttributeValue::L(std::move(list));
      return true;
    }
    if (IsPunct("<<")) {
      const std::string bag_at = Position();
      Advance();
      std::vector<AttributeValue> elems;
      if (!IsPunct(">>")) {
        do {
          AttributeValue v;
          if (!ParseValue(&v, depth + 1)) return false;
          elems.push_back(std::move(v));
        } while (Punct(","));
      }
      if (!Expect(">>")) return false;
      if (elems.empty()) return Fail(ValidationError("Empty bags are not supported at " + bag_at));
      std::vector<std::string> set;
      AttrType type = elems[0].type();
      for (const auto& v : elems) {
        if (v.type() != type || !(type == AttrType::kS || type == AttrType::kN || type == AttrType::kB)) {
          return Fail(ValidationError("Unsupported data type in Bag. DynamoDB only supports either "
                                      "numbers or strings in bags"));
        }
        set.push_back(v.scalar());
      }
      *out = type == AttrType::kN   ? AttributeValue::NS(std::move(set))
             : type == AttrType::kB ? AttributeValue::BS(std::move(set))
                                    : AttributeValue::SS(std::move(set));
      return true;
    }
    return Unexpected();
  }

  std::vector<Token> t_;
  const std::vector<AttributeValue>* params_;
  size_t pos_ = 0;
  size_t next_param_ = 0;
  bool value_slot_ = false;
  // While parsing an INSERT's tuple in a template: its `?` members.
  std::vector<std::pair<std::string, size_t>>* insert_slots_ = nullptr;
  std::optional<Status> error_;
};

}  // namespace

StatusOr<Statement> ParseStatement(std::string_view text,
                                   const std::vector<AttributeValue>& parameters) {
  if (text.size() > kStatementCharsMax) {
    return ValidationError("1 validation error detected: Value at 'statement' failed to satisfy "
                           "constraint: Member must have length less than or equal to 8192");
  }
  DR_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  Parser p(std::move(tokens), &parameters);
  return p.Parse();
}

std::optional<Statement> ParseTemplate(std::string_view text) {
  if (text.size() > kStatementCharsMax) return std::nullopt;
  auto tokens = Tokenize(text);
  if (!tokens.ok()) return std::nullopt;
  Parser p(std::move(*tokens), nullptr);
  auto st = p.Parse();
  if (!st.ok() || p.value_slot()) return std::nullopt;
  return std::move(*st);
}

}  // namespace dynarock::partiql
