// Linux APIs the Glibc module does not export to Swift: epoll and eventfd (the WebSocket reactor) and
// malloc_trim (returning freed memory after a large index is parsed).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <malloc.h>
