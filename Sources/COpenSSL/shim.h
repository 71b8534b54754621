#ifndef PASSKEYD_COPENSSL_SHIM_H
#define PASSKEYD_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/bn.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/ssl.h>
#include <openssl/asn1.h>
#include <openssl/asn1t.h>
#include <openssl/objects.h>
#include <openssl/ecdsa.h>
#include <openssl/sha.h>
#include <openssl/kdf.h>

static const int PK_EVP_PKEY_PUBLIC_KEY = EVP_PKEY_PUBLIC_KEY;
static const int PK_EVP_PKEY_KEYPAIR = EVP_PKEY_KEYPAIR;

static inline void pk_OPENSSL_free(void *p) { OPENSSL_free(p); }
static inline EVP_PKEY *pk_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
static inline EVP_PKEY *pk_EVP_RSA_gen(unsigned int bits) { return EVP_RSA_gen(bits); }
static inline long pk_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline long pk_SSL_CTX_set_min_proto_version(SSL_CTX *c, int v) { return SSL_CTX_set_min_proto_version(c, v); }
static inline long pk_SSL_CTX_set_max_proto_version(SSL_CTX *c, int v) { return SSL_CTX_set_max_proto_version(c, v); }
static inline long pk_SSL_CTX_set_mode(SSL_CTX *c, long m) { return SSL_CTX_set_mode(c, m); }
static inline uint64_t pk_SSL_CTX_set_options(SSL_CTX *c, uint64_t o) { return SSL_CTX_set_options(c, o); }
static const uint64_t PK_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const uint64_t PK_SSL_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;
static const uint64_t PK_SSL_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;
static const long PK_SSL_MODE_RELEASE_BUFFERS = SSL_MODE_RELEASE_BUFFERS;
static inline int pk_sk_X509_num(const STACK_OF(X509) *s) { return sk_X509_num(s); }
static inline STACK_OF(X509) *pk_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int pk_sk_X509_push(STACK_OF(X509) *s, X509 *x) { return sk_X509_push(s, x); }
static inline void pk_sk_X509_free(STACK_OF(X509) *s) { sk_X509_free(s); }
static inline int pk_sk_GENERAL_NAME_num(const STACK_OF(GENERAL_NAME) *s) { return sk_GENERAL_NAME_num(s); }
static inline GENERAL_NAME *pk_sk_GENERAL_NAME_value(const STACK_OF(GENERAL_NAME) *s, int i) { return sk_GENERAL_NAME_value(s, i); }
static inline void pk_GENERAL_NAMES_free(GENERAL_NAMES *g) { GENERAL_NAMES_free(g); }
static inline int pk_sk_ASN1_OBJECT_num(const STACK_OF(ASN1_OBJECT) *s) { return sk_ASN1_OBJECT_num(s); }
static inline ASN1_OBJECT *pk_sk_ASN1_OBJECT_value(const STACK_OF(ASN1_OBJECT) *s, int i) { return sk_ASN1_OBJECT_value(s, i); }
static inline void pk_EXTENDED_KEY_USAGE_free(EXTENDED_KEY_USAGE *e) { EXTENDED_KEY_USAGE_free(e); }

/* OSSL_PARAM keeps pointers to its key names: these are string literals with static storage. */
static const char *const PK_PARAM_GROUP_NAME = OSSL_PKEY_PARAM_GROUP_NAME;
static const char *const PK_PARAM_PUB_KEY = OSSL_PKEY_PARAM_PUB_KEY;
static const char *const PK_PARAM_RSA_N = OSSL_PKEY_PARAM_RSA_N;
static const char *const PK_PARAM_RSA_E = OSSL_PKEY_PARAM_RSA_E;
static const char *const PK_PARAM_EC_PUB_X = OSSL_PKEY_PARAM_EC_PUB_X;
static const char *const PK_PARAM_EC_PUB_Y = OSSL_PKEY_PARAM_EC_PUB_Y;
static const unsigned long PK_EXFLAG_CA = EXFLAG_CA;
static const char *const PK_KDF_PARAM_DIGEST = OSSL_KDF_PARAM_DIGEST;
static const char *const PK_KDF_PARAM_KEY = OSSL_KDF_PARAM_KEY;
static const char *const PK_KDF_PARAM_SALT = OSSL_KDF_PARAM_SALT;
static const char *const PK_KDF_PARAM_INFO = OSSL_KDF_PARAM_INFO;
static inline int pk_sk_X509_EXTENSION_num(const STACK_OF(X509_EXTENSION) *s) { return sk_X509_EXTENSION_num(s); }
static inline X509 *pk_sk_X509_value(const STACK_OF(X509) *s, int i) { return sk_X509_value(s, i); }
static inline void pk_sk_X509_pop_free(STACK_OF(X509) *s) { sk_X509_pop_free(s, X509_free); }

/* An HMAC context under `key` with the digest named `digest` (MessageAuthenticationKey), ready for updates; NULL
   when OpenSSL refuses. The OSSL_PARAM array is built here, where its constructors are plain C. An empty key (a NULL
   pointer from an empty Swift array) is passed as a zero-length key: EVP_MAC_init reads a NULL key as "keep the
   key", which a new context does not have. */
static inline EVP_MAC_CTX *pk_hmac_context(const unsigned char *key, size_t key_length, const char *digest) {
    static const unsigned char empty_key = 0;
    if (key == NULL) key = &empty_key;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (context == NULL) return NULL;
    OSSL_PARAM parameters[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digest, 0), OSSL_PARAM_construct_end()};
    if (EVP_MAC_init(context, key, key_length, parameters) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}

/* SHA-256 of a || b through OpenSSL's SHA256 functions, without the per-call EVP context allocation: this runs
   twice in every assertion verification. The functions are deprecated in OpenSSL 3.0 in favour of EVP, but they
   remain the same implementation. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline void pk_sha256_two(const unsigned char *a, size_t a_length, const unsigned char *b, size_t b_length, unsigned char *out) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, a, a_length);
    if (b_length > 0) SHA256_Update(&context, b, b_length);
    SHA256_Final(out, &context);
    OPENSSL_cleanse(&context, sizeof(context));
}

/* ECDSA's signature of a digest as OpenSSL's ECDSA_SIG (r and s), for the JWS signer (`ECDSASigner`): the same
   ECDSA_do_sign_ex that EVP_PKEY_sign reaches through the default provider, without the DER it then writes
   (i2d_ECDSA_SIG) and the signer parsed back to r || s (d2i_ECDSA_SIG): some 11 k instructions of an access token's
   284 k. The EC_KEY is the key's legacy form, taken once per signing key (EVP_PKEY_get1_EC_KEY) and only read by
   the signatures, as the provider's own EC_KEY is by concurrent EVP_PKEY_sign calls. Deprecated in OpenSSL 3.0 like
   the SHA256 functions above, and the same implementation. */
static inline EC_KEY *pk_EVP_PKEY_get1_EC_KEY(EVP_PKEY *key) { return EVP_PKEY_get1_EC_KEY(key); }
static inline void pk_EC_KEY_free(EC_KEY *key) { EC_KEY_free(key); }
static inline ECDSA_SIG *pk_ECDSA_do_sign(const unsigned char *digest, int length, EC_KEY *key) {
    return ECDSA_do_sign(digest, length, key);
}
#pragma GCC diagnostic pop

/* The TLS client (TLSClientContext): macros over SSL_ctrl and nested flag macros. */
static inline long pk_SSL_set_tlsext_host_name(SSL *s, const char *name) { return SSL_set_tlsext_host_name(s, name); }
static const int PK_SSL_CB_READ_ALERT = SSL_CB_READ_ALERT;
static const int PK_SSL_CB_WRITE_ALERT = SSL_CB_WRITE_ALERT;
static const int PK_SSL_CB_HANDSHAKE_DONE = SSL_CB_HANDSHAKE_DONE;
static const unsigned int PK_X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS = X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS;
static inline int pk_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }

#endif
