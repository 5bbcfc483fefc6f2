package report

import (
	"fmt"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// EventKind says what an Event reports.
type EventKind int

const (
	// EventLog is a message (Message).
	EventLog EventKind = iota
	// EventOpen is the study opened (Open).
	EventOpen
	// EventTrialLength is each trial's warm-up cap and measurement window
	// (Warmup, Window).
	EventTrialLength
	// EventPhase is a trial entering a phase (Trial, Phase: one of
	// measure's Phase constants); a trial's first phase starts it.
	EventPhase
	// EventSample is a per-second sample of the running trial (Trial,
	// Sample).
	EventSample
	// EventTrial is a finished trial with the study's best and baseline
	// (Finished).
	EventTrial
	// EventDone is the end of the study (Result) with the next step to
	// suggest (Message); it closes a live display.
	EventDone
	// EventInterrupted is Ctrl-C with the resume hint (Message); it closes
	// a live display.
	EventInterrupted
)

// Event is one thing a mode reports while it runs. The producers (the
// modes, the study loop, the trial engine) emit events; Progress.Emit
// renders each through the chosen sink: a live terminal display, plain
// lines or JSON lines. Only the fields of its Kind are set.
type Event struct {
	Kind EventKind
	// Message is the log line, the next step's hint or the resume hint.
	Message string
	// Open is the opened study (EventOpen).
	Open StudyOpen
	// Warmup and Window are each trial's warm-up cap and measurement
	// window (EventTrialLength).
	Warmup, Window time.Duration
	// Trial is the running trial (EventPhase, EventSample).
	Trial search.Trial
	// Phase is the phase it entered (EventPhase).
	Phase string
	// Sample is the per-second sample (EventSample).
	Sample measure.Sample
	// Finished is the finished trial (EventTrial).
	Finished search.Event
	// Result is the study's result (EventDone).
	Result search.Result
}

// StudyOpen describes the open study: its limits, the budget used by
// earlier runs, when this run started (setup counts against the budget),
// the knob space and the trials already recorded.
type StudyOpen struct {
	Study     string
	Budget    time.Duration
	MaxTrials int
	Spent0    time.Duration
	Start     time.Time
	Space     *space.Space
	History   []search.Trial
}

// Logf returns a log event of the formatted message.
func Logf(format string, a ...any) Event {
	return Event{Kind: EventLog, Message: fmt.Sprintf(format, a...)}
}

// Opened returns the event of the opened study o.
func Opened(o StudyOpen) Event { return Event{Kind: EventOpen, Open: o} }

// TrialLength returns the event of each trial's warm-up cap and
// measurement window.
func TrialLength(warmup, window time.Duration) Event {
	return Event{Kind: EventTrialLength, Warmup: warmup, Window: window}
}

// PhaseOf returns the event of trial t entering phase.
func PhaseOf(t search.Trial, phase string) Event {
	return Event{Kind: EventPhase, Trial: t, Phase: phase}
}

// SampleOf returns the event of a per-second sample s of trial t.
func SampleOf(t search.Trial, s measure.Sample) Event {
	return Event{Kind: EventSample, Trial: t, Sample: s}
}

// Finished returns the event of a finished trial (search.Study.OnTrial).
func Finished(e search.Event) Event { return Event{Kind: EventTrial, Finished: e} }

// Done returns the event of the study's end with the next step's hint.
func Done(res search.Result, hint string) Event {
	return Event{Kind: EventDone, Result: res, Message: hint}
}

// Interrupted returns the event of Ctrl-C with the resume hint.
func Interrupted(hint string) Event { return Event{Kind: EventInterrupted, Message: hint} }
