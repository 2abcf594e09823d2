// Linux APIs the Glibc module does not export to Swift: epoll and eventfd, for the WebSocket reactor.
#include <sys/epoll.h>
#include <sys/eventfd.h>
