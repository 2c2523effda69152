// File: engine/partiql/lexer.cc
//
// See lexer.h.

#include "engine/partiql/lexer.h"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace dynarock::partiql {

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// PartiQL's reserved words (partiql.org's list, with the type names
// DynamoDB's parser also reserves): as a bare identifier they are a syntax
// error; "quoted" they are names like any other. Sorted, upper case.
constexpr std::string_view kReserved[] = {
    "ABSOLUTE", "ACTION", "ADD", "ALL", "ALLOCATE", "ALTER", "AND", "ANY", "ARE", "AS", "ASC",
    "ASSERTION", "AT", "AUTHORIZATION", "AVG", "BAG", "BEGIN", "BETWEEN", "BIT", "BIT_LENGTH",
    "BLOB", "BOOL", "BOOLEAN", "BY", "CASCADE", "CASCADED", "CASE", "CAST", "CATALOG", "CHAR",
    "CHARACTER", "CHARACTER_LENGTH", "CHAR_LENGTH", "CHECK", "CLOB", "CLOSE", "COALESCE",
    "COLLATE", "COLLATION", "COLUMN", "COMMIT", "CONFLICT", "CONNECT", "CONNECTION", "CONSTRAINT",
    "CONSTRAINTS", "CONTINUE", "CONVERT", "CORRESPONDING", "COUNT", "CREATE", "CROSS", "CURRENT",
    "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "CURRENT_USER", "CURSOR", "DATE",
    "DATE_ADD", "DATE_DIFF", "DEALLOCATE", "DEC", "DECIMAL", "DECLARE", "DEFAULT", "DEFERRABLE",
    "DEFERRED", "DELETE", "DESC", "DESCRIBE", "DESCRIPTOR", "DIAGNOSTICS", "DISCONNECT",
    "DISTINCT", "DO", "DOMAIN", "DOUBLE", "DROP", "ELSE", "END", "END_EXEC", "ESCAPE", "EXCEPT",
    "EXCEPTION", "EXCLUDED", "EXEC", "EXECUTE", "EXISTS", "EXPLAIN", "EXTERNAL", "EXTRACT",
    "FALSE", "FETCH", "FIRST", "FLOAT", "FOR", "FOREIGN", "FOUND", "FROM", "FULL", "GET",
    "GLOBAL", "GO", "GOTO", "GRANT", "GROUP", "HAVING", "IDENTITY", "IMMEDIATE", "IN", "INDEX",
    "INDICATOR", "INITIALLY", "INNER", "INPUT", "INSENSITIVE", "INSERT", "INT", "INTEGER",
    "INTERSECT", "INTERVAL", "INTO", "IS", "ISOLATION", "JOIN", "KEY", "LAG", "LANGUAGE", "LAST",
    "LATERAL", "LEAD", "LEFT", "LET", "LEVEL", "LIKE", "LIMIT", "LIST", "LOCAL", "LOWER", "MATCH",
    "MAX", "MIN", "MISSING", "MODIFIED", "MODULE", "NAMES", "NATIONAL", "NATURAL", "NCHAR", "NEW",
    "NEXT", "NO", "NOT", "NOTHING", "NULL", "NULLIF", "NULLS", "NUMERIC", "OCTET_LENGTH", "OF",
    "OFFSET", "OLD", "ON", "ONLY", "OPEN", "OPTION", "OR", "ORDER", "OUTER", "OUTPUT", "OVER",
    "OVERLAPS", "OVERLAY", "PAD", "PARTIAL", "PARTITION", "PIVOT", "PLACING", "POSITION",
    "PRECISION", "PREPARE", "PRESERVE", "PRIMARY", "PRIOR", "PRIVILEGES", "PROCEDURE", "PUBLIC",
    "READ", "REAL", "REFERENCES", "RELATIVE", "REMOVE", "REPLACE", "RESTRICT", "RETURNING",
    "REVOKE", "RIGHT", "ROLLBACK", "ROWS", "SCHEMA", "SCROLL", "SECTION", "SELECT", "SESSION",
    "SESSION_USER", "SET", "SEXP", "SHORTEST", "SIZE", "SMALLINT", "SOME", "SPACE", "SQL",
    "SQLCODE", "SQLERROR", "SQLSTATE", "STRING", "STRUCT", "SUBSTRING", "SUM", "SYSTEM_USER",
    "TABLE", "TEMPORARY", "THEN", "TIME", "TIMESTAMP", "TO", "TRANSACTION", "TRANSLATE",
    "TRANSLATION", "TRIM", "TRUE", "TUPLE", "UNION", "UNIQUE", "UNKNOWN", "UNPIVOT", "UPDATE",
    "UPPER", "UPSERT", "USAGE", "USER", "USING", "VALUE", "VALUES", "VARCHAR", "VARYING", "VIEW",
    "WHEN", "WHENEVER", "WHERE", "WITH", "WORK", "WRITE", "ZONE"};

static_assert(std::is_sorted(std::begin(kReserved), std::end(kReserved)));

}  // namespace

Status Syntax(const std::string& what) {
  return ValidationError("Statement wasn't well formed, can't be processed: " + what);
}

StatusOr<std::vector<Token>> Tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {  // -- comment to end of line
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {  // /* comment */
      size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) {
        return Syntax("Unterminated comment at position " + std::to_string(i + 1));
      }
      i = end + 2;
      continue;
    }
    Token t;
    t.pos = i;
    if (IsIdentStart(c)) {
      size_t j = i;
      while (j < s.size() && IsIdentChar(s[j])) ++j;
      t.kind = Tok::kIdent;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (c == '"' || c == '\'') {
      std::string text;
      size_t j = i + 1;
      bool closed = false;
      while (j < s.size()) {
        if (s[j] == c) {
          if (j + 1 < s.size() && s[j + 1] == c) {  // doubled quote
            text.push_back(c);
            j += 2;
            continue;
          }
          closed = true;
          ++j;
          break;
        }
        text.push_back(s[j++]);
      }
      if (!closed) {
        return Syntax(std::string("Unterminated ") + (c == '"' ? "quoted identifier" : "string") +
                      " at position " + std::to_string(i + 1));
      }
      t.kind = c == '"' ? Tok::kQuoted : Tok::kString;
      t.text = std::move(text);
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && s[j] == '.') {
        ++j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
          j = k;
          while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        }
      }
      t.kind = Tok::kNumber;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else {
      static const char* kTwo[] = {"<>", "!=", "<=", ">=", "<<", ">>"};
      t.kind = Tok::kPunct;
      for (const char* two : kTwo) {
        if (s.substr(i, 2) == two) t.text = two;
      }
      if (t.text.empty()) {
        if (std::string_view("*,.()[]{}:?=<>+-;").find(c) == std::string_view::npos) {
          return Syntax("Unexpected character '" + std::string(1, c) + "' at position " +
                        std::to_string(i + 1));
        }
        t.text = std::string(1, c);
      }
      i += t.text.size();
    }
    t.len = i - t.pos;
    out.push_back(std::move(t));
  }
  Token end;
  end.pos = s.size();
  out.push_back(end);
  return out;
}

bool IsReserved(std::string_view word) {
  if (word.size() > 20) return false;
  char upper[21];
  for (size_t i = 0; i < word.size(); ++i) {
    upper[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(word[i])));
  }
  return std::binary_search(std::begin(kReserved), std::end(kReserved),
                            std::string_view(upper, word.size()));
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace dynarock::partiql
