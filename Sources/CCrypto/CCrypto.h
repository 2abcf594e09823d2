// SHA-1 from OpenSSL's libcrypto (Debian libssl-dev), for the WebSocket handshake (RFC 6455 §4.2.2).
#include <openssl/sha.h>
// PEM parsing to check --tls-cert/--tls-key files before libmicrohttpd (GnuTLS) gets them, so a bad file
// is one clear line.
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/err.h>
