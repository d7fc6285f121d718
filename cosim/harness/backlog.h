// backlog.h: the listen() backlog of the simulator's and the echo server's
// sockets: the system's maximum, so that a burst of connects (hundreds of
// clients dialing at once) is queued instead of refused with EAGAIN.
#pragma once

#include <sys/socket.h>

#include <climits>
#include <cstdio>

namespace vianic {

// The kernel's limit (/proc/sys/net/core/somaxconn, which silently caps any
// larger backlog), else SOMAXCONN.
inline int listen_backlog() {
    int n = 0;
    if (FILE* f = std::fopen("/proc/sys/net/core/somaxconn", "r")) {
        if (std::fscanf(f, "%d", &n) != 1) n = 0;
        std::fclose(f);
    }
    return n > 0 ? n : SOMAXCONN;
}

}  // namespace vianic
