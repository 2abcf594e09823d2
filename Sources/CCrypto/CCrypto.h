// SHA-1 from OpenSSL's libcrypto (Debian libssl-dev), for the WebSocket handshake (RFC 6455 §4.2.2).
#include <openssl/sha.h>
