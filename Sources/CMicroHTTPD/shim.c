#include "CMicroHTTPD.h"

#include <stdio.h>

/// Why: MHD's logger receives a `va_list`, which Swift cannot format; format here and pass a plain string.
static void CMicroHTTPD_forwardLog(void *context, const char *format, va_list arguments) {
    const CMicroHTTPD_DaemonSettings *settings = context;
    char line[1024];
    vsnprintf(line, sizeof line, format, arguments);
    size_t length = 0;
    while (line[length] != '\0') length++;
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = '\0';
    settings->logger(settings->loggerContext, line);
}

/// Why: the option list of `MHD_start_daemon` is variadic and Swift cannot build one.
/// `settings` must outlive the daemon (the log forwarder keeps a pointer to it).
struct MHD_Daemon *CMicroHTTPD_startDaemon(const CMicroHTTPD_DaemonSettings *settings) {
    // HTTPS options go in an option array, empty for plain HTTP, so the list below stays one fixed call.
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)settings->tlsCertificate},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)settings->tlsKey},
        {MHD_OPTION_END, 0, NULL},
    };
    int useTLS = settings->tlsCertificate != NULL && settings->tlsKey != NULL;
    return MHD_start_daemon(
        settings->flags, 0, settings->acceptPolicy, settings->acceptPolicyContext,
        settings->accessHandler, settings->accessContext,
        MHD_OPTION_EXTERNAL_LOGGER, CMicroHTTPD_forwardLog, (void *)settings,
        MHD_OPTION_LISTEN_SOCKET, settings->listenSocket,
        MHD_OPTION_THREAD_POOL_SIZE, settings->threadPoolSize,
        MHD_OPTION_CONNECTION_LIMIT, settings->connectionLimit,
        MHD_OPTION_CONNECTION_TIMEOUT, settings->connectionTimeoutSeconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, settings->connectionMemoryLimit,
        MHD_OPTION_UNESCAPE_CALLBACK, settings->unescape, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, settings->completed, settings->completedContext,
        MHD_OPTION_NOTIFY_CONNECTION, settings->notifyConnection, settings->notifyConnectionContext,
        // RFC 9112 strictness: 400 for an HTTP/1.1 request without Host and for malformed header lines.
        MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
        MHD_OPTION_ARRAY, useTLS ? tls : &tls[2],
        MHD_OPTION_END);
}

/// Why: `MHD_get_connection_info` returns a union, which Swift cannot read field by field.
int CMicroHTTPD_connectionSocket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// Why: `MHD_get_connection_info` returns a union, which Swift cannot read field by field.
void *CMicroHTTPD_connectionSocketContext(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// Why: `MHD_upgrade_action` is variadic, which Swift cannot call.
enum MHD_Result CMicroHTTPD_upgradeClose(struct MHD_UpgradeResponseHandle *handle) {
    return MHD_upgrade_action(handle, MHD_UPGRADE_ACTION_CLOSE);
}
