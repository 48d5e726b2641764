/* dl-tcp-store.cc: a small TCP key-value store for the engines'
 * rendezvous (env:// and tcp://): compiled into the Gloo and NCCL modules.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The rank that hosts the store (rank 0, at MASTER_ADDR:MASTER_PORT) runs
 * one server thread that polls the listening socket and its clients. A
 * request is a byte ('S' set, 'G' get), the key (a 32-bit big-endian length
 * and its bytes), and for a set the value the same way. A set is not
 * answered; a get is answered with the value (length and bytes) once some
 * client has set the key, so a get of a key nobody has set yet simply waits,
 * and the client's own deadline turns a missing rank into an error.
 */
#include "dl-tcp-store.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace dl_store
{

namespace
{

std::string
errno_string (int err)
{
  return std::string (strerror (err));
}

/* Writes @n bytes or fails (the peer went away) */
bool
write_all (int fd, const void *data, size_t n)
{
  const char *p = static_cast<const char *> (data);

  while (n > 0)
    {
      ssize_t w = send (fd, p, n, MSG_NOSIGNAL);

      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return false;
      p += w;
      n -= (size_t)w;
    }
  return true;
}

void
append_u32 (std::string &out, uint32_t v)
{
  uint32_t be = htonl (v);

  out.append (reinterpret_cast<const char *> (&be), 4);
}

/* Reads a 32-bit length at @pos of @in; false when @in is too short */
bool
read_u32 (const std::string &in, size_t pos, uint32_t *v)
{
  uint32_t be;

  if (in.size () < pos + 4)
    return false;
  memcpy (&be, in.data () + pos, 4);
  *v = ntohl (be);
  return true;
}

/* "1.5 s" */
std::string
seconds (std::chrono::milliseconds ms)
{
  char buf[32];

  snprintf (buf, sizeof buf, "%g s", ms.count () / 1000.0);
  return buf;
}

} // namespace

class TcpStoreServer
{
public:
  explicit TcpStoreServer (int port);
  ~TcpStoreServer ();

private:
  struct Client
  {
    int fd;
    std::string in;
  };

  void run ();
  /* Handles the complete requests at the start of @c's input; false when the
   * client sent garbage and is dropped */
  bool handle (Client &c);
  void reply (int fd, const std::vector<char> &value);

  int listen_fd_ = -1;
  int wake_[2] = { -1, -1 };
  std::thread thread_;
  std::vector<Client> clients_;
  std::map<std::string, std::vector<char> > data_;
  std::multimap<std::string, int> waiting_; /* key -> client fds waiting */
};

TcpStoreServer::TcpStoreServer (int port)
{
  struct sockaddr_in6 addr6 = {};
  struct sockaddr_in addr4 = {};
  struct sockaddr *addr = reinterpret_cast<struct sockaddr *> (&addr6);
  socklen_t len = sizeof addr6;
  int one = 1, zero = 0;
  /* one socket for IPv4 and IPv6 where the kernel has IPv6; IPv4 only else */
  int fd = socket (AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

  addr6.sin6_family = AF_INET6;
  addr6.sin6_addr = in6addr_any;
  addr6.sin6_port = htons ((uint16_t)port);
  if (fd >= 0)
    setsockopt (fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  else
    {
      addr4.sin_family = AF_INET;
      addr4.sin_addr.s_addr = htonl (INADDR_ANY);
      addr4.sin_port = htons ((uint16_t)port);
      addr = reinterpret_cast<struct sockaddr *> (&addr4);
      len = sizeof addr4;
      fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0)
        throw std::runtime_error ("the rendezvous store cannot make a socket: "
                                  + errno_string (errno));
    }
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind (fd, addr, len) < 0 || listen (fd, 128) < 0 || pipe2 (wake_, O_CLOEXEC) < 0)
    {
      int err = errno;

      close (fd);
      throw std::runtime_error ("the rendezvous store cannot listen on port "
                                + std::to_string (port) + ": " + errno_string (err));
    }
  listen_fd_ = fd;
  thread_ = std::thread (&TcpStoreServer::run, this);
}

TcpStoreServer::~TcpStoreServer ()
{
  char stop = 0;

  if (write (wake_[1], &stop, 1) < 0)
    {
      /* the thread polls the pipe: it cannot be full with one byte */
    }
  thread_.join ();
  for (auto &c : clients_)
    close (c.fd);
  close (listen_fd_);
  close (wake_[0]);
  close (wake_[1]);
}

void
TcpStoreServer::reply (int fd, const std::vector<char> &value)
{
  std::string out;

  append_u32 (out, (uint32_t)value.size ());
  out.append (value.data (), value.size ());
  /* a client that went away is noticed (and dropped) by the poll loop */
  write_all (fd, out.data (), out.size ());
}

bool
TcpStoreServer::handle (Client &c)
{
  for (;;)
    {
      uint32_t klen, vlen = 0;
      size_t used;

      if (c.in.empty () || !read_u32 (c.in, 1, &klen) || c.in.size () < 5 + (size_t)klen)
        return true;
      std::string key = c.in.substr (5, klen);
      if (c.in[0] == 'S')
        {
          if (!read_u32 (c.in, 5 + klen, &vlen) || c.in.size () < 9 + (size_t)klen + vlen)
            return true;
          std::vector<char> value (c.in.begin () + 9 + klen, c.in.begin () + 9 + klen + vlen);
          auto range = waiting_.equal_range (key);

          for (auto it = range.first; it != range.second; ++it)
            reply (it->second, value);
          waiting_.erase (key);
          data_[key] = std::move (value);
          used = 9 + (size_t)klen + vlen;
        }
      else if (c.in[0] == 'G')
        {
          auto it = data_.find (key);

          if (it != data_.end ())
            reply (c.fd, it->second);
          else
            waiting_.emplace (key, c.fd);
          used = 5 + (size_t)klen;
        }
      else
        return false;
      c.in.erase (0, used);
    }
}

void
TcpStoreServer::run ()
{
  for (;;)
    {
      std::vector<struct pollfd> fds;

      fds.push_back ({ wake_[0], POLLIN, 0 });
      fds.push_back ({ listen_fd_, POLLIN, 0 });
      for (auto &c : clients_)
        fds.push_back ({ c.fd, POLLIN, 0 });
      if (poll (fds.data (), fds.size (), -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return;
        }
      if (fds[0].revents)
        return;
      /* the clients first: fds[2 + i] is clients_[i] until one is dropped */
      std::vector<int> gone;
      for (size_t i = 0; i < clients_.size (); i++)
        {
          char buf[65536];
          ssize_t n;

          if (!fds[2 + i].revents)
            continue;
          n = recv (clients_[i].fd, buf, sizeof buf, 0);
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            {
              gone.push_back (clients_[i].fd);
              continue;
            }
          clients_[i].in.append (buf, (size_t)n);
          if (!handle (clients_[i]))
            gone.push_back (clients_[i].fd);
        }
      for (int fd : gone)
        {
          for (auto it = waiting_.begin (); it != waiting_.end ();)
            it = it->second == fd ? waiting_.erase (it) : std::next (it);
          for (auto it = clients_.begin (); it != clients_.end (); ++it)
            if (it->fd == fd)
              {
                clients_.erase (it);
                break;
              }
          close (fd);
        }
      if (fds[1].revents & POLLIN)
        {
          int fd = accept4 (listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);

          if (fd >= 0)
            {
              int one = 1;

              setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
              clients_.push_back ({ fd, std::string () });
            }
        }
    }
}

TcpStore::TcpStore (const std::string &host,
                    int port,
                    bool is_server,
                    std::chrono::milliseconds timeout)
    : host_ (host), port_ (port), timeout_ (timeout)
{
  auto deadline = std::chrono::steady_clock::now () + timeout;
  std::string where = "the rendezvous store at " + host + ":" + std::to_string (port);
  std::string last_error = "no address";

  if (is_server)
    server_.reset (new TcpStoreServer (port));
  /* the server may come up after its clients: retry until the deadline */
  for (;;)
    {
      struct addrinfo hints = {}, *res = nullptr;
      int rc;

      hints.ai_family = AF_UNSPEC;
      hints.ai_socktype = SOCK_STREAM;
      rc = getaddrinfo (host.c_str (), std::to_string (port).c_str (), &hints, &res);
      if (rc != 0)
        throw std::runtime_error ("cannot resolve " + where + ": " + gai_strerror (rc));
      for (struct addrinfo *ai = res; ai && fd_ < 0; ai = ai->ai_next)
        {
          int fd = socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);

          if (fd < 0)
            continue;
          if (connect (fd, ai->ai_addr, ai->ai_addrlen) == 0)
            fd_ = fd;
          else
            {
              last_error = errno_string (errno);
              close (fd);
            }
        }
      freeaddrinfo (res);
      if (fd_ >= 0)
        break;
      if (std::chrono::steady_clock::now () >= deadline)
        throw std::runtime_error ("cannot connect to " + where + " within " + seconds (timeout)
                                  + ": " + last_error);
      std::this_thread::sleep_for (std::chrono::milliseconds (50));
    }
  int one = 1;
  setsockopt (fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

TcpStore::~TcpStore ()
{
  if (fd_ >= 0)
    close (fd_);
}

void
TcpStore::send_all (const std::string &what, const void *data, size_t n)
{
  if (!write_all (fd_, data, n))
    throw std::runtime_error ("lost the rendezvous store at " + host_ + ":" + std::to_string (port_)
                              + " while " + what);
}

void
TcpStore::recv_all (const std::string &what,
                    void *data,
                    size_t n,
                    std::chrono::steady_clock::time_point deadline)
{
  char *p = static_cast<char *> (data);

  while (n > 0)
    {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds> (
          deadline - std::chrono::steady_clock::now ());
      struct pollfd pfd = { fd_, POLLIN, 0 };
      int rc;
      ssize_t r;

      if (left.count () <= 0)
        throw std::runtime_error ("timed out after " + seconds (timeout_) + " " + what
                                  + " (has every rank started?)");
      rc = poll (&pfd, 1, (int)std::min<long long> (left.count (), 1 << 30));
      if (rc < 0 && errno == EINTR)
        continue;
      if (rc == 0)
        continue;
      r = recv (fd_, p, n, 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        throw std::runtime_error ("lost the rendezvous store at " + host_ + ":"
                                  + std::to_string (port_) + " while " + what);
      p += r;
      n -= (size_t)r;
    }
}

void
TcpStore::set (const std::string &key, const std::vector<char> &data)
{
  std::string msg (1, 'S');

  append_u32 (msg, (uint32_t)key.size ());
  msg += key;
  append_u32 (msg, (uint32_t)data.size ());
  msg.append (data.data (), data.size ());
  send_all ("setting key '" + key + "'", msg.data (), msg.size ());
}

std::vector<char>
TcpStore::get_before (const std::string &key, std::chrono::steady_clock::time_point deadline)
{
  std::string msg (1, 'G');
  std::string what = "waiting for key '" + key + "' in the rendezvous store at " + host_ + ":"
                     + std::to_string (port_);
  uint32_t be;
  std::vector<char> value;

  append_u32 (msg, (uint32_t)key.size ());
  msg += key;
  send_all (what, msg.data (), msg.size ());
  recv_all (what, &be, 4, deadline);
  value.resize (ntohl (be));
  if (!value.empty ())
    recv_all (what, value.data (), value.size (), deadline);
  return value;
}

std::vector<char>
TcpStore::get (const std::string &key)
{
  return get_before (key, std::chrono::steady_clock::now () + timeout_);
}

void
TcpStore::wait (const std::vector<std::string> &keys)
{
  wait (keys, timeout_);
}

void
TcpStore::wait (const std::vector<std::string> &keys, const std::chrono::milliseconds &timeout)
{
  auto deadline = std::chrono::steady_clock::now () + timeout;

  /* a get of each answers once the key is there; the values are dropped */
  for (const auto &key : keys)
    get_before (key, deadline);
}

} // namespace dl_store
