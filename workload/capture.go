package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Config is a capture: where the statements come from (slow logs, general
// logs or a live server: exactly one), whether to mask literals, and the
// workload file to write.
type Config struct {
	// SlowLogs are slow query log files, read in order as one log.
	SlowLogs []string
	// GeneralLogs are general query log files, read in order as one log.
	GeneralLogs []string
	// Live, when set, records a running server instead (CaptureLive).
	Live *Live
	// MixServers reads logs of different servers into one workload
	// (ReadOptions.MixServers); without it they are refused.
	MixServers bool
	// MaskLiterals replaces literal values by placeholders (Mask).
	MaskLiterals bool
	// Out is the workload file to write (gzip-compressed when it ends in
	// ".gz").
	Out string
}

// Check returns an error when c cannot be carried out: not exactly one
// source, no output file, an output file that is one of the logs read, a
// live capture without a DSN or a positive duration.
func (c Config) Check() error {
	n := 0
	for _, has := range []bool{len(c.SlowLogs) > 0, len(c.GeneralLogs) > 0, c.Live != nil} {
		if has {
			n++
		}
	}
	switch {
	case n == 0:
		return errors.New("no source: want slow query logs, general query logs or a live server")
	case n > 1:
		return errors.New("several sources: want one of slow query logs, general query logs, a live server")
	case c.Out == "":
		return errors.New("no output file")
	case c.Live != nil && c.Live.DSN == "":
		return errors.New("live capture without a DSN")
	case c.Live != nil && c.Live.For <= 0:
		return fmt.Errorf("live capture for %s: want a duration > 0", c.Live.For)
	}
	out, _ := filepath.Abs(c.Out)
	for _, l := range append(append([]string{}, c.SlowLogs...), c.GeneralLogs...) {
		if p, _ := filepath.Abs(l); p == out {
			return fmt.Errorf("output file %s is the log it reads", c.Out)
		}
	}
	return nil
}

// Capture reads or records the workload c describes, masks its literals
// when asked, writes it to c.Out and returns it.
func Capture(ctx context.Context, c Config) (*Workload, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	var w *Workload
	var err error
	switch {
	case c.Live != nil:
		w, err = CaptureLive(ctx, *c.Live)
	case len(c.SlowLogs) > 0:
		w, err = ReadSlowLogsWith(ReadOptions{MixServers: c.MixServers}, c.SlowLogs...)
	default:
		w, err = ReadGeneralLogsWith(ReadOptions{MixServers: c.MixServers}, c.GeneralLogs...)
	}
	if err != nil {
		return nil, err
	}
	if c.MaskLiterals {
		w = Mask(w)
	}
	if err := Write(c.Out, w); err != nil {
		return nil, err
	}
	return w, nil
}

// Summarize writes what w holds, for a person: where it came from, the
// counts, the statement kinds, what was skipped, the coverage of the log
// (entries read, left out by reason, restarts, time span), and the notes.
func Summarize(out io.Writer, path string, w *Workload) {
	server := "server unknown"
	if w.Server.Text != "" {
		server = w.Server.Text
		if !w.Server.Version.IsZero() {
			server = w.Server.Version.String() + " (" + w.Server.Text + ")"
		}
	}
	fmt.Fprintf(out, "wrote %s: %d statements on %d connections over %s, from %s of %s\n",
		path, w.Statements(), len(w.Connections), w.Duration().Round(time.Millisecond), w.Source, server)
	fmt.Fprintf(out, "schemas: %s; offsets to %s\n", cmpOr(strings.Join(w.Schemas(), ", "), "none"), resolutionText(w.Resolution))
	fmt.Fprintf(out, "statements: %s\n", counts(w.Kinds()))
	if len(w.Skipped) > 0 {
		fmt.Fprintf(out, "not statements, left out: %s\n", counts(w.Skipped))
	}
	fmt.Fprintln(out, Coverage(w))
	if w.Masked {
		fmt.Fprintln(out, "literals masked: the statements are templates with ? placeholders; a replay cannot run them with the captured values (docs/workloads.md)")
	}
	for _, n := range w.Notes {
		fmt.Fprintln(out, "note: "+n)
	}
}

// Coverage says, in one line, how much of its logs w holds: the entries
// read (statements and entries left out), the restarts (file:line), the
// time span of the statements (UTC; "no times" when the log has none).
func Coverage(w *Workload) string {
	left := 0
	for _, n := range w.Skipped {
		left += n
	}
	restarts := make([]string, len(w.Restarts))
	for i, r := range w.Restarts {
		restarts[i] = fmt.Sprintf("%s:%d", filepath.Base(r.File), r.Line)
	}
	at := ""
	if len(restarts) > 0 {
		at = " (" + strings.Join(restarts, ", ") + ")"
	}
	span := "no times"
	if !w.Start.IsZero() {
		const layout = "2006-01-02 15:04:05.999999"
		span = w.Start.UTC().Format(layout) + " to " + w.Start.Add(w.Duration()).UTC().Format(layout) + " UTC"
	}
	return fmt.Sprintf("coverage: %d entries read from %d files, %d statements, %d left out; %d restarts%s; time span %s",
		w.Statements()+left, len(w.Files), w.Statements(), left, len(w.Restarts), at, span)
}

func resolutionText(r time.Duration) string {
	if r == 0 {
		return "no precision (no timestamps)"
	}
	return r.String()
}

// counts renders a count map as "SELECT 120, UPDATE 30", largest first.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", cmpOr(k, "(none)"), m[k])
	}
	return strings.Join(parts, ", ")
}
