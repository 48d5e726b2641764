/* dl-tcp-store.h: the key-value store the engines that join through
 * env:// and tcp:// rendezvous in (Gloo, whose Debian build has file and
 * Redis stores only, through an adapter to its Store; NCCL, to hand out
 * its unique id, through the C API of dl-store.h).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace dl_store
{

class TcpStoreServer;

/* A client of the store at @host:@port; the rank that @is_server also runs
 * the server there (listening on every interface at @port) for as long as
 * this object lives. Every call gives up after @timeout: connecting (the
 * server may start after its clients), and get() / wait() for a key that no
 * rank has set. Failures are std::runtime_error naming the store's address
 * and the key. */
class TcpStore
{
public:
  TcpStore (const std::string &host, int port, bool is_server, std::chrono::milliseconds timeout);
  ~TcpStore ();

  void set (const std::string &key, const std::vector<char> &data);
  std::vector<char> get (const std::string &key);
  void wait (const std::vector<std::string> &keys);
  void wait (const std::vector<std::string> &keys, const std::chrono::milliseconds &timeout);

private:
  std::vector<char> get_before (const std::string &key,
                                std::chrono::steady_clock::time_point deadline);
  void send_all (const std::string &what, const void *data, size_t n);
  void recv_all (const std::string &what,
                 void *data,
                 size_t n,
                 std::chrono::steady_clock::time_point deadline);

  std::string host_;
  int port_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<TcpStoreServer> server_;
  int fd_ = -1;
};

} // namespace dl_store
