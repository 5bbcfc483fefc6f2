// Package exportfile owns the file `autotune export` writes: a study's
// chosen configuration in one of its Formats.
//
//   - "cnf": a my.cnf [mysqld] group; "sql": SET GLOBAL statements;
//     "persist": SET PERSIST statements (MySQL 8.0+); each knob after a
//     comment saying what it is. Their comment header names the study, the
//     trial and its score, the baseline, the paired gains over the baseline
//     and over the expert warm start, the server, workload and host
//     profile, the fingerprint of the conditions the gains were measured
//     under, the crash safety of the written values, and (cnf) the runtime
//     knobs that are not my.cnf options.
//   - "json": the same content as one JSON document.
//
// Write and WriteMinimal write it (the full best, or the changes an
// accepted minimisation kept with their measured contributions); both
// refuse a strict study's export of relaxed durability values.
//
// Read and Parse read the comment header back (autotune verify): the
// fingerprint of the conditions the gains were measured under (a
// storage.Fingerprint; the text form of its line is this package's), the
// claimed gain over the baseline, and the runtime knobs, each with its line
// number. A header line autotune writes that does not read back as written
// (an edited fingerprint line) is a *ParseError naming the file and line.
//
// The words the file shares with the terminal and the HTML report are
// defined here and imported by package report: the unit of a trial's
// throughput (ThroughputOf), the headline gains (GainText, RulesText) and
// the contributions of a minimisation (KeptChanges).
//
// It runs nothing and reads no store: callers pass what the study stored.
package exportfile
