#ifndef PASSKEYD_CCURL_SHIM_H
#define PASSKEYD_CCURL_SHIM_H
#include <curl/curl.h>
#include <string.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per argument kind. */
static inline CURLcode pk_curl_setopt_long(CURL *c, CURLoption o, long v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode pk_curl_setopt_string(CURL *c, CURLoption o, const char *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode pk_curl_setopt_list(CURL *c, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode pk_curl_getinfo_long(CURL *c, CURLINFO i, long *v) { return curl_easy_getinfo(c, i, v); }

/* The message being uploaded (MailTransport's SMTPClient): bytes owned by the caller for the whole transfer. */
typedef struct {
    const char *bytes;
    size_t length;
    size_t offset;
} pk_curl_upload;

static inline size_t pk_curl_upload_read(char *buffer, size_t size, size_t count, void *context) {
    pk_curl_upload *upload = (pk_curl_upload *)context;
    size_t room = size * count;
    size_t left = upload->length - upload->offset;
    size_t n = left < room ? left : room;
    memcpy(buffer, upload->bytes + upload->offset, n);
    upload->offset += n;
    return n;
}

/* Makes `upload` the body of the transfer (CURLOPT_UPLOAD with a read callback over its bytes). */
static inline CURLcode pk_curl_set_upload(CURL *c, pk_curl_upload *upload) {
    CURLcode code = curl_easy_setopt(c, CURLOPT_READFUNCTION, pk_curl_upload_read);
    if (code != CURLE_OK) return code;
    code = curl_easy_setopt(c, CURLOPT_READDATA, (void *)upload);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
}

static const long PK_CURLUSESSL_NONE = CURLUSESSL_NONE;
static const long PK_CURLUSESSL_ALL = CURLUSESSL_ALL;
static const long PK_CURL_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;
static const long PK_CURL_SSLVERSION_TLSv1_2 = CURL_SSLVERSION_TLSv1_2;
#endif
