// File: engine/expr/parser.cc
//
// The expression parser's shared parts: errors, paths, operands, function
// calls, ProjectionExpression and the public entry points. Conditions are in
// parser_conditions.cc, updates in parser_updates.cc. See parser.h for the grammar. The error texts are DynamoDB's; where DynamoDB
// reports several problems of one expression, it reports them in a fixed order
// of categories (see the *Order() tables below), which we mirror by collecting
// the first message of each category while parsing.

#include "engine/expr/parser.h"

#include <algorithm>
#include <utility>

namespace dynarock::expr {
namespace {

struct FunctionEntry {
  std::string_view name;
  FunctionId id;
  bool in_condition;
  int arity;
};

constexpr FunctionEntry kFunctions[] = {
    {"attribute_exists", FunctionId::kAttributeExists, true, 1},
    {"attribute_not_exists", FunctionId::kAttributeNotExists, true, 1},
    {"attribute_type", FunctionId::kAttributeType, true, 2},
    {"begins_with", FunctionId::kBeginsWith, true, 2},
    {"contains", FunctionId::kContains, true, 2},
    {"size", FunctionId::kSize, true, 1},
    {"if_not_exists", FunctionId::kIfNotExists, false, 2},
    {"list_append", FunctionId::kListAppend, false, 2},
};

const FunctionEntry* FindFunction(FunctionId id) {
  for (const auto& f : kFunctions) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

// DynamoDB accepts list indexes up to 2^32 - 2 (past the end of a list, a SET
// appends); larger ones are out of range.
constexpr int64_t kMaxListIndex = 4294967294;

bool ParseIndex(std::string_view digits, int64_t* out) {
  int64_t v = 0;
  for (char c : digits) {
    v = v * 10 + (c - '0');
    if (v > kMaxListIndex) return false;
  }
  *out = v;
  return true;
}


}  // namespace

// Finds the first overlapping pair and the first conflicting pair of paths,
// comparing each path with those before it, as DynamoDB does.
void FindPathClashes(const std::vector<const Path*>& paths, std::string* overlap,
                     std::string* conflict) {
  for (size_t j = 1; j < paths.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      const Path& a = *paths[i];
      const Path& b = *paths[j];
      const size_t n = std::min(a.size(), b.size());
      bool diverged = false;
      bool clash_kind = false;
      for (size_t k = 0; k < n; ++k) {
        if (a[k].is_index != b[k].is_index) {
          clash_kind = true;
          break;
        }
        if (!(a[k] == b[k])) {
          diverged = true;
          break;
        }
      }
      std::string pair = "path one: " + PathToBracketString(a) +
                         ", path two: " + PathToBracketString(b);
      if (clash_kind) {
        if (conflict->empty()) {
          *conflict = "Two document paths conflict with each other; must remove or rewrite one "
                      "of these paths; " + pair;
        }
      } else if (!diverged) {
        if (overlap->empty()) {
          *overlap = "Two document paths overlap with each other; must remove or rewrite one of "
                     "these paths; " + pair;
        }
      }
      if (!overlap->empty()) return;
    }
  }
}

// ---------------------------------------------------------------- AST helpers

std::string_view FunctionName(FunctionId id) {
  const FunctionEntry* f = FindFunction(id);
  return f ? f->name : "";
}

std::string_view CompareOpName(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return "=";
    case CompareOp::kNe: return "<>";
    case CompareOp::kLt: return "<";
    case CompareOp::kLe: return "<=";
    case CompareOp::kGt: return ">";
    case CompareOp::kGe: return ">=";
  }
  return "";
}

std::string PathToBracketString(const Path& path) {
  std::string out = "[";
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out += ", ";
    if (path[i].is_index) {
      out += "[" + std::to_string(path[i].index) + "]";
    } else {
      out += path[i].name;
    }
  }
  out += "]";
  return out;
}

int ComparePaths(const Path& a, const Path& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (a[i].is_index != b[i].is_index) return a[i].is_index ? 1 : -1;
    if (a[i].is_index) {
      if (a[i].index != b[i].index) return a[i].index < b[i].index ? -1 : 1;
    } else {
      const int c = a[i].name.compare(b[i].name);
      if (c != 0) return c < 0 ? -1 : 1;
    }
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

Status CheckPathsDisjoint(const std::vector<const Path*>& paths, ExpressionKind kind) {
  std::string overlap;
  std::string conflict;
  FindPathClashes(paths, &overlap, &conflict);
  const std::string& message = overlap.empty() ? conflict : overlap;
  if (message.empty()) return Status::Ok();
  return ValidationError("Invalid " + std::string(ExpressionKindName(kind)) + ": " + message);
}

// ---------------------------------------------------------------- Parser basics

Parser::Parser(std::string_view text, ExpressionKind kind, ExpressionContext* ctx)
    : text_(text), kind_(kind), ctx_(ctx) {}

Status Parser::Prefixed(std::string_view message) const {
  return ValidationError("Invalid " + std::string(ExpressionKindName(kind_)) + ": " +
                         std::string(message));
}

Status Parser::CheckPreconditions() const {
  if (text_.size() > kMaxExpressionBytes) {
    // DynamoDB gives the size for condition and filter expressions only.
    if (kind_ == ExpressionKind::kCondition || kind_ == ExpressionKind::kFilter) {
      return Prefixed("Expression size has exceeded the maximum allowed size; expression size: " +
                      std::to_string(text_.size()));
    }
    return Prefixed("Expression size has exceeded the maximum allowed size;");
  }
  const bool blank = std::all_of(text_.begin(), text_.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  });
  if (blank) return Prefixed("The expression can not be empty;");
  return Status::Ok();
}

bool Parser::Fail() {
  if (fatal_) return false;
  // DynamoDB quotes the offending token and the text from the token before it
  // to the token after it: `Syntax error; token: "=", near: "= = :v"`.
  const Token& t = tokens_[pos_];
  const size_t start = pos_ > 0 ? tokens_[pos_ - 1].offset : t.offset;
  size_t end = t.kind == TokenKind::kEof && pos_ > 0
                   ? tokens_[pos_ - 1].offset + tokens_[pos_ - 1].length
                   : t.offset + t.length;
  if (pos_ + 1 < tokens_.size() && tokens_[pos_ + 1].kind != TokenKind::kEof) {
    end = tokens_[pos_ + 1].offset + tokens_[pos_ + 1].length;
  }
  const std::string token = t.kind == TokenKind::kEof ? "<EOF>" : std::string(t.text);
  fatal_ = Prefixed("Syntax error; token: \"" + token + "\", near: \"" +
                    std::string(text_.substr(start, end - start)) + "\"");
  return false;
}

bool Parser::Fail(std::string message) {
  if (!fatal_) fatal_ = Prefixed(message);
  return false;
}

bool Parser::Expect(TokenKind kind) {
  if (!At(kind)) return Fail();
  Advance();
  return true;
}

bool Parser::CountOperator() {
  if (++operators_ > kMaxOperators) {
    return Fail("The expression contains too many operators; operator count: " +
                std::to_string(operators_));
  }
  return true;
}

bool Parser::CheckDepth(int depth) {
  if (depth > kMaxNestingDepth) {
    // Not a DynamoDB rule: our bound on recursion (see ast.h).
    return Fail("The expression has too many nested levels; maximum: " +
                std::to_string(kMaxNestingDepth));
  }
  return true;
}

void Parser::CheckRedundantParens(size_t open, size_t close) {
  if (close <= open + 2 || tokens_[open + 1].kind != TokenKind::kLParen ||
      tokens_[close - 1].kind != TokenKind::kRParen) {
    return;
  }
  // Does the '(' after ours close right before our ')'?
  int depth = 0;
  for (size_t i = open + 1; i < close; ++i) {
    if (tokens_[i].kind == TokenKind::kLParen) ++depth;
    if (tokens_[i].kind == TokenKind::kRParen && --depth == 0) {
      if (i == close - 1) Note(kRedundantParens, "The expression has redundant parentheses;");
      return;
    }
  }
}

void Parser::CheckOrderable(std::string_view op, const std::vector<Operand>& operands) {
  // < <= > >= and BETWEEN order S, N and B only: a literal of another type can
  // never compare, and DynamoDB refuses it outright.
  for (const auto& operand : operands) {
    if (operand.kind == OperandKind::kValue && !IsOrderable(operand.value)) {
      Note(kOperandType, "Incorrect operand type for operator or function; operator or "
                         "function: " + std::string(op) + ", operand type: " +
                         std::string(AttrTypeName(operand.value.type())));
      return;
    }
  }
}

void Parser::Note(ErrorCategory category, std::string message) {
  if (errors_[category]) return;
  errors_[category] = std::move(message);
  noted_at_[category] = notes_++;
}

Status Parser::FinalError(const std::vector<ErrorCategory>& order,
                          const std::vector<ErrorCategory>& in_text_order) const {
  for (ErrorCategory c : order) {
    if (errors_[c]) return Prefixed(*errors_[c]);
  }
  const std::optional<std::string>* first = nullptr;
  int first_at = 0;
  for (ErrorCategory c : in_text_order) {
    if (errors_[c] && (first == nullptr || noted_at_[c] < first_at)) {
      first = &errors_[c];
      first_at = noted_at_[c];
    }
  }
  if (first) return Prefixed(**first);
  return Status::Ok();
}

bool Parser::IsGrammarKeyword(const Token& token) const {
  if (token.kind != TokenKind::kIdentifier) return false;
  static constexpr std::string_view kConditionWords[] = {"AND", "OR", "NOT", "BETWEEN", "IN"};
  static constexpr std::string_view kUpdateWords[] = {"SET", "REMOVE", "ADD", "DELETE"};
  if (kind_ == ExpressionKind::kUpdate) {
    for (auto w : kUpdateWords) {
      if (IsKeyword(token, w)) return true;
    }
    return false;
  }
  if (kind_ == ExpressionKind::kProjection) return false;
  for (auto w : kConditionWords) {
    if (IsKeyword(token, w)) return true;
  }
  return false;
}

// ---------------------------------------------------------------- paths and operands

bool Parser::ParsePathElementName(PathElement* out) {
  out->is_index = false;
  if (At(TokenKind::kName)) {
    auto name = ctx_->ResolveName(Cur().text);
    if (name.ok()) {
      out->name = std::move(name).value();
    } else {
      Note(kUndefined, name.status().message());
      out->name = std::string(Cur().text);
    }
    Advance();
    return true;
  }
  if (At(TokenKind::kIdentifier) && !IsGrammarKeyword(Cur())) {
    if (IsReservedWord(Cur().text)) {
      Note(kReserved, "Attribute name is a reserved keyword; reserved keyword: " +
                          std::string(Cur().text));
    }
    out->name = std::string(Cur().text);
    Advance();
    return true;
  }
  return Fail();
}

bool Parser::ParsePath(Path* out) {
  PathElement first;
  if (!ParsePathElementName(&first)) return false;
  out->push_back(std::move(first));
  while (true) {
    if (At(TokenKind::kDot)) {
      Advance();
      PathElement e;
      if (!ParsePathElementName(&e)) return false;
      out->push_back(std::move(e));
    } else if (At(TokenKind::kLBracket)) {
      Advance();
      PathElement e;
      e.is_index = true;
      if (!At(TokenKind::kNumber)) return Fail();
      if (!ParseIndex(Cur().text, &e.index)) {
        return Fail("List index is not within the allowable range; index: [" +
                    std::string(Cur().text) + "]");
      }
      Advance();
      if (!Expect(TokenKind::kRBracket)) return false;
      out->push_back(std::move(e));
    } else {
      return true;
    }
  }
}

bool Parser::ParseOperand(int depth, Operand* out) {
  if (!CheckDepth(depth)) return false;
  if (At(TokenKind::kLParen)) {
    const size_t open = pos_;
    Advance();
    if (!ParseOperand(depth + 1, out)) return false;
    CheckRedundantParens(open, pos_);
    return Expect(TokenKind::kRParen);
  }
  if (At(TokenKind::kValue)) {
    out->kind = OperandKind::kValue;
    auto value = ctx_->ResolveValue(Cur().text);
    if (value.ok()) {
      out->value = **value;
    } else {
      Note(kUndefined, value.status().message());
    }
    Advance();
    return true;
  }
  if (At(TokenKind::kIdentifier) && tokens_[pos_ + 1].kind == TokenKind::kLParen &&
      !IsGrammarKeyword(Cur())) {
    return ParseFunctionCall(depth, out);
  }
  if (At(TokenKind::kIdentifier) || At(TokenKind::kName)) {
    out->kind = OperandKind::kPath;
    return ParsePath(&out->path);
  }
  return Fail();
}

bool Parser::ParseFunctionCall(int depth, Operand* out) {
  if (!CheckDepth(depth + 1)) return false;
  const std::string name(Cur().text);
  Advance();  // name
  Advance();  // '('
  if (!CountOperator()) return false;
  out->kind = OperandKind::kFunction;
  while (true) {
    Operand arg;
    if (!ParseOperand(depth + 1, &arg)) return false;
    out->args.push_back(std::move(arg));
    if (!At(TokenKind::kComma)) break;
    Advance();
  }
  if (!Expect(TokenKind::kRParen)) return false;

  const bool update = kind_ == ExpressionKind::kUpdate;
  const FunctionEntry* entry = nullptr;
  for (const auto& f : kFunctions) {
    if (f.name == name && f.in_condition != update) entry = &f;
  }
  if (entry == nullptr) {
    Note(kUnknownFunction, "Invalid function name; function: " + name);
    out->function = update ? FunctionId::kIfNotExists : FunctionId::kContains;
    return true;
  }
  out->function = entry->id;
  if (static_cast<int>(out->args.size()) != entry->arity) {
    Note(kOperandCount, "Incorrect number of operands for operator or function; operator or "
                        "function: " + name + ", number of operands: " +
                        std::to_string(out->args.size()));
    return true;
  }
  if (update) {
    CheckUpdateFunction(*out);
  } else {
    CheckConditionFunction(*out);
  }
  return true;
}

// ---------------------------------------------------------------- projections

StatusOr<std::vector<Path>> Parser::ParseProjectionExpression() {
  DR_RETURN_IF_ERROR(CheckPreconditions());
  tokens_ = Tokenize(text_);
  std::vector<Path> paths;
  while (true) {
    Path p;
    if (!ParsePath(&p)) return *fatal_;
    paths.push_back(std::move(p));
    if (!At(TokenKind::kComma)) break;
    Advance();
  }
  if (!At(TokenKind::kEof)) {
    Fail();
    return *fatal_;
  }
  std::vector<const Path*> ptrs;
  ptrs.reserve(paths.size());
  for (const auto& p : paths) ptrs.push_back(&p);
  std::string overlap;
  std::string conflict;
  FindPathClashes(ptrs, &overlap, &conflict);
  if (!overlap.empty()) Note(kOverlap, overlap);
  if (!conflict.empty()) Note(kConflict, conflict);
  DR_RETURN_IF_ERROR(FinalError({kReserved, kUndefined, kOverlap, kConflict}));
  return paths;
}

// ---------------------------------------------------------------- public entry points

Status CheckExpressionText(std::string_view text, ExpressionKind kind) {
  return Parser(text, kind, nullptr).CheckPreconditions();
}

StatusOr<ConditionPtr> ParseCondition(std::string_view text, ExpressionKind kind,
                                      ExpressionContext* ctx) {
  Parser parser(text, kind, ctx);
  DR_ASSIGN_OR_RETURN(std::unique_ptr<Condition> cond, parser.ParseConditionExpression());
  return ConditionPtr(std::move(cond));
}

// KeyConditionExpression: parsed as a condition, then checked for the shapes a
// key condition allows. These messages carry no "Invalid KeyConditionExpression:"
// prefix, as DynamoDB sends them.
StatusOr<std::vector<KeyTerm>> ParseKeyCondition(std::string_view text, ExpressionContext* ctx) {
  Parser parser(text, ExpressionKind::kKeyCondition, ctx);
  DR_ASSIGN_OR_RETURN(std::unique_ptr<Condition> root, parser.ParseConditionExpression());
  auto invalid_operator = [](std::string_view op) {
    return ValidationError("Invalid operator used in KeyConditionExpression: " + std::string(op));
  };
  std::vector<KeyTerm> terms;
  // Pre-order walk over the AND tree with an explicit stack.
  std::vector<const Condition*> stack = {root.get()};
  while (!stack.empty()) {
    const Condition* c = stack.back();
    stack.pop_back();
    switch (c->kind) {
      case ConditionKind::kAnd:
        for (auto it = c->children.rbegin(); it != c->children.rend(); ++it) {
          stack.push_back(it->get());
        }
        continue;
      case ConditionKind::kOr: return invalid_operator("OR");
      case ConditionKind::kNot: return invalid_operator("NOT");
      case ConditionKind::kIn: return invalid_operator("IN");
      case ConditionKind::kCompare:
        if (c->op == CompareOp::kNe) return invalid_operator("<>");
        break;
      case ConditionKind::kFunction:
        if (c->function != FunctionId::kBeginsWith) {
          return invalid_operator(FunctionName(c->function));
        }
        break;
      case ConditionKind::kBetween:
        break;
    }
    const bool between = c->kind == ConditionKind::kBetween;
    const bool begins = c->kind == ConditionKind::kFunction;
    if ((between || begins) && c->operands[0].kind != OperandKind::kPath) {
      return ValidationError("Invalid condition in KeyConditionExpression: " +
                             std::string(between ? "BETWEEN" : "begins_with") +
                             " operator must have the key attribute as its first operand");
    }
    const Operand* key = nullptr;
    size_t key_index = 0;
    for (size_t i = 0; i < c->operands.size(); ++i) {
      const Operand& op = c->operands[i];
      if (op.kind == OperandKind::kFunction) {
        return ValidationError("KeyConditionExpressions cannot contain nested operations");
      }
      if (op.kind != OperandKind::kPath) continue;
      if (key != nullptr) {
        return ValidationError(
            "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
            "condition");
      }
      if (op.path.size() > 1) {
        return ValidationError("KeyConditionExpressions cannot have conditions on nested attributes");
      }
      key = &op;
      key_index = i;
    }
    if (key == nullptr) {
      return ValidationError("Invalid condition in KeyConditionExpression: No key attribute specified");
    }
    KeyTerm term;
    term.attribute_name = key->path[0].name;
    for (const auto& t : terms) {
      if (t.attribute_name == term.attribute_name) {
        return ValidationError("KeyConditionExpressions must only contain one condition per key");
      }
    }
    if (between) {
      term.op = KeyOp::kBetween;
      term.value1 = c->operands[1].value;
      term.value2 = c->operands[2].value;
    } else if (begins) {
      term.op = KeyOp::kBeginsWith;
      term.value1 = c->operands[1].value;
    } else {
      // `:v < k` is `k > :v`.
      const bool flipped = key_index != 0;
      switch (c->op) {
        case CompareOp::kEq: term.op = KeyOp::kEq; break;
        case CompareOp::kLt: term.op = flipped ? KeyOp::kGt : KeyOp::kLt; break;
        case CompareOp::kLe: term.op = flipped ? KeyOp::kGe : KeyOp::kLe; break;
        case CompareOp::kGt: term.op = flipped ? KeyOp::kLt : KeyOp::kGt; break;
        case CompareOp::kGe: term.op = flipped ? KeyOp::kLe : KeyOp::kGe; break;
        case CompareOp::kNe: break;  // rejected above
      }
      term.value1 = c->operands[flipped ? 0 : 1].value;
    }
    terms.push_back(std::move(term));
  }
  return terms;
}

StatusOr<UpdatePlanPtr> ParseUpdate(std::string_view text, ExpressionContext* ctx) {
  Parser parser(text, ExpressionKind::kUpdate, ctx);
  DR_ASSIGN_OR_RETURN(UpdatePlan plan, parser.ParseUpdateExpression());
  return UpdatePlanPtr(std::make_shared<const UpdatePlan>(std::move(plan)));
}

StatusOr<ProjectionSpec> ParseProjection(std::string_view text, ExpressionContext* ctx) {
  Parser parser(text, ExpressionKind::kProjection, ctx);
  ProjectionSpec spec;
  DR_ASSIGN_OR_RETURN(spec.paths, parser.ParseProjectionExpression());
  return spec;
}

}  // namespace dynarock::expr
