package result

import "time"

// The classes of a setting an apply would change (ApplyChange.Class).
const (
	// ApplyDynamic: SET GLOBAL changes it on the running server.
	ApplyDynamic = "dynamic"
	// ApplyRestartOnly: the server reads it at start only; apply lists it
	// for the next planned restart and never restarts the server.
	ApplyRestartOnly = "restart-only"
	// ApplyRefused: apply will not change it (a durability knob under the
	// strict policy, a variable whose class the server does not tell).
	ApplyRefused = "refused"
)

// The verdicts of an apply's watch (ApplyVerdict.Verdict).
const (
	// VerdictPass: the new settings are not slower than the old by more
	// than the margin, with 95 % confidence; they are persisted.
	VerdictPass = "pass"
	// VerdictFail: the new settings are slower, with 95 % confidence;
	// the old ones are put back.
	VerdictFail = "fail"
	// VerdictInconclusive: neither; the old settings are put back.
	VerdictInconclusive = "inconclusive"
	// VerdictTripwire: a tripwire fired; the old settings were put back
	// at once, without statistics.
	VerdictTripwire = "tripwire"
)

// ApplyChange is one setting of the applied file or trial that differs
// from the running server.
type ApplyChange struct {
	// Variable is the server's system variable, Option its option-file
	// spelling, Knob the catalogue's name ("" when the catalogue does not
	// know it).
	Variable, Option, Knob string
	// Old is the running value and New the wanted one, as shown; Value is
	// what SET GLOBAL and the option line carry.
	Old, New, Value string
	// Class is ApplyDynamic, ApplyRestartOnly or ApplyRefused; Why says
	// why a setting is not applied at runtime.
	Class, Why string
}

// ApplyPlan is what `autotune apply` would do, printed before it changes
// anything.
type ApplyPlan struct {
	// Server is the redacted DSN, Identity the server's own name for
	// itself (host:port and datadir), Version its version; Against names
	// the file or trial applied.
	Server, Identity, Version, Against string
	// Changes are the settings that differ, in the file's or catalogue's
	// order; Unchanged counts those that already hold; NotCompared lists
	// the settings left out, each with why.
	Changes     []ApplyChange
	Unchanged   int
	NotCompared []string
	// Memory is the memory check: the server's estimated memory with the
	// new settings against the host's RAM, or why it was not checked.
	Memory string
	// Statistics is where the watch reads the server's statement
	// statistics from and what it loads for that (and unloads after).
	Statistics string
	// Persist says how a pass is persisted (SET PERSIST, or the include
	// file and its backup).
	Persist string
	// Watch is the watch's length, Window one window's, BurnIn the wait
	// after each switch before a window; Pairs is the number of old/new
	// window pairs; Margin the slowdown a pass tolerates (0.05: 5 %).
	Watch, Window, BurnIn time.Duration
	Pairs                 int
	Margin                float64
	// Refusals are the reasons apply will not go on (nothing changed).
	Refusals []string
}

// Dynamic returns the changes SET GLOBAL makes.
func (p ApplyPlan) Dynamic() []ApplyChange {
	var out []ApplyChange
	for _, c := range p.Changes {
		if c.Class == ApplyDynamic {
			out = append(out, c)
		}
	}
	return out
}

// ApplyWindow is one measured window of the watch.
type ApplyWindow struct {
	// Pair is the pair's number (from 1), Arm "old" or "new".
	Pair int
	Arm  string
	// Start and End bound the window (after its burn-in).
	Start, End time.Time
	// Calls is the statements the server finished in it; PerSecond their
	// rate; MeanMS their mean latency (0 when the source has no time).
	Calls     int64
	PerSecond float64
	MeanMS    float64
}

// ApplyVerdict is the watch's judgement.
type ApplyVerdict struct {
	// Verdict is one of the Verdict* constants; Reason says why, and for
	// an inconclusive verdict what to do.
	Verdict, Reason string
	// Pct is the new settings' slowdown (+) or speed-up (−) in percent,
	// LoPct..HiPct its 95 % interval, over Pairs pairs of windows; Source
	// the statistics judged (runner.Source*).
	Pct, LoPct, HiPct float64
	Pairs             int
	Source            string
	// Tripwire names the tripwire that fired, with its value and limit.
	Tripwire string
}

// Applied is what `autotune apply` did.
type Applied struct {
	// ID is the apply's number in the store.
	ID   int64
	Plan ApplyPlan
	// Recovered says what earlier, interrupted applies on this server
	// were finished first.
	Recovered []string
	// Windows are the watch's windows; Verdict its judgement.
	Windows []ApplyWindow
	Verdict ApplyVerdict
	// Persisted lists the settings persisted after a pass; Reverted is
	// set when the old settings were put back.
	Persisted []string
	Reverted  bool
	// RestartLater are the restart-only settings left for the next
	// planned restart.
	RestartLater []ApplyChange
}

// ApplyPlanned is the plan, before anything changes.
type ApplyPlanned struct{ Plan ApplyPlan }

// ApplyStep is one step of an apply: Kind "set", "switch", "persist",
// "revert", "recover", "statistics" or "note", and what it did.
type ApplyStep struct{ Kind, Message string }

// ApplyWindowEnded is a measured window.
type ApplyWindowEnded struct{ Window ApplyWindow }

// ApplyTripped is a tripwire that fired: Name, the value read and the
// limit.
type ApplyTripped struct{ Name, Value, Limit string }

// ApplyJudged is the verdict.
type ApplyJudged struct{ Verdict ApplyVerdict }

func (ApplyPlanned) event()     {}
func (ApplyStep) event()        {}
func (ApplyWindowEnded) event() {}
func (ApplyTripped) event()     {}
func (ApplyJudged) event()      {}
