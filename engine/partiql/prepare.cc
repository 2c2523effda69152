// File: engine/partiql/prepare.cc
//
// The statement template cache (prepare.h): least recently used statements
// leave first; a mutex guards it (a lookup is a hash of the text and a list
// splice), and one per template guards its memo.

#include "engine/partiql/prepare.h"

#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "engine/partiql/parser.h"

namespace dynarock::partiql {

struct PlanMemo {
  std::mutex mu;
  std::shared_ptr<const TablePlan> last;  // GUARDED_BY(mu)
};

namespace {

struct Template {
  std::shared_ptr<const Statement> statement;
  std::shared_ptr<PlanMemo> memo;
};

class TemplateCache {
 public:
  std::optional<Template> Find(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_text_.find(text);
    if (it == by_text_.end()) return std::nullopt;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  void Insert(const std::string& text, Template st) {
    std::lock_guard<std::mutex> lock(mu_);
    if (by_text_.contains(text)) return;
    order_.emplace_front(text, std::move(st));
    by_text_.emplace(text, order_.begin());
    while (order_.size() > kPreparedStatementsMax) {
      by_text_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return order_.size();
  }

 private:
  using Entry = std::pair<std::string, Template>;
  std::mutex mu_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_text_;
};

TemplateCache& Templates() {
  static TemplateCache* cache = new TemplateCache();  // never destroyed: used at exit
  return *cache;
}

}  // namespace

StatusOr<Prepared> Prepare(const std::string& text, const std::vector<AttributeValue>& params) {
  std::optional<Template> t = Templates().Find(text);
  if (!t) {
    if (std::optional<Statement> parsed = ParseTemplate(text)) {
      t = Template{std::make_shared<const Statement>(std::move(*parsed)),
                   std::make_shared<PlanMemo>()};
      Templates().Insert(text, *t);
    }
  }
  if (t) {
    if (params.size() < t->statement->param_count) {
      return ValidationError("Number of parameters in request and statement don't match.");
    }
    return Prepared{std::move(t->statement), &params, std::move(t->memo)};
  }
  DR_ASSIGN_OR_RETURN(Statement parsed, ParseStatement(text, params));
  return Prepared{std::make_shared<const Statement>(std::move(parsed)), &params, nullptr};
}

StatusOr<std::shared_ptr<const TablePlan>> PlanTable(DB& db, const Prepared& p) {
  // Read before describing: a change after this makes the memo stale, never
  // wrongly current.
  const uint64_t version = db.CatalogVersion();
  const bool memo = p.memo != nullptr && version != 0;
  if (memo) {
    std::lock_guard<std::mutex> lock(p.memo->mu);
    if (p.memo->last && p.memo->last->catalog_version == version) return p.memo->last;
  }
  auto plan = std::make_shared<TablePlan>();
  plan->catalog_version = version;
  DR_ASSIGN_OR_RETURN(plan->table, Describe(db, p.statement->table));
  if (p.statement->kind == Statement::Kind::kSelect) {
    auto select = PlanSelect(*p.statement, plan->table);
    if (select.ok()) {
      plan->select = std::move(*select);
    } else {
      plan->select_status = select.status();
    }
  }
  if (memo) {
    std::lock_guard<std::mutex> lock(p.memo->mu);
    p.memo->last = plan;
  }
  return std::shared_ptr<const TablePlan>(std::move(plan));
}

size_t PreparedStatementsCached() { return Templates().size(); }

}  // namespace dynarock::partiql
