package space

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// Manual sections cited in Knob.Source.
const (
	kbInnoDB = "MariaDB KB, InnoDB System Variables: "
	kbServer = "MariaDB KB, Server System Variables: "
	kbPool   = "MariaDB KB, Thread Pool System and Status Variables: "
	kbQC     = "MariaDB KB, Query Cache: "
	kbPS     = "MariaDB KB, Performance Schema System Variables: "
	myInnoDB = "MySQL 8.0 Reference Manual 17.14, InnoDB Startup Options and System Variables: "
	perconaM = "Percona Server 5.1 manual, innodb_read_ahead: "
	seedDoc  = "reference tuning study (MySQL 5.5 on sysbench, 36 knobs in 4 groups), "
)

// Gone texts shared by several knobs.
const (
	goneNoOp1011 = "the startup option is still accepted as a no-op with a \"was removed\" warning (MariaDB 10.11.19, measured on the reference 2-core machine, docs/measurement.md): never worth a trial"
)

// compileTime is the NotSearched text of the compile-time knobs.
const compileTime = "compile-time setting: a tuner cannot rebuild the server per trial; it chooses among binaries you built (--server-build NAME=PATH, repeatable), searched as server_build"

// Catalogue returns every knob autotune knows: the 36 knobs of the
// reference tuning study (Knob.Seed "1.1".."4.22", in four groups: runtime
// environment, compile time, server, InnoDB) and the extras later reports
// used. Each row says what the knob is on each
// server flavour and version (Avail) and where its range comes from
// (Source). Which rows a study searches is decided against the live
// server by Resolve: removed, renamed and build- or OS-level knobs are
// kept here as rows with the reason they are not searched.
//
// Search ranges may be narrower than the server's accepted range where the
// ends are useless (a 5 MiB buffer pool) or unsafe (flush methods meant for
// tests). Choices orders are fixed forever: stored trials refer to values,
// samplers to positions.
//
// The slice is freshly allocated on each call; callers may modify it.
func Catalogue() []Knob {
	return []Knob{
		// ---- Group 1: runtime environment (applied by the launcher) ----
		{
			Name: "allocator", Seed: "1.1", Group: "environment", Layer: LayerEnvironment, Kind: Enum,
			Choices: []string{"system", "tcmalloc", "jemalloc"}, Default: "system",
			Source: seedDoc + "knob 1.1 (LD_PRELOAD; Debian packages libtcmalloc-minimal4, libjemalloc2)",
			Help:   "the server's memory allocator, preloaded with LD_PRELOAD; offered only for libraries ldconfig -p finds",
		},
		{
			Name: "cpu_placement", Seed: "1.2", Group: "environment", Layer: LayerEnvironment, Kind: Enum,
			Choices: []string{"none", "split"}, Default: "none",
			Source: seedDoc + "knob 1.2 (taskset; on 2 cores pinning cost ~40 %, measured on the reference 2-core machine, docs/measurement.md)",
			Help:   "split: server and benchmark on separate cores (taskset); none: the scheduler decides",
		},
		{
			Name: "numa_policy", Seed: "1.3", Group: "environment", Layer: LayerEnvironment, Kind: Enum,
			Choices: []string{"default", "interleave"}, Default: "default",
			Source: seedDoc + "knob 1.3 (numactl --interleave=all)",
			Help:   "interleave the server's memory over NUMA nodes; offered only with numactl and more than one node",
		},
		{
			Name: "benchmark_connection", Seed: "1.4", Group: "environment", Layer: LayerEnvironment, Kind: Enum,
			Choices: []string{"socket", "tcp"}, Default: "socket",
			Source: seedDoc + "knob 1.4 (TCP loopback cost ~11 %, measured on the reference 2-core machine, docs/measurement.md)",
			Help:   "how the benchmark connects: unix socket or TCP 127.0.0.1",
		},

		// ---- Group 2: compile time (a choice among builds) ----
		{
			Name: "compile_platform_optimisation", Seed: "2.1", Group: "build", Layer: LayerBuild, Kind: Enum,
			Choices: []string{"generic", "native"}, Default: "generic",
			NotSearched: compileTime, Via: "server_build", Source: seedDoc + "group 2 (compile time)",
			Help: "platform-specific compiler optimisation (e.g. -march=native)",
		},
		{
			Name: "compile_fast_mutexes", Seed: "2.2", Group: "build", Layer: LayerBuild, Kind: Bool, Default: "OFF",
			NotSearched: compileTime, Via: "server_build", Source: seedDoc + "group 2 (compile time)",
			Help: "fast mutexes (a MySQL 5.x build option)",
		},
		{
			Name: "compiler", Seed: "2.3", Group: "build", Layer: LayerBuild, Kind: Enum,
			Choices: []string{"gcc", "clang", "icc"}, Default: "gcc",
			NotSearched: compileTime, Via: "server_build", Source: seedDoc + "group 2 (compile time)",
			Help: "the compiler the server was built with",
		},
		{
			Name: "compile_profile_guided", Seed: "2.4", Group: "build", Layer: LayerBuild, Kind: Bool, Default: "OFF",
			NotSearched: compileTime, Via: "server_build", Source: seedDoc + "group 2 (compile time)",
			Help: "profile-guided (feedback-directed) compilation",
		},
		{
			Name: "benchmark_build", Seed: "2.5", Group: "build", Layer: LayerBuild, Kind: Enum,
			Source: seedDoc + "knob 2.5 (choices: --benchmark-build NAME=PATH, in the order given)",
			Help:   "which sysbench binary runs the benchmark (its own build flags)",
		},
		{
			Name: "server_build", Group: "build", Layer: LayerBuild, Kind: Enum,
			Source: seedDoc + "group 2 (choices: --server-build NAME=PATH, in the order given; covers 2.1-2.4 and 3.3)",
			Help:   "which server binary runs the trial: stands for every compile-time knob",
		},

		// ---- Group 3: server ----
		{
			Name: "transaction_isolation", Seed: "3.1", Group: "server", Kind: Enum,
			Choices: []string{"READ-COMMITTED", "REPEATABLE-READ"}, Default: "REPEATABLE-READ", Dynamic: true,
			Avail: []Avail{
				{Flavor: MariaDB, Until: "11.1.1", Variable: "tx_isolation"},
				{Flavor: MariaDB, Since: "11.1.1"},
				{Flavor: MySQL, Until: "5.7.20", Variable: "tx_isolation"},
				{Flavor: MySQL, Since: "5.7.20"},
			},
			Source: kbServer + "tx_isolation / transaction_isolation (option transaction-isolation; variable renamed in 11.1.1); " + myInnoDB + "transaction_isolation (since 5.7.20)",
			Help:   "default isolation level of new transactions (READ-UNCOMMITTED and SERIALIZABLE change what applications see and are left out)",
		},
		{
			Name: "large_pages", Seed: "3.2", Group: "server", Kind: Bool, Default: "OFF",
			Source: kbServer + "large_pages (default OFF; read-only; needs huge pages reserved in the OS)",
			Help:   "allocate the buffer pool in huge pages; offered only when the OS has huge pages reserved",
		},
		{
			Name: "performance_schema_compiled", Seed: "3.3", Group: "build", Layer: LayerBuild, Kind: Bool, Default: "ON",
			NotSearched: compileTime, Via: "server_build", Source: seedDoc + "knob 3.3",
			Help: "whether the Performance Schema is compiled in",
		},
		{
			Name: "performance_schema", Seed: "3.4", Group: "server", Kind: Bool, Default: "OFF",
			Source: kbPS + "performance_schema (default OFF; read-only; +95 MB RSS, measured on the reference 2-core machine, docs/measurement.md)",
			Help:   "instrumentation for diagnostics; costs memory and some throughput",
		},
		{
			Name: "query_cache_size", Seed: "3.5", Group: "server", Kind: Bytes,
			Min: 1 * mib, Max: 512 * mib, Scale: Log, Step: mib, Default: "1048576", Unit: "bytes", Dynamic: true,
			Avail:  []Avail{{Flavor: MariaDB}, {Flavor: MySQL, Until: "8.0.3", Gone: "removed in MySQL 8.0.3 (the query cache is gone; the option is unknown and aborts start-up)"}},
			Source: kbQC + "query_cache_size (default 1M, multiple of 1024; dynamic)",
			Help:   "memory for cached result sets (used only when query_cache_type is ON or DEMAND)",
		},
		{
			Name: "query_cache_type", Seed: "3.5", Group: "server", Kind: Enum,
			Choices: []string{"OFF", "ON", "DEMAND"}, Default: "OFF", Dynamic: true,
			Avail:  []Avail{{Flavor: MariaDB}, {Flavor: MySQL, Until: "8.0.3", Gone: "removed in MySQL 8.0.3 (the query cache is gone; the option is unknown and aborts start-up)"}},
			Source: kbQC + "query_cache_type (default OFF since 10.1.7; dynamic)",
			Help:   "whether SELECT results are cached (DEMAND: only with SQL_CACHE)",
		},

		// ---- Group 4: InnoDB ----
		{
			Name: "innodb_file_format", Seed: "4.1", Group: "innodb", Kind: Enum,
			Choices: []string{"Antelope", "Barracuda"}, Default: "Barracuda", Dynamic: true,
			Avail: []Avail{
				{Flavor: MariaDB, Until: "10.3.1", Gone: "removed in MariaDB 10.3.1 (Barracuda is implicit; the nearest knob today is innodb_default_row_format, which affects new tables only); " + goneNoOp1011, Tolerated: true},
				{Flavor: MySQL, Until: "8.0.0", Gone: "removed in MySQL 8.0 (Barracuda is implicit; see innodb_default_row_format)"},
			},
			Source: kbInnoDB + "innodb_file_format (removed 10.3.1); " + myInnoDB + "removed in 8.0",
			Help:   "on-disk file format of new tables",
		},
		{
			Name: "innodb_stats_on_metadata", Seed: "4.2", Group: "innodb", Kind: Bool, Default: "OFF", Dynamic: true,
			Source: kbInnoDB + "innodb_stats_on_metadata (default OFF; dynamic)",
			Help:   "recompute index statistics on metadata statements (SHOW TABLE STATUS, information_schema)",
		},
		{
			Name: "innodb_doublewrite", Seed: "4.3", Group: "innodb", Kind: Bool, Default: "ON",
			Durability: true, StrictValue: "ON",
			Source: kbInnoDB + "innodb_doublewrite (default ON; read-only at runtime)",
			Help:   "write pages twice to survive torn pages (durability: pinned ON under --durability strict)",
		},
		{
			Name: "innodb_change_buffering", Seed: "4.4", Group: "innodb", Kind: Enum,
			Choices: []string{"none", "inserts", "deletes", "changes", "purges", "all"}, Default: "none", Dynamic: true,
			Avail:  []Avail{{Flavor: MariaDB, Until: "11.0.0", Gone: "removed in MariaDB 11.0 together with the change buffer"}, {Flavor: MySQL}},
			Source: kbInnoDB + "innodb_change_buffering (default none since 10.5.15; deprecated 10.9, removed 11.0)",
			Help:   "buffer secondary-index changes for pages not in the pool",
		},
		{
			Name: "innodb_buffer_pool_instances", Seed: "4.5", Group: "innodb", Kind: Int,
			Min: 1, Max: 64, Scale: Log, Step: 1, Default: "1", Unit: "instances",
			Avail: []Avail{
				{Flavor: MariaDB, Until: "10.6.0", Gone: "removed in MariaDB 10.6.0 (there is a single buffer pool); " + goneNoOp1011, Tolerated: true},
				{Flavor: MySQL},
			},
			Source: kbInnoDB + "innodb_buffer_pool_instances (deprecated 10.5.1, removed 10.6.0); " + myInnoDB + "innodb_buffer_pool_instances (1-64; default 8, or 1 when the pool is under 1 GiB)",
			Help:   "number of buffer pool regions, to spread mutex contention",
		},
		{
			Name: "innodb_log_file_size", Seed: "4.6", Group: "innodb", Kind: Bytes,
			Min: 32 * mib, Max: 4 * gib, Scale: Log, Step: mib, Default: "100663296", Unit: "bytes", Dynamic: true,
			Avail: []Avail{{Flavor: MariaDB}, {Flavor: MySQL, Until: "8.0.30"},
				{Flavor: MySQL, Since: "8.0.30", Variable: "innodb_redo_log_capacity", Option: "innodb_redo_log_capacity"}},
			Source: kbInnoDB + "innodb_log_file_size (default 96M since 10.5; dynamic since 10.9: online resize); " + myInnoDB +
				"innodb_redo_log_capacity (8.0.30+: replaces innodb_log_file_size and innodb_log_files_in_group, which are then ignored when it is set and removed in 9.0; before 8.0.30 MySQL's innodb_log_file_size is the size of each of innodb_log_files_in_group files)",
			Help: "redo log size; larger means fewer checkpoint flushes, longer recovery",
		},
		{
			Name: "innodb_log_buffer_size", Seed: "4.7", Group: "innodb", Kind: Bytes,
			Min: 2 * mib, Max: 256 * mib, Scale: Log, Step: mib, Default: "16777216", Unit: "bytes",
			Source: kbInnoDB + "innodb_log_buffer_size (default 16M, min 2M; read-only)",
			Help:   "buffer for redo records before they are written",
		},
		{
			Name: "innodb_flush_method", Seed: "4.8", Group: "innodb", Kind: Enum,
			Choices: []string{"fsync", "O_DSYNC", "O_DIRECT", "O_DIRECT_NO_FSYNC"}, Default: "O_DIRECT",
			Source: kbInnoDB + "innodb_flush_method (default O_DIRECT since 10.6; littlesync and nosync are for tests only and left out)",
			Help:   "how data files are opened and flushed",
		},
		{
			Name: "innodb_file_per_table", Seed: "4.9", Group: "innodb", Kind: Bool, Default: "ON", Dynamic: true,
			FreshDatadir: true,
			NotSearched:  "affects only tables created after the change: the dataset is loaded once with the default (ON), so a per-trial value would change nothing; a dataset dimension",
			Source:       kbInnoDB + "innodb_file_per_table (default ON; dynamic, applies to new tables)",
			Help:         "one tablespace file per table instead of the system tablespace",
		},
		{
			Name: "innodb_adaptive_hash_index", Seed: "4.10", Group: "innodb", Kind: Bool, Default: "OFF", Dynamic: true,
			Source: kbInnoDB + "innodb_adaptive_hash_index (default OFF since 10.5)",
			Help:   "hash index built on hot B-tree pages",
		},
		{
			Name: "innodb_read_ahead", Seed: "4.11", Group: "innodb", Kind: Enum,
			Choices: []string{"none", "random", "linear", "both"}, Default: "linear", Dynamic: true,
			Avail:  []Avail{{Flavor: Percona, Until: "5.5.0", Gone: "a Percona Server 5.1 variable, gone since 5.5; MySQL and MariaDB have innodb_random_read_ahead and innodb_read_ahead_threshold instead (both searched). Never written as an option: it would prefix-match innodb_read_ahead_threshold"}},
			Source: perconaM + "none/random/linear/both; MySQL and MariaDB have innodb_random_read_ahead and innodb_read_ahead_threshold instead. Never written as an option: it would prefix-match innodb_read_ahead_threshold (MariaDB 10.11, measured on the reference 2-core machine, docs/measurement.md)",
			Help:   "read-ahead policy (Percona only); searched elsewhere as innodb_random_read_ahead and innodb_read_ahead_threshold",
		},
		{
			Name: "innodb_max_purge_lag", Seed: "4.12", Group: "innodb", Kind: Int,
			Min: 0, Max: 5000000, Scale: Linear, Step: 1000, Default: "0", Unit: "undo records", Dynamic: true,
			Source: kbInnoDB + "innodb_max_purge_lag (default 0 = no limit; dynamic)",
			Help:   "delay DML when the purge backlog (history list) exceeds this length; 0 never delays",
		},
		{
			Name: "innodb_purge_threads", Seed: "4.13", Group: "innodb", Kind: Int,
			Min: 1, Max: 32, Scale: Linear, Step: 1, Default: "4", Unit: "threads", Dynamic: true,
			PerHost: HostCores,
			Source:  kbInnoDB + "innodb_purge_threads (1-32, default 4; dynamic since 10.5.2)",
			Help:    "threads that purge old row versions",
		},
		{
			Name: "innodb_sync_spin_loops", Seed: "4.14", Group: "innodb", Kind: Int,
			Min: 0, Max: 300, Scale: Linear, Step: 1, Default: "30", Unit: "loops", Dynamic: true,
			Source: kbInnoDB + "innodb_sync_spin_loops (default 30; dynamic)",
			Help:   "spins before a waiting thread is suspended",
		},
		{
			Name: "innodb_spin_wait_delay", Seed: "4.14", Group: "innodb", Kind: Int,
			Min: 0, Max: 100, Scale: Linear, Step: 1, Default: "4", Unit: "", Dynamic: true,
			Source: kbInnoDB + "innodb_spin_wait_delay (0-6000, default 4 since 10.3.5; dynamic)",
			Help:   "delay between spin-lock polls",
		},
		{
			Name: "innodb_io_capacity", Seed: "4.15", Group: "innodb", Kind: Int,
			Min: 100, Max: 20000, Scale: Log, Step: 1, Default: "200", Unit: "IOPS", Dynamic: true,
			Source: kbInnoDB + "innodb_io_capacity (default 200, min 100; raises innodb_io_capacity_max when above it)",
			Help:   "background flushing rate the server assumes the disk sustains",
		},
		{
			Name: "innodb_buffer_pool_size", Seed: "4.16", Group: "innodb", Kind: Bytes,
			Min: 64 * mib, Max: 16 * gib, Scale: Log, Step: mib, Default: "134217728", Unit: "bytes", Dynamic: true,
			PerHost: HostRAM,
			Source:  kbInnoDB + "innodb_buffer_pool_size (default 128M; resizable online since 10.2)",
			Help:    "memory for cached data and index pages; the largest single effect when data exceeds it",
		},
		{
			Name: "innodb_max_dirty_pages_pct", Seed: "4.17", Group: "innodb", Kind: Float,
			Min: 10, Max: 99, Scale: Linear, Default: "90", Unit: "%", Dynamic: true,
			Source: kbInnoDB + "innodb_max_dirty_pages_pct (0-99.999, default 90)",
			Help:   "share of dirty pages in the pool above which flushing speeds up",
		},
		{
			Name: "innodb_old_blocks_pct", Seed: "4.18", Group: "innodb", Kind: Int,
			Min: 5, Max: 95, Scale: Linear, Step: 1, Default: "37", Unit: "%", Dynamic: true,
			Source: kbInnoDB + "innodb_old_blocks_pct (5-95, default 37; dynamic)",
			Help:   "share of the LRU list kept for the old (recently read once) sublist",
		},
		{
			Name: "innodb_support_xa", Seed: "4.19", Group: "innodb", Kind: Bool, Default: "ON", Dynamic: true,
			Avail: []Avail{
				{Flavor: MariaDB, Until: "10.3.0", Gone: "removed in MariaDB 10.3 (XA is always on); an unknown option on 10.11: the server aborts at start (measured on the reference 2-core machine, docs/measurement.md)"},
				{Flavor: MySQL, Until: "8.0.0", Gone: "removed in MySQL 8.0 (deprecated 5.7.10; XA is always on)"},
			},
			Source: kbInnoDB + "innodb_support_xa (deprecated 10.2, removed 10.3.0); " + myInnoDB + "removed in 8.0",
			Help:   "two-phase commit support for XA transactions",
		},
		{
			Name: "innodb_thread_concurrency", Seed: "4.20", Group: "innodb", Kind: Int,
			Min: 0, Max: 64, Scale: Linear, Step: 1, Default: "0", Unit: "threads", Dynamic: true,
			Avail: []Avail{
				{Flavor: MariaDB, Until: "10.6.0", Gone: "removed in MariaDB 10.6.0 (MariaDB's counterpart is thread_handling=pool-of-threads with thread_pool_size, both searched); " + goneNoOp1011, Tolerated: true},
				{Flavor: MySQL},
			},
			PerHost: HostCores,
			Source:  kbInnoDB + "innodb_thread_concurrency (deprecated 10.5.5, removed 10.6.0); " + myInnoDB + "innodb_thread_concurrency (0-1000, default 0 = unlimited)",
			Help:    "cap on threads inside InnoDB at once; 0 is unlimited",
		},
		{
			Name: "innodb_flush_log_at_trx_commit", Seed: "4.21", Group: "innodb", Kind: Enum,
			Choices: []string{"0", "1", "2"}, Default: "1", Dynamic: true,
			Durability: true, StrictValue: "1",
			Source: kbInnoDB + "innodb_flush_log_at_trx_commit (0-3, default 1; 3 behaves as 1 on MariaDB and is left out)",
			Help:   "1 flushes the redo log at each commit (durable); 2 writes at commit and flushes once a second; 0 does both once a second",
		},
		{
			Name: "innodb_read_io_threads", Seed: "4.22", Group: "innodb", Kind: Int,
			Min: 1, Max: 32, Scale: Linear, Step: 1, Default: "4", Unit: "threads", Dynamic: true,
			PerHost: HostCores,
			Source:  kbInnoDB + "innodb_read_io_threads (1-64, default 4; dynamic since 10.11)",
			Help:    "threads for asynchronous reads (read-ahead)",
		},
		{
			Name: "innodb_write_io_threads", Seed: "4.22", Group: "innodb", Kind: Int,
			Min: 2, Max: 32, Scale: Linear, Step: 1, Default: "4", Unit: "threads", Dynamic: true,
			PerHost: HostCores,
			Source:  kbInnoDB + "innodb_write_io_threads (2-64, default 4; dynamic since 10.11)",
			Help:    "threads for asynchronous page writes",
		},

		// ---- Extras from later reports ----
		{
			Name: "innodb_io_capacity_max", Group: "innodb", Kind: Int,
			Min: 100, Max: 40000, Scale: Log, Step: 1, Default: "2000", Unit: "IOPS", Dynamic: true,
			Source: kbInnoDB + "innodb_io_capacity_max (default: max(2000, 2 x innodb_io_capacity), shown as 4294967295 in DEFAULT_VALUE; must stay >= innodb_io_capacity)",
			Help:   "upper bound of background flushing when the server falls behind",
		},
		{
			Name: "innodb_flush_neighbors", Group: "innodb", Kind: Enum,
			Choices: []string{"0", "1", "2"}, Default: "1", Dynamic: true,
			Source: kbInnoDB + "innodb_flush_neighbors (0-2, default 1)",
			Help:   "flush neighbouring dirty pages together (1: contiguous, 2: whole extent); 0 helped on flash",
		},
		{
			Name: "innodb_adaptive_flushing", Group: "innodb", Kind: Bool, Default: "ON", Dynamic: true,
			Source: kbInnoDB + "innodb_adaptive_flushing (default ON; dynamic)",
			Help:   "adjust the flushing rate to the redo generation rate",
		},
		{
			Name: "innodb_adaptive_flushing_lwm", Group: "innodb", Kind: Float,
			Min: 0, Max: 70, Scale: Linear, Default: "10", Unit: "%", Dynamic: true,
			Source: kbInnoDB + "innodb_adaptive_flushing_lwm (0-70, default 10; dynamic)",
			Help:   "redo log fill level (% of capacity) at which adaptive flushing starts",
		},
		{
			Name: "innodb_max_dirty_pages_pct_lwm", Group: "innodb", Kind: Float,
			Min: 0, Max: 99, Scale: Linear, Default: "0", Unit: "%", Dynamic: true,
			Source: kbInnoDB + "innodb_max_dirty_pages_pct_lwm (0-99.999, default 0 = off; dynamic)",
			Help:   "dirty-page share at which pre-flushing starts (0: only adaptive flushing)",
		},
		{
			Name: "innodb_lru_scan_depth", Group: "innodb", Kind: Int,
			Min: 100, Max: 8192, Scale: Log, Step: 1, Default: "1536", Unit: "pages", Dynamic: true,
			Source: kbInnoDB + "innodb_lru_scan_depth (min 100, default 1536 since 10.5.7; dynamic)",
			Help:   "how far the page cleaner scans each LRU list for pages to flush",
		},
		{
			Name: "innodb_purge_batch_size", Group: "innodb", Kind: Int,
			Min: 1, Max: 5000, Scale: Log, Step: 1, Default: "127", Unit: "pages", Dynamic: true,
			Source: kbInnoDB + "innodb_purge_batch_size (1-5000, default 127 since 10.5.6; dynamic)",
			Help:   "undo log pages purged per batch",
		},
		{
			Name: "innodb_undo_tablespaces", Group: "innodb", Kind: Int,
			Min: 0, Max: 127, Scale: Linear, Step: 1, Default: "0", Unit: "tablespaces",
			FreshDatadir: true,
			NotSearched:  "fixed when the datadir is initialised (read-only; changing it on an existing datadir needs MariaDB 11.0): a dataset dimension",
			Source:       kbInnoDB + "innodb_undo_tablespaces (0-127, default 0; the modern form of more rollback segments)",
			Help:         "undo tablespaces separate from the system tablespace",
		},
		{
			Name: "sync_binlog", Group: "server", Kind: Enum,
			Choices: []string{"0", "1", "100", "1000"}, Default: "0", Dynamic: true,
			Durability: true, StrictValue: "1",
			Source: kbServer + "sync_binlog (default 0; 1 is the durable setting; dynamic)",
			Help:   "fsync the binary log every N commits (0: leave it to the OS); matters only with binary logging on",
		},
		{
			Name: "thread_handling", Group: "server", Kind: Enum,
			Choices: []string{"one-thread-per-connection", "pool-of-threads"}, Default: "one-thread-per-connection",
			Source: kbPool + "thread_handling (read-only; pool-of-threads on MariaDB and Percona Server)",
			Help:   "one thread per client connection, or a thread pool",
		},
		{
			Name: "thread_pool_size", Group: "server", Kind: Int,
			Min: 1, Max: 64, Scale: Log, Step: 1, Default: "2", Unit: "groups", Dynamic: true,
			Avail:   []Avail{{Flavor: MariaDB}, {Flavor: Percona, Since: "5.5.29"}},
			PerHost: HostCores,
			Source:  kbPool + "thread_pool_size (1-100000, default: number of CPUs; dynamic; used with thread_handling=pool-of-threads)",
			Help:    "thread groups of the pool (only matters with thread_handling=pool-of-threads)",
		},
		{
			Name: "innodb_log_files_in_group", Group: "innodb", Kind: Int,
			Min: 1, Max: 4, Scale: Linear, Step: 1, Default: "2", Unit: "files",
			Avail: []Avail{
				{Flavor: MariaDB, Until: "10.5.2", Gone: "removed in MariaDB 10.5.2 (a single ib_logfile0); " + goneNoOp1011, Tolerated: true},
				{Flavor: MySQL, Until: "8.0.30", Gone: "deprecated in MySQL 8.0.30, where innodb_redo_log_capacity (the innodb_log_file_size knob there) sizes the redo log and this count is ignored, and removed in 9.0", Tolerated: true},
			},
			Source: kbInnoDB + "innodb_log_files_in_group (ignored since 10.5.2, removed 10.6); " + myInnoDB + "innodb_log_files_in_group (deprecated 8.0.30)",
			Help:   "number of redo log files",
		},
		{
			Name: "transparent_huge_pages", Group: "environment", Layer: LayerEnvironment, Kind: Enum,
			Choices: []string{"always", "madvise", "never"}, Default: "madvise",
			NotSearched: "an OS setting (/sys/kernel/mm/transparent_hugepage/enabled) shared by every process on the host: autotune does not change it",
			Source:      seedDoc + " extras",
			Help:        "the kernel's transparent huge page policy",
		},
		{
			Name: "innodb_random_read_ahead", Group: "innodb", Kind: Bool, Default: "OFF", Dynamic: true,
			Source: kbInnoDB + "innodb_random_read_ahead (default OFF; dynamic)",
			Help:   "read a whole extent when many of its pages are in the pool (today's form of 4.11)",
		},
		{
			Name: "innodb_read_ahead_threshold", Group: "innodb", Kind: Int,
			Min: 0, Max: 64, Scale: Linear, Step: 1, Default: "56", Unit: "pages", Dynamic: true,
			Source: kbInnoDB + "innodb_read_ahead_threshold (0-64, default 56; dynamic)",
			Help:   "sequentially read pages of an extent that trigger linear read-ahead (today's form of 4.11)",
		},
		{
			Name: "innodb_default_row_format", Group: "innodb", Kind: Enum,
			Choices: []string{"redundant", "compact", "dynamic"}, Default: "dynamic", Dynamic: true,
			Avail:        []Avail{{Flavor: MariaDB, Since: "10.2.2"}, {Flavor: MySQL, Since: "5.7.9"}},
			FreshDatadir: true,
			NotSearched:  "affects only tables created after the change: the dataset is loaded once, so a per-trial value would change nothing; a dataset dimension (today's form of 4.1)",
			Source:       kbInnoDB + "innodb_default_row_format (default dynamic; dynamic, applies to new tables)",
			Help:         "row format of new tables",
		},
		{
			Name: "innodb_page_size", Group: "innodb", Layer: LayerDataset, Kind: Bytes,
			Min: 4 * kib, Max: 64 * kib, Scale: Log, Step: 4 * kib, Default: "16384", Unit: "bytes",
			FreshDatadir: true,
			NotSearched:  "a dataset dimension: fixed when the datadir is initialised (the server aborts on a datadir of another page size, measured on the reference 2-core machine, docs/measurement.md); each value needs its own initialised and loaded datadir",
			Source:       kbInnoDB + "innodb_page_size (4k-64k, default 16k; read-only, set at datadir initialisation)",
			Help:         "InnoDB page size",
		},
		{
			Name: "innodb_large_prefix", Group: "innodb", Kind: Bool, Default: "ON", Dynamic: true,
			Avail: []Avail{
				{Flavor: MariaDB, Until: "10.3.1", Gone: "removed in MariaDB 10.3.1 (large prefixes are always on); " + goneNoOp1011, Tolerated: true},
				{Flavor: MySQL, Until: "8.0.0", Gone: "removed in MySQL 8.0"},
			},
			Source: kbInnoDB + "innodb_large_prefix (removed 10.3.1)",
			Help:   "allow index key prefixes longer than 767 bytes",
		},
		{
			Name: "innodb_adaptive_max_sleep_delay", Group: "innodb", Kind: Int,
			Min: 0, Max: 1000000, Scale: Linear, Step: 1000, Default: "150000", Unit: "microseconds", Dynamic: true,
			Avail: []Avail{
				{Flavor: MariaDB, Until: "10.6.0", Gone: "removed in MariaDB 10.6.0 with innodb_thread_concurrency; " + goneNoOp1011, Tolerated: true},
				{Flavor: MySQL},
			},
			Source: kbInnoDB + "innodb_adaptive_max_sleep_delay (deprecated 10.5.5, removed 10.6.0); " + myInnoDB + "innodb_adaptive_max_sleep_delay",
			Help:   "upper bound of the adaptive sleep of innodb_thread_concurrency",
		},
		{
			Name: "innodb_undo_logs", Group: "innodb", Kind: Int,
			Min: 1, Max: 128, Scale: Linear, Step: 1, Default: "128", Unit: "rollback segments",
			Avail: []Avail{
				{Flavor: MariaDB, Until: "10.6.0", Gone: "removed in MariaDB 10.6.0 (always 128 rollback segments); " + goneNoOp1011, Tolerated: true},
				{Flavor: MySQL, Until: "8.0.2", Gone: "removed in MySQL 8.0.2 (see innodb_rollback_segments)"},
			},
			Source: kbInnoDB + "innodb_undo_logs (deprecated 10.5.0, removed 10.6.0)",
			Help:   "rollback segments in use",
		},
	}
}
