// Package workload captures what a MySQL/MariaDB server executes, so that
// autotune can tune for the user's own workload: it reads the server's
// query logs into a Workload (client connections, each with its
// statements in execution order and their start offsets, the schema each
// ran in, the source server's flavour and version), writes and reads
// autotune's versioned workload file (docs/workloads.md), masks literal
// values on request, and records a live server for a given time by
// switching on its slow query log at long_query_time=0 and restoring every
// variable it changed afterwards.
//
// The log readers (ReadSlowLogs, ReadGeneralLogsWith) take the file formats of
// MySQL 5.7/8.x, Percona Server 5.7/8.x and MariaDB 10.x/11.x, with their
// per-version differences (slowlog.go and genlog.go say which line comes
// from which server, and workload/testdata/README.md where each sample
// comes from). Logs of different servers that carry the same workload
// read to the same statements. A log that yields no statement is an
// error that says what was expected, never an empty workload; a malformed
// line is an error naming the file and line.
//
// What a log cannot give, the reader notes in Workload.Notes: the MySQL
// slow log writes a schema only when it changes from the last entry of
// the whole file (a "use" line), so a statement run without a default
// schema after another connection's "use" is recorded in that schema;
// MariaDB and older MySQL logs give times to the second, in the server's
// local time without a zone (the reader takes the start from SET
// timestamp, which is UTC); a header written again in the middle of a
// file is read as a server restart (thread ids start again, and
// Workload.Restarts records it), so a connection that spans a mere
// reopening of the log is split in two. Several files are read as one
// server's log, rotated: files that name another server, or whose times
// overlap, are refused unless ReadOptions.MixServers asks for them.
//
// Capture turns a Config (what `autotune capture` was given) into a
// written workload file.
package workload
