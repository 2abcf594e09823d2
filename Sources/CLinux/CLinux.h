// Linux APIs the Glibc module does not export to Swift: epoll and eventfd (the WebSocket reactor) and
// malloc_trim (returning freed memory after a large index is parsed).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <malloc.h>
#include <sys/prctl.h>

// prctl is variadic, which Swift cannot call: names the calling thread (at most 15 bytes are kept).
static inline int mockd_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
