#ifndef PASSKEYD_CLIBPQ_SHIM_H
#define PASSKEYD_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
