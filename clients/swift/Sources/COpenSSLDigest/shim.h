// SHA-256 from the system's OpenSSL, for the Sign in with Apple nonce on Linux (CryptoKit on Apple platforms).
#include <openssl/sha.h>
