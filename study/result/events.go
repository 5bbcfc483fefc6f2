package result

import (
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Event is one thing a mode reports while it runs: one of the types of
// this file. A renderer switches on the type; an unknown type is not an
// error (it prints nothing).
type Event interface{ event() }

// Log is a message line ("host profile: ...", a plan line, a note).
type Log struct{ Message string }

// Opened is the study opened: its limits, the budget used by earlier
// runs, when this run started (setup counts against the budget), the
// knob space and the trials already recorded.
type Opened struct {
	Study     string
	Budget    time.Duration // 0: none
	MaxTrials int           // 0: none
	Spent0    time.Duration
	Start     time.Time
	Space     *space.Space
	History   []search.Trial
}

// TrialLength is each trial's warm-up cap and measurement window.
type TrialLength struct{ Warmup, Window time.Duration }

// Phase is trial Trial entering Phase (one of measure's Phase
// constants); a trial's first phase starts it.
type Phase struct {
	Trial search.Trial
	Phase string
}

// Sample is a per-second sample of the running trial.
type Sample struct {
	Trial  search.Trial
	Sample measure.Sample
}

// TrialEnded is a finished trial with the study's best and baseline
// (search.Loop.OnTrial).
type TrialEnded struct{ search.Standing }

// Done is the end of the study: its result and the next step to suggest
// (Hint). It closes a live display.
type Done struct {
	Result search.Result
	Hint   string
}

// Interrupted is Ctrl-C with the resume hint; it closes a live display.
type Interrupted struct{ Hint string }

// Summary is what a search concludes when its budget or trial cap ends:
// the workload, the knob importance, the final A/B gains of the best over
// the baseline and the expert warm start, its gains under the skew
// checks' workload variants, what to do with it, and the minimisation of
// the best when the study ran one. It comes before Done.
type Summary struct {
	Goal measure.Goal
	// Workload is what the study measured, on one line
	// (storage.WorkloadText: the benchmark, its workload and access
	// distribution, the dataset, threads and objective); "" unknown.
	Workload string
	Space    *space.Space
	// Trials are the study's trials, the skew check's runs among them
	// (search.Kind.Skewed: search.SkewOf reads them).
	Trials []search.Trial
	Best   search.Trial
	// Importance ranks the knobs by their share of the score variance
	// over ImportanceTrials complete trials, under ImportanceCaveat (""
	// without); ImportanceNote says why there is no ranking ("" when
	// there is one).
	Importance       []search.KnobImportance
	ImportanceTrials int
	ImportanceCaveat string
	ImportanceNote   string
	// ExportHint is the command that writes the best as a my.cnf.
	ExportHint string
	// Minimization is the minimisation of the best (nil: none ran).
	Minimization *Minimization
}

// Minimization is the result of minimising a study's best: the steps
// and the minimal configuration (search.Minimize), in the study's space.
type Minimization struct {
	Space  *space.Space
	Result search.Minimized
}

// VerifyRunEnded is one finished run of autotune verify.
type VerifyRunEnded struct {
	Run  VerifyRun
	Goal measure.Goal
}

// NoiseRunEnded is one finished repeat of autotune noise (Index from 0).
type NoiseRunEnded struct {
	Index int
	Run   NoiseRun
	Took  time.Duration
}

func (Log) event()            {}
func (Opened) event()         {}
func (TrialLength) event()    {}
func (Phase) event()          {}
func (Sample) event()         {}
func (TrialEnded) event()     {}
func (Done) event()           {}
func (Interrupted) event()    {}
func (Summary) event()        {}
func (Minimization) event()   {}
func (VerifyRunEnded) event() {}
func (NoiseRunEnded) event()  {}
