/*
 * raw_mhd.c - minimal libmicrohttpd server: the throughput ceiling of mockd's stack.
 *
 * Serves one pre-built 1024-byte application/json response for every request, with the daemon
 * configuration mockd uses (MHD_ALLOW_SUSPEND_RESUME, MHD_USE_TURBO, MHD_ALLOW_UPGRADE, strict parsing,
 * the identity unescape callback, a request-completed callback, the same connection limit, timeout and
 * memory), so the difference to mockd is mockd's own work per request.
 * Usage: raw_mhd [--minimal] [--threads N] [--body-file FILE] [PORT]   (0 or absent = pick a free port)
 *   --threads N:      thread pool size (default: one per core; the pinned benchmark uses 1)
 *   --body-file FILE: answer FILE's bytes (at most 1 MiB) instead of the built-in 1 KB JSON document
 *   --minimal: only MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL and the thread pool (libmicrohttpd's
 *              fastest configuration, shown for reference; suspend/resume costs a lock per event loop turn)
 * Prints "listening on http://127.0.0.1:PORT" once bound, runs until SIGINT/SIGTERM.
 *
 * Build: cc -O2 -o raw_mhd raw_mhd.c $(pkg-config --cflags --libs libmicrohttpd)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT_T;
#else
typedef enum MHD_Result MHD_RESULT_T;
#endif

#define BODY_SIZE 1024
#define BODY_FILE_MAX (1024 * 1024)

static char body[BODY_SIZE];
static char *file_body;
static size_t file_body_size;
static struct MHD_Response *response;
static volatile sig_atomic_t stop_requested;
static int first_call_marker;

static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

static MHD_RESULT_T handler(void *cls, struct MHD_Connection *conn, const char *url,
                            const char *method, const char *version,
                            const char *upload_data, size_t *upload_data_size,
                            void **req_cls) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    /* libmicrohttpd 0.9.75: queueing on the first call (headers only, *req_cls == NULL)
     * makes MHD answer "Connection: close". Mark the request and answer on the next call. */
    if (*req_cls == NULL) {
        *req_cls = &first_call_marker;
        return MHD_YES;
    }
    if (*upload_data_size != 0) { /* discard any request body */
        *upload_data_size = 0;
        return MHD_YES;
    }
    return MHD_queue_response(conn, MHD_HTTP_OK, response);
}

/* mockd keeps the request-target as sent (%2F distinct from /): the identity unescape. */
static size_t unescape_identity(void *cls, struct MHD_Connection *conn, char *text) {
    (void)cls; (void)conn;
    return strlen(text);
}

/* mockd releases its per-request state here. */
static void request_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                              enum MHD_RequestTerminationCode code) {
    (void)cls; (void)conn; (void)code;
    *req_cls = NULL;
}

static void build_body(void) {
    /* A valid 1024-byte JSON document: {"data":"xxxx...x"} */
    const char *head = "{\"data\":\"";
    const char *tail = "\"}";
    size_t hl = strlen(head), tl = strlen(tail);
    memcpy(body, head, hl);
    memset(body + hl, 'x', BODY_SIZE - hl - tl);
    memcpy(body + BODY_SIZE - tl, tail, tl);
}

static int usage(const char *argv0) {
    fprintf(stderr, "usage: %s [--minimal] [--threads N] [--body-file FILE] [PORT]\n", argv0);
    return 2;
}

static int read_body_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    file_body = malloc(BODY_FILE_MAX);
    if (file_body == NULL) {
        fclose(f);
        return -1;
    }
    file_body_size = fread(file_body, 1, BODY_FILE_MAX, f);
    fclose(f);
    return 0;
}

int main(int argc, char **argv) {
    unsigned int port = 0;
    int minimal = 0;
    long threads = 0;
    int have_port = 0;
    for (int arg = 1; arg < argc; arg++) {
        char *end = NULL;
        if (strcmp(argv[arg], "--minimal") == 0) {
            minimal = 1;
        } else if (strcmp(argv[arg], "--threads") == 0 && arg + 1 < argc) {
            threads = strtol(argv[++arg], &end, 10);
            if (end == argv[arg] || *end != '\0' || threads < 1 || threads > 1024) return usage(argv[0]);
        } else if (strcmp(argv[arg], "--body-file") == 0 && arg + 1 < argc) {
            if (read_body_file(argv[++arg]) != 0) return 1;
        } else {
            long p = strtol(argv[arg], &end, 10);
            if (have_port || end == argv[arg] || *end != '\0' || p < 0 || p > 65535) return usage(argv[0]);
            port = (unsigned int)p;
            have_port = 1;
        }
    }

    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1) ncpu = 1;
    if (threads > 0) ncpu = threads;

    build_body();
    if (file_body != NULL)
        response = MHD_create_response_from_buffer(file_body_size, file_body, MHD_RESPMEM_PERSISTENT);
    else
        response = MHD_create_response_from_buffer(BODY_SIZE, body, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) {
        fprintf(stderr, "raw_mhd: cannot create response\n");
        return 1;
    }
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    struct MHD_Daemon *d;
    if (minimal) {
        d = MHD_start_daemon(
            MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG,
            (uint16_t)port, NULL, NULL, &handler, NULL,
            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
            MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)ncpu,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)10000,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
            MHD_OPTION_END);
    } else {
        /* The flags and options of mockd's daemon (Sources/MockdServer/MicroHTTPDServer.swift and
         * Sources/CMicroHTTPD/shim.c) with their defaults. */
        d = MHD_start_daemon(
            MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME
                | MHD_USE_TURBO | MHD_ALLOW_UPGRADE,
            (uint16_t)port, NULL, NULL, &handler, NULL,
            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
            MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)ncpu,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)10000,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
            MHD_OPTION_UNESCAPE_CALLBACK, &unescape_identity, NULL,
            MHD_OPTION_NOTIFY_COMPLETED, &request_completed, NULL,
            MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
            MHD_OPTION_END);
    }
    if (d == NULL) {
        fprintf(stderr, "raw_mhd: MHD_start_daemon failed\n");
        MHD_destroy_response(response);
        return 1;
    }

    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    if (info == NULL || info->port == 0) {
        fprintf(stderr, "raw_mhd: cannot determine bound port\n");
        MHD_stop_daemon(d);
        MHD_destroy_response(response);
        return 1;
    }
    printf("listening on http://127.0.0.1:%u\n", (unsigned int)info->port);
    fflush(stdout);

    while (!stop_requested)
        pause();

    MHD_stop_daemon(d);
    MHD_destroy_response(response);
    return 0;
}
