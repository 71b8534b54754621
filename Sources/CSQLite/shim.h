#ifndef PASSKEYD_CSQLITE_SHIM_H
#define PASSKEYD_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
