#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

// MHD_start_daemon is variadic: this starts a thread-per-connection daemon bound to one address
// (IPv4 or IPv6 text, e.g. "127.0.0.1" or "::1") with a completion callback, a callback that sees
// each raw request line's URI first (its result becomes the request's context), a connection
// start/close callback, a total and a per-address connection limit and an idle timeout. Port 0
// picks a free port (see CMicroHTTPD_bound_port). With a PEM key and certificate (both kept alive
// by the caller while the daemon runs) it speaks TLS through GnuTLS; with NULL, plain HTTP.
// NULL on failure.
static inline struct MHD_Daemon *CMicroHTTPD_start(const char *host, uint16_t port, MHD_AccessHandlerCallback handler,
                                                   void *handler_context, MHD_RequestCompletedCallback completed,
                                                   void *completed_context,
                                                   void *(*uri_log)(void *context, const char *uri,
                                                                    struct MHD_Connection *connection),
                                                   MHD_NotifyConnectionCallback connections,
                                                   unsigned int connection_limit, unsigned int per_address_limit,
                                                   unsigned int timeout_seconds, const char *tls_key,
                                                   const char *tls_certificate) {
    struct sockaddr_in address4;
    struct sockaddr_in6 address6;
    memset(&address4, 0, sizeof address4);
    memset(&address6, 0, sizeof address6);
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    const struct sockaddr *address;
    if (inet_pton(AF_INET, host, &address4.sin_addr) == 1) {
        address4.sin_family = AF_INET;
        address4.sin_port = htons(port);
        address = (const struct sockaddr *)&address4;
    } else if (inet_pton(AF_INET6, host, &address6.sin6_addr) == 1) {
        address6.sin6_family = AF_INET6;
        address6.sin6_port = htons(port);
        address = (const struct sockaddr *)&address6;
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    if (tls_key && tls_certificate) {
        return MHD_start_daemon(flags | MHD_USE_TLS, port, NULL, NULL, handler, handler_context, MHD_OPTION_SOCK_ADDR,
                                address, MHD_OPTION_HTTPS_MEM_KEY, tls_key, MHD_OPTION_HTTPS_MEM_CERT,
                                tls_certificate, MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                                MHD_OPTION_URI_LOG_CALLBACK, uri_log, handler_context, MHD_OPTION_NOTIFY_CONNECTION,
                                connections, handler_context, MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit, MHD_OPTION_CONNECTION_TIMEOUT,
                                timeout_seconds, MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_context, MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context, MHD_OPTION_URI_LOG_CALLBACK,
                            uri_log, handler_context, MHD_OPTION_NOTIFY_CONNECTION, connections, handler_context,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                            per_address_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds, MHD_OPTION_END);
}

// MHD_get_connection_info is variadic: the socket of a connection, or -1.
static inline int CMicroHTTPD_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

// MHD_get_daemon_info is variadic: the port the daemon listens on.
static inline uint16_t CMicroHTTPD_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

// MHD_get_connection_info is variadic: the client's address as numeric text in `text` (at least
// INET6_ADDRSTRLEN bytes). Returns 1, or 0 when the address is not IPv4 or IPv6.
static inline int CMicroHTTPD_client_address(struct MHD_Connection *connection, char *text, socklen_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, text, size) != NULL;
    }
    if (address->sa_family == AF_INET6) {
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, text, size) != NULL;
    }
    return 0;
}
