// See CPlatform.h. Each function is portable POSIX where both systems agree, and one call per system where they
// do not; `#if defined(__APPLE__)` marks every Darwin-only line (counted in docs/PLATFORMS.md).
#define _GNU_SOURCE 1 // syncfs and renameat2 in glibc

#include "CPlatform.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#if defined(__APPLE__)
#include <libproc.h>
#include <limits.h>
#include <malloc/malloc.h>
#include <os/lock.h>
#include <sys/proc_info.h>
#else
#include <dirent.h>
#include <linux/sockios.h>
#include <malloc.h>
#include <sys/prctl.h>
#endif

_Thread_local void *mockd_thread_slots[MOCKD_THREAD_SLOT_COUNT];

int mockd_name_this_thread(const char *name) {
#if defined(__APPLE__)
    return pthread_setname_np(name);
#else
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
#endif
}

void mockd_return_freed_memory(void) {
#if defined(__APPLE__)
    malloc_zone_pressure_relief(NULL, 0);
#else
    malloc_trim(0);
#endif
}

int mockd_sync_file_system(int descriptor) {
#if defined(__APPLE__)
    (void)descriptor;
    errno = ENOSYS;
    return -1;
#else
    return syncfs(descriptor);
#endif
}

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1) // <linux/fs.h>, for a glibc whose <stdio.h> lacks it
#endif

int mockd_rename_exchange(const char *from, const char *to) {
#if defined(__APPLE__)
    return renamex_np(from, to, RENAME_SWAP);
#else
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE);
#endif
}

void mockd_socket_no_signal_on_write(int descriptor) {
#if defined(__APPLE__)
    int on = 1;
    (void)setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#else
    (void)descriptor;
#endif
}

int mockd_stream_socket(int family) {
    // socket + fcntl on every system (Linux could set both flags in socket's type): sockets are created rarely
    // (the listening socket, a health probe), so the portable spelling costs nothing measurable.
    int descriptor = socket(family, SOCK_STREAM, 0);
    if (descriptor < 0) return -1;
    int flags = fcntl(descriptor, F_GETFL);
    if (fcntl(descriptor, F_SETFD, FD_CLOEXEC) != 0 || flags < 0 || fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) != 0) {
        int saved = errno;
        close(descriptor);
        errno = saved;
        return -1;
    }
    mockd_socket_no_signal_on_write(descriptor);
    return descriptor;
}

int mockd_stream_socket_type(void) { return SOCK_STREAM; }

ssize_t mockd_send(int descriptor, const void *bytes, size_t count) {
#if defined(__APPLE__)
    return send(descriptor, bytes, count, 0);
#else
    return send(descriptor, bytes, count, MSG_NOSIGNAL);
#endif
}

long mockd_socket_unsent_bytes(int descriptor) {
    int count = 0;
#if defined(__APPLE__)
    socklen_t length = sizeof count;
    if (getsockopt(descriptor, SOL_SOCKET, SO_NWRITE, &count, &length) != 0) return -1;
#else
    if (ioctl(descriptor, SIOCOUTQ, &count) != 0) return -1;
#endif
    return count;
}

unsigned long long mockd_raise_open_file_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
    rlim_t wanted = limit.rlim_max;
#if defined(__APPLE__)
    if (wanted > (rlim_t)OPEN_MAX) wanted = (rlim_t)OPEN_MAX;
#endif
    if (limit.rlim_cur < wanted) {
        limit.rlim_cur = wanted;
        (void)setrlimit(RLIMIT_NOFILE, &limit);
        (void)getrlimit(RLIMIT_NOFILE, &limit);
    }
    return (unsigned long long)limit.rlim_cur;
}

#if defined(__APPLE__)
struct mockd_lock { os_unfair_lock lock; };
#else
struct mockd_lock { pthread_mutex_t mutex; };
#endif

mockd_lock *mockd_lock_create(void) {
    mockd_lock *lock = malloc(sizeof *lock);
    if (lock == NULL) abort();
#if defined(__APPLE__)
    lock->lock = OS_UNFAIR_LOCK_INIT;
#else
    if (pthread_mutex_init(&lock->mutex, NULL) != 0) abort();
#endif
    return lock;
}

void mockd_lock_destroy(mockd_lock *lock) {
#if !defined(__APPLE__)
    pthread_mutex_destroy(&lock->mutex);
#endif
    free(lock);
}

void mockd_lock_lock(mockd_lock *lock) {
#if defined(__APPLE__)
    os_unfair_lock_lock(&lock->lock);
#else
    pthread_mutex_lock(&lock->mutex);
#endif
}

void mockd_lock_unlock(mockd_lock *lock) {
#if defined(__APPLE__)
    os_unfair_lock_unlock(&lock->lock);
#else
    pthread_mutex_unlock(&lock->mutex);
#endif
}

// MARK: - Looking at another process (tests and diagnostics)

#if !defined(__APPLE__)
/// Entries of a /proc folder other than `.` and `..`, or -1.
static long count_entries(const char *path) {
    DIR *folder = opendir(path);
    if (folder == NULL) return -1;
    long count = 0;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        if (entry->d_name[0] != '.') count++;
    }
    closedir(folder);
    return count;
}
#endif

long mockd_process_thread_count(int pid) {
#if defined(__APPLE__)
    struct proc_taskinfo info;
    return proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &info, sizeof info) == sizeof info ? (long)info.pti_threadnum : -1;
#else
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    return count_entries(path);
#endif
}

long mockd_process_descriptor_count(int pid) {
#if defined(__APPLE__)
    int bytes = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, NULL, 0);
    return bytes < 0 ? -1 : bytes / (int)PROC_PIDLISTFD_SIZE;
#else
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    return count_entries(path);
#endif
}

long long mockd_process_peak_resident_bytes(int pid) {
#if defined(__APPLE__)
    struct rusage_info_v4 info;
    return proc_pid_rusage(pid, RUSAGE_INFO_V4, (rusage_info_t *)&info) == 0 ? (long long)info.ri_lifetime_max_phys_footprint : -1;
#else
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *file = fopen(path, "r");
    if (file == NULL) return -1;
    long long kib = -1;
    while (fgets(line, sizeof line, file) != NULL) {
        if (sscanf(line, "VmHWM: %lld kB", &kib) == 1) break;
    }
    fclose(file);
    return kib < 0 ? -1 : kib * 1024;
#endif
}

int mockd_process_thread_signal_masks(int pid, mockd_thread_mask_callback callback, void *context) {
#if defined(__APPLE__)
    (void)pid; (void)callback; (void)context;
    errno = ENOSYS;
    return -1;
#else
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *folder = opendir(path);
    if (folder == NULL) return -1;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        if (entry->d_name[0] == '.') continue;
        char status[128], line[256], name[64] = "";
        unsigned long long blocked = 0;
        int found = 0;
        snprintf(status, sizeof status, "/proc/%d/task/%s/status", pid, entry->d_name);
        FILE *file = fopen(status, "r");
        if (file == NULL) continue;
        while (fgets(line, sizeof line, file) != NULL) {
            if (sscanf(line, "Name:\t%63[^\n]", name) == 1) continue;
            if (sscanf(line, "SigBlk: %llx", &blocked) == 1) { found = 1; break; }
        }
        fclose(file);
        if (found) callback(context, name, blocked);
    }
    closedir(folder);
    return 0;
#endif
}

int mockd_lowest_unprivileged_port(void) {
#if defined(__APPLE__)
    return 0; // macOS lets any user bind any port (since 10.14)
#else
    FILE *file = fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start", "r");
    int port = 1024;
    if (file != NULL) {
        if (fscanf(file, "%d", &port) != 1) port = 1024;
        fclose(file);
    }
    return port;
#endif
}
