#ifndef PASSKEYD_CSQLITE_SHIM_H
#define PASSKEYD_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLite's log callback: the context given at configuration, the (extended) result code, the message.
typedef void (*passkeyd_sqlite3_log_callback)(void *, int, const char *);

/// `sqlite3_config(SQLITE_CONFIG_LOG, …)`, which Swift cannot call (variadic). SQLite takes it only before the
/// process's first connection opens (`SQLITE_MISUSE` after).
static inline int passkeyd_sqlite3_config_log(passkeyd_sqlite3_log_callback callback, void *context) {
    return sqlite3_config(SQLITE_CONFIG_LOG, callback, context);
}

/// `sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0)`: SQLite stops counting its memory use, which takes a process-wide mutex
/// around every allocation and free it makes (a few dozen per statement). Taken only before the first connection opens.
static inline int passkeyd_sqlite3_config_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
