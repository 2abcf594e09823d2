#ifndef C_PLATFORM_H
#define C_PLATFORM_H

// MockdPlatform's C side: the few calls whose spelling differs between Linux (glibc) and Darwin, each behind one
// function with one signature. Every Darwin-only line of the daemon is in platform.c or in MockdPlatform, and
// docs/PLATFORMS.md lists them (scripts/check-layers keeps that list and the rest of the tree honest).
// Only portable C types appear here, so importing this module brings no platform header into Swift, except on Linux
// the epoll and eventfd headers for MockdPlatform's Linux event loop (EpollLoop.swift).

#include <stddef.h>
#include <sys/types.h>

#if defined(__linux__)
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

/// Names the calling thread for the kernel, debuggers and `top -H` (Linux keeps 15 bytes, Darwin 63).
/// Returns 0 or an error number.
int mockd_name_this_thread(const char *name);

/// Asks the allocator to return freed memory to the system: glibc `malloc_trim(0)`, Darwin
/// `malloc_zone_pressure_relief(NULL, 0)`.
void mockd_return_freed_memory(void);

/// Flushes the whole file system holding the open `descriptor` (Linux `syncfs(2)`).
/// Returns 0, or -1 with errno set (ENOSYS where the system has no such call: Darwin).
int mockd_sync_file_system(int descriptor);

/// Exchanges two paths in one atomic step: Linux `renameat2(…, RENAME_EXCHANGE)`, Darwin
/// `renamex_np(…, RENAME_SWAP)`. Returns 0, or -1 with errno set (EINVAL, ENOSYS or ENOTSUP where the file
/// system cannot exchange).
int mockd_rename_exchange(const char *from, const char *to);

/// A stream socket of `family`, close-on-exec and non-blocking, whose writes never raise SIGPIPE.
/// Returns the descriptor, or -1 with errno set.
int mockd_stream_socket(int family);

/// Makes writes to a socket mockd did not create (an upgraded WebSocket's) fail with EPIPE rather than raise
/// SIGPIPE where the system needs a socket option for that (Darwin `SO_NOSIGPIPE`); nothing on Linux.
void mockd_socket_no_signal_on_write(int descriptor);

/// `SOCK_STREAM` as `socket(2)` and `getaddrinfo(3)` take it (an enum's raw value in Swift on Linux, an Int32 on
/// Darwin).
int mockd_stream_socket_type(void);

/// `send(2)` that never raises SIGPIPE (`MSG_NOSIGNAL` on Linux; the socket option on Darwin).
ssize_t mockd_send(int descriptor, const void *bytes, size_t count);

/// Bytes written to a stream socket that are still in its send buffer (Linux `ioctl(SIOCOUTQ)`: not yet
/// acknowledged by the peer; Darwin `SO_NWRITE`). Returns the count, or -1 with errno set.
long mockd_socket_unsent_bytes(int descriptor);

/// Raises the soft open-file limit as far as the system lets a process (the hard limit; Darwin caps it at
/// `OPEN_MAX` for `setrlimit`). Returns the soft limit in force afterwards.
unsigned long long mockd_raise_open_file_limit(void);

/// The system's plain mutex, on the heap so it never moves: `pthread_mutex_t` on Linux, `os_unfair_lock` on
/// Darwin. Not reentrant.
typedef struct mockd_lock mockd_lock;
mockd_lock *mockd_lock_create(void);
void mockd_lock_destroy(mockd_lock *lock);
void mockd_lock_lock(mockd_lock *lock);
void mockd_lock_unlock(mockd_lock *lock);

// Per-thread pointers read on every request: one thread-local load, where `pthread_getspecific` and the key's lazy
// global cost ~25 instructions a read. Each slot is a cache of a pthread key's value: the owner (MockdPlatform's
// `ThreadSlot`) sets both, and the key's destructor still frees the object at thread exit.
enum { MOCKD_THREAD_SLOT_COUNT = 2 };
extern _Thread_local void *mockd_thread_slots[MOCKD_THREAD_SLOT_COUNT];
/// The calling thread's pointer in slot `index` (0 ..< MOCKD_THREAD_SLOT_COUNT), NULL until set.
static inline void *mockd_thread_slot(int index) { return mockd_thread_slots[index]; }
/// Sets the calling thread's pointer in slot `index`.
static inline void mockd_set_thread_slot(int index, void *value) { mockd_thread_slots[index] = value; }

// A hint to the CPU (`__builtin_prefetch`, GCC and Clang, every architecture they target): bring the cache line holding
// `address` toward this core, for a write. A prefetch never faults, so a stale or freed address costs nothing.
static inline void mockd_prefetch_for_write(const void *address) { __builtin_prefetch(address, 1, 3); }

// Looking at another process (tests and diagnostics). Each returns -1 where the system cannot tell.

/// How many threads process `pid` has (Linux `/proc/PID/task`, Darwin `proc_pidinfo`).
long mockd_process_thread_count(int pid);
/// How many descriptors process `pid` has open (Linux `/proc/PID/fd`, Darwin `proc_pidinfo`).
long mockd_process_descriptor_count(int pid);
/// The peak resident size of process `pid` in bytes (Linux `VmHWM`, Darwin's lifetime peak footprint).
long long mockd_process_peak_resident_bytes(int pid);
/// Receives one thread's name and its blocked-signal mask (bit N-1 for signal N).
typedef void (*mockd_thread_mask_callback)(void *context, const char *name, unsigned long long blocked);
/// Calls `callback` for each thread of process `pid` (Linux `/proc/PID/task/TID/status`). Returns 0, or -1 with
/// errno set (ENOSYS on Darwin, which shows no other process's signal masks).
int mockd_process_thread_signal_masks(int pid, mockd_thread_mask_callback callback, void *context);
/// The lowest port an unprivileged process may bind (Linux `ip_unprivileged_port_start`; 0 on Darwin).
int mockd_lowest_unprivileged_port(void);

#endif
