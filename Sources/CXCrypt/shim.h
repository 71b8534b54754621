#ifndef PASSKEYD_CXCRYPT_SHIM_H
#define PASSKEYD_CXCRYPT_SHIM_H
#include <crypt.h>
#endif
