package engine

import (
	"fmt"
	"time"
)

// Deadlines bound every phase of a trial, so that no phase can hang a
// study overnight. A phase that overruns fails the trial (an *Overran)
// and the study goes on.
type Deadlines struct {
	// Restore bounds copying the snapshot into the trial datadir (about
	// 2 s for 1.1 GB on the reference machine, docs/measurement.md).
	Restore time.Duration
	// Start bounds the server start, progress or not (runner.StartOptions
	// MaxStart; the readiness wait without progress is shorter).
	Start time.Duration
	// Preload bounds the wait for the buffer pool load at start-up.
	Preload time.Duration
	// BenchGrace is added to a benchmark run's own length (warm-up cap,
	// window and RunSlack) before the run is killed as overrun.
	BenchGrace time.Duration
	// Stop bounds a clean shutdown before SIGKILL.
	Stop time.Duration
}

// DefaultDeadlines are generous bounds for a dataset of a few GB: a
// restore of 10 minutes is 20 MB/s for 12 GB, a start of 10 minutes
// covers crash recovery of a large redo log, a preload of 10 minutes reads
// 12 GB at 20 MB/s; a benchmark gets 30 s beyond its length.
func DefaultDeadlines() Deadlines {
	return Deadlines{Restore: 10 * time.Minute, Start: 10 * time.Minute, Preload: 10 * time.Minute,
		BenchGrace: 30 * time.Second, Stop: StopTimeout}
}

// orDefault fills zero fields from DefaultDeadlines.
func (d Deadlines) orDefault() Deadlines {
	def := DefaultDeadlines()
	for _, p := range []struct{ v, def *time.Duration }{{&d.Restore, &def.Restore}, {&d.Start, &def.Start},
		{&d.Preload, &def.Preload}, {&d.BenchGrace, &def.BenchGrace}, {&d.Stop, &def.Stop}} {
		if *p.v <= 0 {
			*p.v = *p.def
		}
	}
	return d
}

// Overran is a phase that did not finish within its deadline: the trial
// fails with its text ("benchmark overran its time: ...") and the study
// goes on.
type Overran struct {
	// Phase names the phase ("restore", "preload", "benchmark", ...).
	Phase string
	// Limit is the deadline that passed.
	Limit time.Duration
	// Detail says what was seen (samples that arrived, last status).
	Detail string
}

func (o *Overran) Error() string {
	s := fmt.Sprintf("%s overran its time (limit %s)", o.Phase, o.Limit)
	if o.Phase == "benchmark" {
		s = fmt.Sprintf("benchmark overran its time: still running %s after its expected end; killed", o.Limit)
	}
	if o.Detail != "" {
		s += ": " + o.Detail
	}
	return s
}
