#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import: it tells SQLite to copy bound text.
static inline sqlite3_destructor_type CSQLite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic, which Swift cannot call: this sets one of its on/off options.
static inline int CSQLite_db_config_flag(sqlite3 *db, int option, int on) {
    return sqlite3_db_config(db, option, on, (int *)0);
}
