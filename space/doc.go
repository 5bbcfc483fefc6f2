// Package space holds autotune's knob catalogue and configurations.
//
// A Knob is one setting of the search space: a server option (InnoDB or
// server variable), a runtime-environment setting applied by the launcher
// (allocator, CPU placement, NUMA policy, benchmark connection), a build
// choice, or a dataset dimension. Each has a type, range, scale, unit,
// default, dynamic or restart flag, the flavours and versions that have it
// and under which name, and the manual source of its range. Knobs are rows
// of a data table (Catalogue), never code per knob: the 36 knobs of the
// reference tuning study (MySQL 5.5 on sysbench, in four groups: runtime
// environment, compile time, server, InnoDB) and the extras later reports
// tuned.
//
// Resolve meets the catalogue with the live server (ServerInfo, read by
// package runner), the host, the durability policy and a space file
// (Rules): the result is a Space of the tunable knobs plus the pinned
// values, and an Entry per catalogue knob saying what the study does with
// it and why. A Config maps knob names to canonical values; it is
// validated and rounded by the knobs, repaired by the constraints between
// knobs (Repair), checked against a memory budget (EstimateMemory), and
// rendered as a my.cnf option group with full option names (the server
// silently matches unique prefixes, so abbreviations are never written:
// MariaDB 10.11 takes innodb-read-ahead=32 for innodb_read_ahead_threshold,
// measured on the reference 2-core machine, docs/measurement.md).
//
// The package also reads MySQL option files (ReadOptionFile: groups,
// !include/!includedir, loose-, valueless options, quotes, comments),
// classifies read-back values (CompareValue) and parses server versions (ParseVersion).
//
// The package imports the standard library only.
package space
