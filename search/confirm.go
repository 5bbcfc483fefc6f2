package search

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// Extra reports whether k is a re-measurement kind (Confirm, Recheck,
// ABBest, ABBase, ABWarm), a minimisation kind (Minimizing: runs derived
// from the best trial) or a skew-check kind (Skewed): scheduled by the
// study's policies, linked to a trial by RepeatOf, measured as recorded,
// never counted towards the trial cap.
func (k Kind) Extra() bool {
	switch k {
	case Confirm, Recheck, ABBest, ABBase, ABWarm:
		return true
	}
	return k.Minimizing() || k.Skewed()
}

// RepeatLink links a trial to the measurements that repeat it.
type RepeatLink struct {
	// RepeatOf is, for the Extra kinds, the number of the trial whose
	// configuration is re-measured: the candidate for Confirm, the
	// baseline for Recheck, the best trial under test for both ABBest
	// and ABBase, and the minimised best trial for the minimisation kinds.
	// It is meaningless (and stored NULL) for other kinds.
	RepeatOf int
	// ConfirmNeeded is how many Confirm re-measurements this trial needs
	// before it may become the best: the study's --confirm when the trial
	// was measured, 0 when confirmation was off (then its own score
	// counts).
	ConfirmNeeded int
}

// Confirmation is the study's re-measurement policy. A nil *Confirmation
// turns it off: every trial counts on its single measurement.
type Confirmation struct {
	// Repeats is --confirm: re-measurements of a trial that beats the
	// incumbent. Its estimate is then the mean of those re-measurements
	// alone (the first measurement, selected because it was high, is left
	// out: winner's curse). ConfirmAuto chooses them for each search
	// trial from the run-to-run noise measured before it (Needed).
	Repeats int
	// RecheckEvery re-measures the baseline after every RecheckEvery
	// search trials (0: never).
	RecheckEvery int
	// ABPairs is the least number of final A/B pairs (0 with ABShare 0:
	// no A/B phase).
	ABPairs int
	// ABShare is the share of a --budget reserved for the A/B phase: it
	// runs as many pairs as fit in that share (at least ABPairs, at most
	// MaxABPairs).
	ABShare float64
}

// ConfirmAuto as Confirmation.Repeats chooses each search trial's
// confirmations from the noise (Needed).
const ConfirmAuto = -1

// ConfirmCount is the text form of Confirmation.Repeats, as the --confirm
// flag takes it: "auto" (ConfirmAuto) or a count of re-measurements
// 0..20. It satisfies pflag.Value.
type ConfirmCount int

func (c *ConfirmCount) String() string {
	if *c == ConfirmAuto {
		return "auto"
	}
	return strconv.Itoa(int(*c))
}

// Set parses "auto" or a count 0..20; the error names what was expected.
func (c *ConfirmCount) Set(s string) error {
	if s == "auto" {
		*c = ConfirmAuto
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 20 {
		return fmt.Errorf("want auto or a count 0..20")
	}
	*c = ConfirmCount(n)
	return nil
}

// Type names the value's form in flag help.
func (c *ConfirmCount) Type() string { return "count|auto" }

// Auto confirmation: a search trial gets one confirmation when the
// run-to-run noise of one measurement's score, pooled over the
// configurations measured twice or more before it started, is at most
// AutoConfirmSE (one re-measurement then estimates the candidate to
// within it), else AutoConfirmMax; until the noise rests on
// AutoConfirmMinDoF degrees of freedom it gets AutoConfirmPrior. In
// general ⌈(noise/AutoConfirmSE)²⌉ clamped to 1..AutoConfirmMax.
//
// autotune-lab bench-search (30 seeds, 100 measurements; host, sparse and
// db at 1.5 %, 3 %, their own 6-10 % and 12 % noise; docs/strategies.md,
// "How many confirmations"): at low noise one confirmation did as well as
// two and leaves measurements to the search; at high noise three or four
// did not beat two (on db at 12 % they did worse), so two is the cap.
const (
	AutoConfirmSE     = 0.045
	AutoConfirmMax    = 2
	AutoConfirmPrior  = 2
	AutoConfirmMinDoF = 4
)

// Needed returns the confirmations a search trial that starts after
// trials needs before it may become the best: Repeats, or under
// ConfirmAuto the count the measured noise asks for (see AutoConfirmSE);
// 0 for a nil policy.
func (c *Confirmation) Needed(trials []Trial) int {
	switch {
	case c == nil:
		return 0
	case c.Repeats != ConfirmAuto:
		return c.Repeats
	}
	sd, df := ScoreNoise(trials)
	if df < AutoConfirmMinDoF {
		return AutoConfirmPrior
	}
	n := int(math.Ceil(sd*sd/(AutoConfirmSE*AutoConfirmSE) - 1e-9))
	return min(max(n, 1), AutoConfirmMax)
}

// confirms reports whether the policy confirms new bests at all.
func (c *Confirmation) confirms() bool {
	return c != nil && c.Repeats != 0
}

// owesConfirmation reports whether the configuration of the last counting
// trial needs a confirmation run now, and returns its representative: its
// first measurement needed confirmation, it is short of it and not
// disqualified, and the mean of its measurements so far beats the
// incumbent among the other configurations (the expert warm start: always).
func owesConfirmation(trials []Trial, last Trial) (Trial, bool) {
	if last.State != Complete || last.Infeasible || last.Kind.Extra() || last.Kind == Baseline {
		return Trial{}, false
	}
	key := last.Params.Key()
	g := groupOf(trials, key)
	if g.disq || g.needConf == 0 {
		return Trial{}, false
	}
	if len(g.counted) >= g.needConf {
		return owesRace(trials, g, key)
	}
	if g.rep.Kind == Expert {
		// The expert warm start is always confirmed: it is the study's
		// prior best guess, and a lucky baseline or an unlucky first run
		// must not leave it unconfirmed, never eligible, for the rest of
		// the study.
		return g.rep, true
	}
	var others []Trial
	for _, u := range trials {
		if u.Params.Key() != key {
			others = append(others, u)
		}
	}
	sum := g.rep.Score
	for _, u := range g.counted {
		sum += u.Score
	}
	inc := incumbent(others)
	return g.rep, inc.Number < 0 || sum/float64(1+len(g.counted)) > inc.Score
}

// followUp returns the re-measurement owed now, if any: the next Confirm
// run of a search trial still open (openTrials, newest first) when it is
// a candidate short of its confirmations, else a baseline Recheck when
// RecheckEvery search trials finished since the baseline was last
// measured, else a run of the final race (raceRun) in the last RaceShare
// of horizon search trials. A re-measurement another worker is running
// (a Running trial of its kind repeating the same trial) is not owed
// twice. It derives everything from trials, so a resumed study owes the
// same.
func (c *Confirmation) followUp(trials []Trial, horizon int) (Proposal, RepeatLink, bool) {
	if c == nil {
		return Proposal{}, RepeatLink{}, false
	}
	base := -1
	var baseParams space.Config
	var baseEnded time.Time
	for _, t := range trials {
		if t.Kind == Baseline && t.State == Complete {
			base, baseParams, baseEnded = t.Number, t.Params, t.Ended
			break
		}
	}
	if base < 0 {
		return Proposal{}, RepeatLink{}, false
	}
	running := func(k Kind, of int) bool {
		return slices.ContainsFunc(trials, func(t Trial) bool { return t.State == Running && t.Kind == k && t.RepeatOf == of })
	}
	for _, t := range openTrials(trials, baseEnded) {
		if rep, ok := owesConfirmation(trials, t); ok && !running(Confirm, rep.Number) {
			return Proposal{Config: rep.Params.Clone(), Kind: Confirm, Handle: -1}, RepeatLink{RepeatOf: rep.Number}, true
		}
	}
	if c.RecheckEvery > 0 {
		since := 0
		for _, t := range trials {
			switch {
			case (t.Kind == Baseline && t.State == Complete) || (t.Kind == Recheck && t.State.Finished()):
				since = 0 // a failed recheck counts too: no retry loop
			case countsToCap(t):
				since++
			}
		}
		if since >= c.RecheckEvery && !running(Recheck, base) {
			// The baseline's own configuration: the server defaults
			// under the study's base (pinned knobs, --baseline-cnf).
			return Proposal{Config: baseParams.Clone(), Kind: Recheck, Handle: -1}, RepeatLink{RepeatOf: base}, true
		}
	}
	if c.confirms() && horizon >= raceMinHorizon && measuredRuns(trials) >= raceFrom(horizon) && countFinished(trials) < horizon && !lastIsRace(trials) {
		if rep, ok := raceRun(trials); ok && !running(Repeat, rep.Number) {
			return Proposal{Config: rep.Params.Clone(), Kind: Repeat, Handle: -1}, RepeatLink{RepeatOf: rep.Number}, true
		}
	}
	return Proposal{}, RepeatLink{}, false
}

// openTrials returns the trials that count towards the cap and that no
// such trial started after the end of, newest first. A trial's end here
// is the latest of its own, the baseline's (since: no confirmation is
// owed before) and those of its Confirm runs (one still running keeps it
// open). In a single process that is the last
// trial, whose confirmations come before the next search trial; with
// workers also a trial that ended, or whose confirmation ran, while
// another worker's trial was running, so its next confirmation is owed
// whichever worker claims next.
func openTrials(trials []Trial, since time.Time) []Trial {
	var confirms []Trial
	for _, u := range trials {
		if u.Kind == Confirm {
			confirms = append(confirms, u)
		}
	}
	var open []Trial
	var latest time.Time // the latest start among the counting trials after t
	seen := false
	for i := len(trials) - 1; i >= 0; i-- {
		t := trials[i]
		if !countsToCap(t) {
			continue
		}
		end, running := t.Ended, false
		for _, u := range confirms {
			if u.RepeatOf == t.Number {
				running = running || u.State == Running
				end = maxTime(end, u.Ended)
			}
		}
		if !seen || running || latest.Before(maxTime(end, since)) {
			open = append(open, t)
		}
		if !seen || t.Started.After(latest) {
			latest, seen = t.Started, true
		}
	}
	return open
}

// maxTime returns the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// plannedRuns returns how many re-measurements the policy still expects
// when search more search trials follow the finished ones (finished counts
// the trials that count towards the cap, the baseline included), and how
// many of them are final A/B runs:
//
//   - Needed Confirm runs for each expected new best among the coming
//     search trials: H(finished+search) − H(finished) of them, H the
//     harmonic number (the expected number of records among exchangeable
//     draws; the baseline is the first record and needs none);
//   - a baseline Recheck every RecheckEvery coming search trials;
//   - the A/B runs still to come (abLeft at perTrial).
//
// The expected Confirm and Recheck runs are rounded to the nearest whole
// run. A nil policy expects none.
func (c *Confirmation) plannedRuns(trials []Trial, goal measure.Goal, finished, search int, budget, perTrial time.Duration) (runs, final int) {
	if c == nil {
		return 0, 0
	}
	expected := 0.0
	if n := c.Needed(trials); n > 0 && search > 0 {
		expected += float64(n) * (harmonic(finished+search) - harmonic(max(1, finished)))
	}
	if c.RecheckEvery > 0 {
		expected += float64(search / c.RecheckEvery)
	}
	final = c.abLeft(trials, goal, budget, perTrial)
	return int(math.Round(expected)) + final, final
}

// harmonic returns the harmonic number H(n) = 1 + 1/2 + ... + 1/n (0 for
// n < 1), exactly up to 1000 and by its asymptotic expansion beyond.
func harmonic(n int) float64 {
	if n < 1 {
		return 0
	}
	if n <= 1000 {
		h := 0.0
		for i := n; i >= 1; i-- {
			h += 1 / float64(i)
		}
		return h
	}
	x := float64(n)
	return math.Log(x) + 0.5772156649015329 + 1/(2*x) - 1/(12*x*x)
}
