// File: tools/server/reply_round.h
//
// One io thread's group commit (dynarock/group_commit.h): the answers to the
// writes of one round of its event loop leave after one write of their log
// records instead of one write each.
//
// The thread opens a ReplyRound around its io_context's run(). A write made
// by a request handled there leaves its record in the database's log buffer
// and, the first in a round, posts FlushAndRelease() to the context: it runs
// after the handlers the last poll found ready (the other connections'
// requests that arrived meanwhile). A response about to be written while
// records wait, whether its request wrote or only read (a read must not
// show a write that is not yet safe), waits too. FlushAndRelease() hands
// the records to the operating system in one write, then lets the waiting
// responses go, each as it was built, or as an InternalServerError when the
// write failed and its request wrote.
//
// With one connection there is one request a round, and nothing changes but
// the order (the response after the flush, as before). A database opened
// without Options::group_commit never holds a write: nothing waits.

#ifndef DYNAROCK_TOOLS_SERVER_REPLY_ROUND_H_
#define DYNAROCK_TOOLS_SERVER_REPLY_ROUND_H_

#include <cstdint>
#include <memory>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "dynarock/group_commit.h"

namespace dynarock::server {

class SessionBase;

class ReplyRound {
 public:
  // Opens on the calling thread, which runs `ioc`.
  explicit ReplyRound(boost::asio::io_context& ioc);
  // What is held is flushed (the context no longer runs: the responses
  // waiting are dropped with their connections).
  ~ReplyRound();
  ReplyRound(const ReplyRound&) = delete;
  ReplyRound& operator=(const ReplyRound&) = delete;

  // This thread's, if it has one.
  static ReplyRound* Current();
  // Writes held on this thread so far: a request that moved it wrote.
  static uint64_t Holds();

  // Records wait for this round's flush: a response must wait too.
  bool Waiting() const { return commit_.holding(); }
  // `session`'s response waits for the flush (ReleaseHeldReply).
  void Wait(std::shared_ptr<SessionBase> session) { waiting_.push_back(std::move(session)); }

 private:
  void FlushAndRelease();

  boost::asio::io_context& ioc_;
  GroupCommit commit_;
  std::vector<std::shared_ptr<SessionBase>> waiting_;
  std::vector<std::shared_ptr<SessionBase>> releasing_;
  ReplyRound* outer_ = nullptr;
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_REPLY_ROUND_H_
