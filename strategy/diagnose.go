package strategy

import (
	"fmt"
	"math"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Hint is a knob that a measured configuration's server metrics say
// limits it, and the step to try on it.
type Hint struct {
	// Knob is the knob's name.
	Knob string
	// Ratio multiplies the knob's value (2: double it).
	Ratio float64
	// Why says what was measured, in one line.
	Why string
}

const (
	// redoBindShare is the share of the redo log's capacity at which a
	// peak checkpoint age says the redo log limits the writes. InnoDB
	// must flush modified pages before the checkpoint age reaches the
	// log's capacity and begins flushing ahead of it well before (MySQL
	// Reference Manual, "Optimizing InnoDB Redo Logging": "small redo log
	// files cause many unnecessary disk writes"). On MariaDB 10.11 the
	// peak held at 67-81 % of the capacity in every warm start run of
	// docs/scenarios.md (redo logs of 64M and 320M): the flushing holds
	// it there.
	redoBindShare = 2.0 / 3
	// hintRatio is a hint's step: a doubling, the smallest step that
	// clears a limit a quarter more would only move.
	hintRatio = 2.0
)

// Diagnose returns the knobs of sp that the metrics of levels (one
// measured trial of cfg, a configuration of sp) say limit cfg, the way an
// engineer reads SHOW GLOBAL STATUS after a run:
//
//   - the redo log (innodb_redo_log_capacity where sp has it, else
//     innodb_log_file_size × innodb_log_files_in_group): doubled when the
//     peak checkpoint age (checkpoint_age_bytes_max) reached
//     redoBindShare of its capacity;
//   - innodb_log_buffer_size: doubled when a transaction waited for
//     log buffer space (log_waits > 0; MariaDB KB, "Innodb_log_waits":
//     the buffer is too small).
//
// A knob absent from sp, or a metric the server did not report, gives no
// hint; nil when nothing binds.
func Diagnose(sp *space.Space, cfg space.Config, levels []measure.Level) []Hint {
	full := search.FullConfig(sp, cfg)
	var hs []Hint
	if knob, capacity, ok := redoCapacity(sp, full); ok {
		if peak, ok := levelMax(levels, "checkpoint_age_bytes_max"); ok && peak >= redoBindShare*capacity {
			hs = append(hs, Hint{Knob: knob, Ratio: hintRatio, Why: fmt.Sprintf("the checkpoint age peaked at %s, %.0f %% of the %s redo log",
				space.FormatBytes(roundMiB(int64(peak))), 100*peak/capacity, space.FormatBytes(roundMiB(int64(capacity))))})
		}
	}
	if _, ok := sp.Knob("innodb_log_buffer_size"); ok {
		if waits, ok := levelMax(levels, "log_waits"); ok && waits > 0 {
			hs = append(hs, Hint{Knob: "innodb_log_buffer_size", Ratio: hintRatio, Why: fmt.Sprintf("%.0f waits for log buffer space", waits)})
		}
	}
	return hs
}

// redoCapacity returns the knob of sp that sizes the redo log and the
// log's capacity in bytes under full (a configuration with every knob of
// sp): innodb_redo_log_capacity (MySQL 8.0.30+) when sp has it, else
// innodb_log_file_size times innodb_log_files_in_group (1 where sp does
// not have it: MariaDB 10.5+ writes one file). ok is false when sp has
// neither size knob.
func redoCapacity(sp *space.Space, full space.Config) (knob string, capacity float64, ok bool) {
	if k, ok := sp.Knob("innodb_redo_log_capacity"); ok {
		v, err := k.Float(full[k.Name])
		return k.Name, v, err == nil && v > 0
	}
	k, ok := sp.Knob("innodb_log_file_size")
	if !ok {
		return "", 0, false
	}
	size, err := k.Float(full[k.Name])
	if err != nil || size <= 0 {
		return "", 0, false
	}
	files := 1.0
	if g, ok := sp.Knob("innodb_log_files_in_group"); ok {
		if f, err := g.Float(full[g.Name]); err == nil && f >= 1 {
			files = f
		}
	}
	return k.Name, size * files, true
}

// levelMax returns the largest value of metric name over levels; false
// when no level reports it.
func levelMax(levels []measure.Level, name string) (float64, bool) {
	m, ok := math.Inf(-1), false
	for _, l := range levels {
		if v := l.Metrics[name]; v != nil && !math.IsNaN(*v) {
			m, ok = math.Max(m, *v), true
		}
	}
	return m, ok
}
