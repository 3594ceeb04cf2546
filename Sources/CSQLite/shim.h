#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import: it tells SQLite to copy bound text.
static inline sqlite3_destructor_type CSQLite_transient(void) { return SQLITE_TRANSIENT; }
