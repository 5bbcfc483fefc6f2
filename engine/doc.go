// Package engine is autotune's trial engine: it turns one proposed
// configuration (a search.Trial) into a scored outcome, the same way in
// every mode (sandbox search, existing server, worker, noise).
//
// One trial is: reject a config over the memory budget without starting
// anything; put the config in effect on a Target (the sandbox restores its
// dataset snapshot and starts the server with the trial's options; an
// existing server gets its include file, SET GLOBAL and, when allowed, a
// restart); read every server knob back and fail the trial when the server
// does not run what the trial records; run the Benchmark once per thread
// level while detecting the end of the warm-up from the per-second
// throughput; score the measurement window with measure.ScoreRule; sample
// server status and host CPU during the window; and classify failures (a
// refused config, a crash, a benchmark error: the trial fails and the study
// goes on; a server that ran out of memory (it could not allocate it at
// start, or the kernel killed it at the host profile's memory limit:
// runner.Cgroup) also makes configurations estimated at as much memory or
// more rejected before start;
// cancellation, storage or sandbox trouble and a server that restarted
// during the benchmark stop the study).
//
// The package defines the two interfaces it consumes, Target and
// Benchmark. Benchmark drivers live in their own packages under runner/
// (runner/sysbench, runner/benchcmd) and implement Benchmark without
// importing this package.
package engine
