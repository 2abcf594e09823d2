// zlib (zlib1g-dev) and the brotli decoder (libbrotli-dev) from Debian, for HAR bodies recorded compressed.
#include <zlib.h>
#include <brotli/decode.h>
