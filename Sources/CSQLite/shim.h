#ifndef AUDITCTL_CSQLITE_SHIM_H
#define AUDITCTL_CSQLITE_SHIM_H

#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call; these wrappers fix its arguments.
static inline int csqlite_db_config_int(sqlite3 *db, int op, int value) {
    int current = 0;
    return sqlite3_db_config(db, op, value, &current);
}

// sqlite3_config is variadic too: SQLITE_CONFIG_MEMSTATUS on (1) or off (0), before SQLite's
// first use in the process (SQLITE_MISUSE after).
static inline int csqlite_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

#endif
