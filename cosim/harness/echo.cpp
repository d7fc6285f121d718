// echo.cpp: vianic-echo, the baseline of the MMIO round-trip benchmark. A
// minimal Unix-socket (optionally TCP) server with the co-simulation
// protocol's framing (12-byte header: len u32, type u16, flags u16, tag u32,
// then len payload bytes, len <= 65536): every complete message it receives
// is written back unchanged. Same event-loop shape as vianic-sim (poll,
// non-blocking recv, send) so that the ratio of the two round trips measures
// the simulator's own cost. Standalone: depends on nothing else here.
//
//   vianic-echo [--socket PATH] [--tcp HOST:PORT]
// prints "vianic-echo: listening on unix:PATH" when ready; SIGINT/SIGTERM
// exit (removing the socket).
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backlog.h"
#include "protocol_gen.h"

namespace {

using vianic::proto::kMaxPayload;
constexpr size_t kHeader = vianic::proto::kHeaderSize;
constexpr size_t kBuf = 256 * 1024;

volatile sig_atomic_t g_stop = 0;
void on_stop(int) { g_stop = 1; }

struct Client {
    explicit Client(int f) : fd(f) {}
    int fd;
    std::vector<uint8_t> in = std::vector<uint8_t>(kBuf);
    size_t start = 0, end = 0;
    std::vector<uint8_t> out;
    size_t out_pos = 0;
    bool dead = false;
};

void send_or_buffer(Client* c, const uint8_t* p, size_t n) {
    if (c->out_pos == c->out.size()) {
        c->out.clear();
        c->out_pos = 0;
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w == ssize_t(n)) return;
        if (w < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                c->dead = true;
                return;
            }
            w = 0;
        }
        p += w;
        n -= size_t(w);
    }
    if (c->out.size() - c->out_pos + n > (64u << 20)) {
        c->dead = true;
        return;
    }
    c->out.insert(c->out.end(), p, p + n);
}

void on_readable(Client* c) {
    if (c->start == c->end) c->start = c->end = 0;
    if (c->end == c->in.size()) {
        memmove(c->in.data(), c->in.data() + c->start, c->end - c->start);
        c->end -= c->start;
        c->start = 0;
    }
    ssize_t n = recv(c->fd, c->in.data() + c->end, c->in.size() - c->end, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        c->dead = true;
        return;
    }
    if (n < 0) return;
    c->end += size_t(n);
    while (c->end - c->start >= kHeader) {
        const uint8_t* p = c->in.data() + c->start;
        uint32_t len = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
        if (len > kMaxPayload) {
            c->dead = true;
            return;
        }
        if (c->end - c->start < kHeader + len) break;
        send_or_buffer(c, p, kHeader + len);
        c->start += kHeader + len;
    }
}

int listen_unix(const std::string& path) {
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (path.size() >= sizeof sa.sun_path) {
        fprintf(stderr, "vianic-echo: socket path too long: %s\n", path.c_str());
        return -1;
    }
    memcpy(sa.sun_path, path.c_str(), path.size());
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) unlink(path.c_str());
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, reinterpret_cast<struct sockaddr*>(&sa), sizeof sa) != 0 || listen(fd, vianic::listen_backlog()) != 0) {
        fprintf(stderr, "vianic-echo: cannot listen on unix:%s: %s\n", path.c_str(), strerror(errno));
        return -1;
    }
    return fd;
}

int listen_tcp(const std::string& hp, std::string* shown) {
    size_t colon = hp.rfind(':');
    if (colon == std::string::npos) return -1;
    std::string host = hp.substr(0, colon), port = hp.substr(colon + 1);
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    struct addrinfo* res = nullptr;
    if (getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo* a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int one = 1;
        if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (fd >= 0 && (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, vianic::listen_backlog()) != 0)) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) return -1;
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char h[NI_MAXHOST] = "?", p[NI_MAXSERV] = "?";
    getsockname(fd, reinterpret_cast<struct sockaddr*>(&ss), &len);
    getnameinfo(reinterpret_cast<struct sockaddr*>(&ss), len, h, sizeof h, p, sizeof p, NI_NUMERICHOST | NI_NUMERICSERV);
    *shown = std::string(h) + ":" + p;
    return fd;
}

}  // namespace

int main(int argc, char** argv) {
    std::string path, tcp;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--socket" && i + 1 < argc) {
            path = argv[++i];
        } else if (a == "--tcp" && i + 1 < argc) {
            tcp = argv[++i];
        } else if (a == "--help" || a == "-h") {
            printf("usage: vianic-echo [--socket PATH] [--tcp HOST:PORT]\n"
                   "Echoes every framed message back (baseline of the MMIO round-trip benchmark).\n");
            return 0;
        } else {
            fprintf(stderr, "vianic-echo: bad argument %s (see --help)\n", a.c_str());
            return 2;
        }
    }
    if (path.empty()) {
        const char* xdg = getenv("XDG_RUNTIME_DIR");
        path = std::string(xdg && *xdg ? xdg : "/tmp") + "/vianic-echo-" + std::to_string(getpid()) + ".sock";
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;  // no SA_RESTART: poll returns EINTR
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    int ufd = listen_unix(path);
    if (ufd < 0) return 1;
    int tfd = -1;
    if (!tcp.empty()) {
        std::string shown;
        tfd = listen_tcp(tcp, &shown);
        if (tfd < 0) {
            fprintf(stderr, "vianic-echo: cannot listen on tcp:%s\n", tcp.c_str());
            unlink(path.c_str());
            return 1;
        }
        printf("vianic-echo: listening on tcp:%s\n", shown.c_str());
    }
    printf("vianic-echo: listening on unix:%s\n", path.c_str());
    fflush(stdout);

    std::vector<std::unique_ptr<Client>> clients;
    std::vector<struct pollfd> pf;
    while (!g_stop) {
        pf.clear();
        pf.push_back({ufd, POLLIN, 0});
        pf.push_back({tfd, short(tfd >= 0 ? POLLIN : 0), 0});
        for (auto& c : clients)
            pf.push_back({c->fd, short(POLLIN | (c->out_pos < c->out.size() ? POLLOUT : 0)), 0});
        if (poll(pf.data(), pf.size(), -1) < 0) continue;
        for (int l = 0; l < 2; l++) {
            if (!(pf[size_t(l)].revents & POLLIN)) continue;
            int fd;
            while ((fd = accept4(pf[size_t(l)].fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                if (l == 1) {
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                }
                clients.emplace_back(new Client(fd));
            }
        }
        for (size_t i = 0; i + 2 < pf.size() && i < clients.size(); i++) {
            Client* c = clients[i].get();
            short re = pf[i + 2].revents;
            if (re & POLLOUT) {
                while (c->out_pos < c->out.size()) {
                    ssize_t w = send(c->fd, c->out.data() + c->out_pos, c->out.size() - c->out_pos,
                                     MSG_NOSIGNAL | MSG_DONTWAIT);
                    if (w <= 0) {
                        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) c->dead = true;
                        break;
                    }
                    c->out_pos += size_t(w);
                }
            }
            if (re & (POLLIN | POLLHUP | POLLERR)) on_readable(c);
        }
        for (size_t i = 0; i < clients.size();) {
            if (clients[i]->dead) {
                close(clients[i]->fd);
                clients.erase(clients.begin() + long(i));
            } else {
                i++;
            }
        }
    }
    for (auto& c : clients) close(c->fd);
    close(ufd);
    if (tfd >= 0) close(tfd);
    unlink(path.c_str());
    return 0;
}
