// Package study runs autotune's modes: a tuning study on a sandboxed server
// (Search), on a server autotune did not start (Search with Config.Existing),
// as one of several workers sharing a study (Worker), and the noise floor of
// one configuration (Noise). Each mode turns a Config into the same parts,
// in the same functions: the knob space resolved against the server, the
// study opened or created (Open: seed, manifest check, stale trials, lock),
// the benchmark from the driver registry (driver.go; built once, by the
// command line: Config.Benchmark), the dataset prepared once, and the
// trial engine (package engine) that measures every trial. The command
// line only builds the Config.
package study
