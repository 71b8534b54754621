#ifndef PASSKEYD_CARGON2_SHIM_H
#define PASSKEYD_CARGON2_SHIM_H
#include <argon2.h>
#endif
