#include "CMicroHTTPD.h"

#include <stdio.h>

// MHD_OPTION_CLIENT_DISCIPLINE_LVL's number (libmicrohttpd >= 0.9.77-1, 0x00097701), for a build against older
// headers that then runs with a 1.0 library (the same soname): the option is chosen by the library that runs.
#define CMicroHTTPD_CLIENT_DISCIPLINE_LVL ((enum MHD_OPTION)38)

uint32_t CMicroHTTPD_runtimeVersion(void) {
    // MHD_get_version() is "MAJOR.MINOR.PATCH" (e.g. "0.9.75", "1.0.1"); MHD_VERSION's layout is 0xMMmmpp00.
    unsigned major = 0, minor = 0, patch = 0;
    const char *text = MHD_get_version();
    if (text == NULL || sscanf(text, "%u.%u.%u", &major, &minor, &patch) < 2) return 0;
    return (major & 0xFF) << 24 | (minor & 0xFF) << 16 | (patch & 0xFF) << 8;
}

uint32_t CMicroHTTPD_headerVersion(void) {
    return MHD_VERSION;
}

const char *CMicroHTTPD_versionText(void) {
    const char *text = MHD_get_version();
    return text == NULL ? "" : text;
}

int CMicroHTTPD_hasLegacyHeadParser(void) {
    return CMicroHTTPD_runtimeVersion() < 0x00097701;
}

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
    // How strictly the library reads requests, by the library that runs (docs/PLATFORMS.md has the case table).
    // 1.0.x: client discipline 1 ("more strict, within the limits set by RFCs for servers"): it refuses obs-fold,
    // empty or spaced field names, bare CR and LF, NUL and whitespace in the request line with its own 400.
    // 0.9.75's parser has no such checks (it reads an obs-fold into the field name and ends the head at a line
    // that starts with ':'); its strict mode only closes silently on whitespace in the target and refuses a
    // missing Host, which mockd answers itself with its JSON error, so it runs at 0 (RequestCheck).
    struct MHD_OptionItem strictness[] = {
        CMicroHTTPD_hasLegacyHeadParser()
            ? (struct MHD_OptionItem){MHD_OPTION_STRICT_FOR_CLIENT, 0, NULL}
            : (struct MHD_OptionItem){CMicroHTTPD_CLIENT_DISCIPLINE_LVL, 1, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    // A pool only for more than one worker: one is the daemon's own thread, and libmicrohttpd 0.9.75 prints a
    // warning for a pool size of 1 or 0 ("is ignored. Thread pool is not used"), so the option is left out.
    struct MHD_OptionItem pool[] = {
        {MHD_OPTION_THREAD_POOL_SIZE, settings->threadPoolSize, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    return MHD_start_daemon(
        settings->flags, 0, settings->acceptPolicy, settings->acceptPolicyContext,
        settings->accessHandler, settings->accessContext,
        MHD_OPTION_EXTERNAL_LOGGER, CMicroHTTPD_forwardLog, (void *)settings,
        MHD_OPTION_LISTEN_SOCKET, settings->listenSocket,
        MHD_OPTION_ARRAY, settings->threadPoolSize > 1 ? pool : &pool[1],
        MHD_OPTION_CONNECTION_LIMIT, settings->connectionLimit,
        MHD_OPTION_CONNECTION_TIMEOUT, settings->connectionTimeoutSeconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, settings->connectionMemoryLimit,
        MHD_OPTION_UNESCAPE_CALLBACK, settings->unescape, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, settings->completed, settings->completedContext,
        MHD_OPTION_NOTIFY_CONNECTION, settings->notifyConnection, settings->notifyConnectionContext,
        MHD_OPTION_URI_LOG_CALLBACK, settings->requestLine, settings->requestLineContext,
        MHD_OPTION_ARRAY, strictness,
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
