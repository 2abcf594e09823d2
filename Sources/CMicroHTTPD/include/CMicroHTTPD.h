#ifndef C_MICRO_HTTPD_H
#define C_MICRO_HTTPD_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Receives one formatted libmicrohttpd log line (no trailing newline).
typedef void (*CMicroHTTPD_LogCallback)(void *context, const char *message);

/// Decodes a URL component in place and returns its new length (`MHD_OPTION_UNESCAPE_CALLBACK`).
typedef size_t (*CMicroHTTPD_UnescapeCallback)(void *context, struct MHD_Connection *connection, char *text);

/// Told that a request line has arrived, before its headers (`MHD_OPTION_URI_LOG_CALLBACK`); returns the
/// request's first context (NULL: the access handler's first call sees none).
typedef void *(*CMicroHTTPD_RequestLineCallback)(void *context, const char *uri, struct MHD_Connection *connection);

/// Settings for `CMicroHTTPD_startDaemon`; plain fields so Swift can fill them.
typedef struct {
    unsigned int flags;
    MHD_socket listenSocket;
    unsigned int threadPoolSize;
    unsigned int connectionLimit;
    unsigned int connectionTimeoutSeconds;
    size_t connectionMemoryLimit;
    MHD_AccessHandlerCallback accessHandler;
    void *accessContext;
    CMicroHTTPD_UnescapeCallback unescape;
    MHD_RequestCompletedCallback completed;
    void *completedContext;
    CMicroHTTPD_LogCallback logger;
    void *loggerContext;
    /// PEM certificate chain and private key for HTTPS (`MHD_OPTION_HTTPS_MEM_CERT`/`_KEY`, with
    /// `MHD_USE_TLS` in `flags`); both NULL for plain HTTP. Must outlive the call.
    const char *tlsCertificate;
    const char *tlsKey;
    /// Decides whether to take a new connection (the `apc` argument of `MHD_start_daemon`).
    MHD_AcceptPolicyCallback acceptPolicy;
    void *acceptPolicyContext;
    /// Told when a connection opens and closes (`MHD_OPTION_NOTIFY_CONNECTION`).
    MHD_NotifyConnectionCallback notifyConnection;
    void *notifyConnectionContext;
    /// Told when a request line arrives (`MHD_OPTION_URI_LOG_CALLBACK`).
    CMicroHTTPD_RequestLineCallback requestLine;
    void *requestLineContext;
} CMicroHTTPD_DaemonSettings;

/// The version of the libmicrohttpd that runs (from `MHD_get_version()`), laid out as `MHD_VERSION`
/// (0xMMmmpp00: 0x00097500 for 0.9.75, 0x01000100 for 1.0.1); 0 if it cannot be read.
uint32_t CMicroHTTPD_runtimeVersion(void);

/// `MHD_VERSION` of the headers mockd was built against.
uint32_t CMicroHTTPD_headerVersion(void);

/// `MHD_get_version()`: the version text of the libmicrohttpd that runs ("0.9.75", "1.0.1").
const char *CMicroHTTPD_versionText(void);

/// Whether the running libmicrohttpd reads request heads with the parser before 1.0 (up to 0.9.77): it folds an
/// obs-fold line into the field's name, ends the head at a line that starts with ':', and has no client discipline
/// levels. Nonzero when it does.
int CMicroHTTPD_hasLegacyHeadParser(void);

/// Starts a daemon on an already listening socket.
/// Swift cannot call the variadic `MHD_start_daemon`, so this passes a fixed option list.
struct MHD_Daemon *CMicroHTTPD_startDaemon(const CMicroHTTPD_DaemonSettings *settings);

/// The socket of a connection, or -1.
/// Why: `MHD_get_connection_info` returns a union, which Swift cannot read field by field.
int CMicroHTTPD_connectionSocket(struct MHD_Connection *connection);

/// The pointer the connection-notify callback stored for this connection, or NULL.
/// Why: `MHD_get_connection_info` returns a union, which Swift cannot read field by field.
void *CMicroHTTPD_connectionSocketContext(struct MHD_Connection *connection);

/// Closes an upgraded (WebSocket) connection's socket.
/// Why: `MHD_upgrade_action` is variadic, which Swift cannot call.
enum MHD_Result CMicroHTTPD_upgradeClose(struct MHD_UpgradeResponseHandle *handle);

#endif
