// libcurl (Debian libcurl4-openssl-dev), the upstream client of `mockd record` and capture-on-miss.
#include <curl/curl.h>

// Why: curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call.
// One fixed-type wrapper per argument type used; nothing else belongs here.

static inline CURLcode CCurl_setLong(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setOffset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setPointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
static inline CURLcode CCurl_setDataCallback(CURL *handle, CURLoption option, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode CCurl_getLong(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode CCurl_getPointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode CCurl_multiSetLong(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
