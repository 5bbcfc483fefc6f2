package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/autotune/autotune/space"
)

// plainSink prints the log lines and one line per finished trial (the
// output when stdout is not a terminal, e.g. a log file).
type plainSink struct {
	w       io.Writer
	sp      *space.Space
	started *int // the trial whose start was printed last
}

func (p *plainSink) setSpace(sp *space.Space) { p.sp = sp }

// handle prints e; the first phase event of a trial prints that it
// started, so a log shows which trial was running when something happened.
func (p *plainSink) handle(e progressEvent) {
	if e.Event == evPhase && e.Trial != nil && (p.started == nil || *p.started != *e.Trial) {
		n := *e.Trial
		p.started = &n
		fmt.Fprintf(p.w, "trial %d (%s) started\n", n, e.Kind)
	}
	writePlain(p.w, p.sp, e, PlainWidth)
}

func (p *plainSink) close() {}

// writePlain prints the plain form of e, the knob lines of trials cut to
// width columns; phase and sample events print nothing.
func writePlain(w io.Writer, sp *space.Space, e progressEvent, width int) {
	switch e.Event {
	case evLog:
		fmt.Fprintln(w, e.Message)
	case evTrial:
		if sp == nil {
			sp = space.Default()
		}
		fmt.Fprintln(w, TrialLine(sp, e.src, width))
	case evDone:
		if sp == nil {
			sp = space.Default()
		}
		r := e.result
		fmt.Fprintf(w, "study %q stopped: %s after %d trials, %s of budget used\n", e.Study, r.Reason, len(r.Trials), r.Spent.Round(time.Second))
		WriteOutcome(w, sp, r.Best, r.Baseline)
		if e.Message != "" {
			fmt.Fprintln(w, e.Message)
		}
	case evInterrupted:
		fmt.Fprintf(w, "\n%s\n", e.Message)
	case evSummary, evMinimization:
		io.WriteString(w, e.Text)
	}
}

// jsonSink prints every event as one JSON object per line.
type jsonSink struct {
	enc *json.Encoder
}

func newJSONSink(w io.Writer) *jsonSink { return &jsonSink{enc: json.NewEncoder(w)} }

func (j *jsonSink) handle(e progressEvent) { _ = j.enc.Encode(e) }

func (j *jsonSink) close() {}
