package space

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// manual is the base of the MariaDB knowledge-base pages cited in Source.
const manual = "MariaDB KB, InnoDB System Variables: "

// Catalogue returns the knob table of the first search space: the twelve
// InnoDB knobs with the largest reported effect on OLTP throughput. Values
// (defaults, ranges, dynamic flags) are those of MariaDB 10.11 as read from
// information_schema.SYSTEM_VARIABLES and the manual pages named in Source
// (see shared/design/mariadb-on-this-machine.md §6). Search ranges may be
// narrower than the server's accepted range where the ends are useless
// (e.g. a 5 MiB buffer pool) or dangerous (flush methods meant for tests).
//
// The slice is freshly allocated on each call; callers may modify it.
func Catalogue() []Knob {
	return []Knob{
		{
			Name: "innodb_buffer_pool_size", Group: "innodb", Kind: Bytes,
			Min: 64 * mib, Max: 16 * gib, Scale: Log, Step: mib, Default: "134217728", Unit: "bytes",
			Dynamic: true, Source: manual + "innodb_buffer_pool_size (default 128M; resizable online since 10.2)",
			Help: "memory for cached data and index pages; the largest single effect when data exceeds it",
		},
		{
			Name: "innodb_log_file_size", Group: "innodb", Kind: Bytes,
			Min: 32 * mib, Max: 4 * gib, Scale: Log, Step: mib, Default: "100663296", Unit: "bytes",
			Dynamic: true, Source: manual + "innodb_log_file_size (default 96M since 10.5; dynamic since 10.9)",
			Help: "redo log size; larger means fewer checkpoint flushes, longer recovery",
		},
		{
			Name: "innodb_log_buffer_size", Group: "innodb", Kind: Bytes,
			Min: 2 * mib, Max: 256 * mib, Scale: Log, Step: mib, Default: "16777216", Unit: "bytes",
			Dynamic: false, Source: manual + "innodb_log_buffer_size (default 16M, min 256K)",
			Help: "buffer for redo records before they are written",
		},
		{
			Name: "innodb_flush_log_at_trx_commit", Group: "innodb", Kind: Enum,
			Choices: []string{"0", "1", "2"}, Default: "1",
			Dynamic: true, Source: manual + "innodb_flush_log_at_trx_commit (0-3, default 1; 3 behaves as 1 on MariaDB)",
			Help: "1 flushes the redo log at each commit (durable); 2 writes at commit and flushes once a second; 0 does both once a second",
		},
		{
			Name: "innodb_flush_method", Group: "innodb", Kind: Enum,
			Choices: []string{"fsync", "O_DSYNC", "O_DIRECT", "O_DIRECT_NO_FSYNC"}, Default: "O_DIRECT",
			Dynamic: false, Source: manual + "innodb_flush_method (default O_DIRECT since 10.6; littlesync and nosync are for tests only and left out)",
			Help: "how data files are opened and flushed",
		},
		{
			Name: "innodb_io_capacity", Group: "innodb", Kind: Int,
			Min: 100, Max: 20000, Scale: Log, Step: 1, Default: "200", Unit: "IOPS",
			Dynamic: true, Source: manual + "innodb_io_capacity (default 200, min 100; raises innodb_io_capacity_max when above it)",
			Help: "background flushing rate the server assumes the disk sustains",
		},
		{
			Name: "innodb_doublewrite", Group: "innodb", Kind: Bool, Default: "ON",
			Dynamic: false, Source: manual + "innodb_doublewrite (default ON; read-only at runtime)",
			Help: "write pages twice to survive torn pages",
		},
		{
			Name: "innodb_adaptive_hash_index", Group: "innodb", Kind: Bool, Default: "OFF",
			Dynamic: true, Source: manual + "innodb_adaptive_hash_index (default OFF since 10.5)",
			Help: "hash index built on hot B-tree pages",
		},
		{
			Name: "innodb_change_buffering", Group: "innodb", Kind: Enum,
			Choices: []string{"none", "inserts", "deletes", "changes", "purges", "all"}, Default: "none",
			Dynamic: true, Source: manual + "innodb_change_buffering (default none since 10.5.15; deprecated in 10.9)",
			Help: "buffer secondary-index changes for pages not in the pool",
		},
		{
			Name: "innodb_max_dirty_pages_pct", Group: "innodb", Kind: Float,
			Min: 10, Max: 99, Scale: Linear, Default: "90", Unit: "%",
			Dynamic: true, Source: manual + "innodb_max_dirty_pages_pct (0-99.999, default 90)",
			Help: "share of dirty pages in the pool above which flushing speeds up",
		},
		{
			Name: "innodb_purge_threads", Group: "innodb", Kind: Int,
			Min: 1, Max: 32, Scale: Linear, Step: 1, Default: "4", Unit: "threads",
			Dynamic: true, Source: manual + "innodb_purge_threads (1-32, default 4; dynamic since 10.5.2)",
			Help: "threads that purge old row versions",
		},
		{
			Name: "innodb_flush_neighbors", Group: "innodb", Kind: Enum,
			Choices: []string{"0", "1", "2"}, Default: "1",
			Dynamic: true, Source: manual + "innodb_flush_neighbors (0-2, default 1)",
			Help: "flush neighbouring dirty pages together (1: contiguous, 2: whole extent)",
		},
	}
}
