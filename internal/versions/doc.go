// Package versions holds no code: its tests run keybench end to end on
// every PostgreSQL major it claims (15, 16, 17 and 18, zonky's binaries),
// so that nothing keeps working on one major only. The collectors differ by
// version (pg_stat_io and pg_get_wal_block_info from 16, pg_stat_checkpointer
// from 17, uuidv7() from 18): each version-dependent figure is measured
// where the server has it, and elsewhere unavailable with the version as
// its reason — tested, not assumed.
package versions
