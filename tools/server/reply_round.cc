// File: tools/server/reply_round.cc

#include "tools/server/reply_round.h"

#include <boost/asio/post.hpp>

#include "tools/server/http_server_state.h"

namespace dynarock::server {

namespace {
constinit thread_local ReplyRound* t_round = nullptr;
}  // namespace

ReplyRound::ReplyRound(boost::asio::io_context& ioc)
    : ioc_(ioc),
      commit_([this] { boost::asio::post(ioc_, [this] { FlushAndRelease(); }); }),
      outer_(t_round) {
  t_round = this;
}

ReplyRound::~ReplyRound() { t_round = outer_; }  // the GroupCommit's end flushes

ReplyRound* ReplyRound::Current() { return t_round; }

uint64_t ReplyRound::Holds() { return t_round == nullptr ? 0 : t_round->commit_.holds(); }

void ReplyRound::FlushAndRelease() {
  const Status flushed = commit_.Flush();
  // Swapped out first, so that the next round starts with an empty list
  // whatever a release does; both lists keep their capacity.
  releasing_.swap(waiting_);
  for (auto& session : releasing_) session->ReleaseHeldReply(flushed);
  releasing_.clear();
}

}  // namespace dynarock::server
