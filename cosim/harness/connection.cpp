// connection.cpp: socket I/O of a client connection (see connection.h).
// Sends use MSG_NOSIGNAL (a vanished peer is an error, not SIGPIPE) and
// MSG_DONTWAIT (a slow client never blocks the simulator).
#include "connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace vianic {

Conn::Conn(int fd_, uint32_t id_, bool is_unix_, std::string peer_)
    : fd(fd_), id(id_), is_unix(is_unix_), peer(std::move(peer_)), in_(kInInitial) {}

Conn::~Conn() {
    for (int f : fds) ::close(f);
    if (fd >= 0) {
        // discard unread input first: closing with unread data makes the
        // peer see a reset, which over TCP can lose our last message
        char sink[4096];
        for (int i = 0; i < 64 && recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; i++) {
        }
        ::shutdown(fd, SHUT_RDWR);
        ::close(fd);
    }
}

bool Conn::has_tag(uint32_t tag) const {
    for (uint32_t t : outstanding)
        if (t == tag) return true;
    return false;
}

bool Conn::remove_tag(uint32_t tag) {
    for (size_t i = 0; i < outstanding.size(); i++) {
        if (outstanding[i] == tag) {
            outstanding[i] = outstanding.back();
            outstanding.pop_back();
            return true;
        }
    }
    return false;
}

int Conn::take_fd() {
    if (fds.empty()) return -1;
    int f = fds.front();
    fds.pop_front();
    return f;
}

Conn::ReadResult Conn::read_some(size_t* got, std::string* err) {
    *got = 0;
    if (in_start_ == in_end_) {
        in_start_ = in_end_ = 0;
    } else if (in_end_ == in_.size() || in_start_ > in_.size() / 2) {
        memmove(in_.data(), in_.data() + in_start_, in_end_ - in_start_);
        in_end_ -= in_start_;
        in_start_ = 0;
    }
    if (in_end_ == in_.size() && in_.size() < kInCapacity) in_.resize(std::min(in_.size() * 2, kInCapacity));
    size_t space = in_.size() - in_end_;
    if (space == 0) return kAgain;  // cannot happen: a message is < capacity
    ssize_t n;
    if (is_unix) {
        struct iovec iov;
        iov.iov_base = in_.data() + in_end_;
        iov.iov_len = space;
        alignas(struct cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * 8)];
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf;
        msg.msg_controllen = sizeof cbuf;
        n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n >= 0) {
            for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
                size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < nfd; i++) {
                    int f;
                    memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
                    if (fds.size() < kMaxFds) {
                        fds.push_back(f);
                    } else {
                        ::close(f);
                        *err = "too many file descriptors sent without ATTACH_MEM";
                    }
                }
            }
            if (msg.msg_flags & MSG_CTRUNC) *err = "file descriptors were truncated (more than 8 in one send)";
        }
    } else {
        n = recv(fd, in_.data() + in_end_, space, MSG_DONTWAIT);
    }
    if (n > 0) {
        in_end_ += size_t(n);
        *got = size_t(n);
        return kData;
    }
    if (n == 0) return kEof;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return kAgain;
    *err = strerror(errno);
    return kError;
}

void Conn::consume(size_t n) {
    in_start_ += n;
    if (in_start_ == in_end_) in_start_ = in_end_ = 0;
}

bool Conn::cork = false;
unsigned Conn::corked = 0;

bool Conn::send(const void* p, size_t n) {
    if (broken) return false;
    const uint8_t* b = static_cast<const uint8_t*>(p);
    if (!out_pending() && !cork) {
        ssize_t w = ::send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w == ssize_t(n)) return true;
        if (w < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                broken = true;
                close_later(std::string("connection broken: ") + strerror(errno));
                return false;
            }
            w = 0;
        }
        b += w;
        n -= size_t(w);
        out_.clear();
        out_pos_ = 0;
    }
    if (!out_pending()) {
        out_.clear();
        out_pos_ = 0;
    }
    if (cork) corked++;
    if (out_.size() - out_pos_ + n > kMaxOutput) {
        broken = true;
        close_later("output buffer overflow: the client does not read its messages");
        return false;
    }
    out_.insert(out_.end(), b, b + n);
    return true;
}

bool Conn::flush() {
    while (out_pending()) {
        ssize_t w = ::send(fd, out_.data() + out_pos_, out_.size() - out_pos_, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return true;
            broken = true;
            close_later(std::string("connection broken: ") + strerror(errno));
            return false;
        }
        out_pos_ += size_t(w);
    }
    out_.clear();
    out_pos_ = 0;
    return true;
}

}  // namespace vianic
