package search

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
	"gonum.org/v1/gonum/stat"
)

// Extra reports whether k is a re-measurement kind (Confirm, Recheck,
// ABBest, ABBase, ABWarm) or a minimisation kind (Minimizing: runs derived from
// the best trial): scheduled by the study's policies, linked to a trial
// by RepeatOf, measured as recorded, never counted towards the trial cap.
func (k Kind) Extra() bool {
	switch k {
	case Confirm, Recheck, ABBest, ABBase, ABWarm:
		return true
	}
	return k.Minimizing()
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

// MinABPairs is the fewest rounds the final A/B phase runs when the
// measured noise allows fewer than Confirmation.ABPairs: at 3 pairs a 95 %
// interval rests on 2 degrees of freedom.
const MinABPairs = 3

// ABTargetPct is the expected 95 % half-width (in %) of the final A/B
// phase's gain at which its rounds stop short of Confirmation.ABPairs: at
// 1.3 % run-to-run noise, 4 pairs give ±2.9 %.
const ABTargetPct = 3.0

// MaxABPairs bounds the A/B phase.
const MaxABPairs = 50

// ConfirmAuto as Confirmation.Repeats chooses each search trial's
// confirmations from the noise (Needed).
const ConfirmAuto = -1

// Auto confirmation: a search trial gets one confirmation when the
// run-to-run noise of one measurement's score, pooled over the
// configurations measured twice or more before it started, is at most
// AutoConfirmSE (one re-measurement then estimates the candidate to
// within it), else AutoConfirmMax; until the noise rests on
// AutoConfirmMinDoF degrees of freedom it gets AutoConfirmPrior. In
// general ⌈(noise/AutoConfirmSE)²⌉ clamped to 1..AutoConfirmMax.
//
// bench-search (30 seeds, 100 measurements; host, sparse and db at 1.5 %,
// 3 %, their own 6-10 % and 12 % noise; docs/strategies.md, "How many
// confirmations"): at low noise one confirmation did as well as two and
// leaves measurements to the search; at high noise three or four did not
// beat two (on db at 12 % they did worse), so two is the cap.
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

// ScoreNoise returns the run-to-run noise of one measurement's score (the
// standard deviation of its natural log, so 0.03 is about 3 %) pooled over
// the configurations measured twice or more among trials (the final A/B
// and minimisation runs left out), and its degrees of freedom (0, 0
// before any configuration was measured twice).
func ScoreNoise(trials []Trial) (sd float64, df int) {
	var b bestTracker
	for _, u := range trials {
		b.add(u)
	}
	if b.df == 0 {
		return 0, 0
	}
	return math.Sqrt(math.Max(0, b.ss) / float64(b.df)), b.df
}

// Estimate is what a study believes about one configuration: all complete
// measurements of the same effective configuration (the same knob values
// after repair, Params.Key, however they were proposed) pool into one
// estimate. The final A/B runs are left out: they judge the chosen
// configuration and are reported on their own (ABGain).
type Estimate struct {
	// Score and MeanTPS are means over the measurements that count: every
	// complete, feasible measurement of the configuration except, when
	// the configuration was first measured under confirmation, that first
	// measurement (selected because it was high: winner's curse).
	Score, MeanTPS float64
	// Penalties are the score's components over the same measurements:
	// the amounts and rates are means, the dip and stall seconds rounded
	// means, the history-list growth the mean of the measurements that
	// sampled it (NaN when none did).
	Penalties measure.Penalties
	// SE is the standard error of Score (sd/√N; NaN for N < 2).
	SE float64
	// N is the number of measurements behind the estimate.
	N int
	// NotSteadyLeft is the number of measurements left out of the
	// estimate because their window was not steady while another one was;
	// NotSteadyKept the number behind it that were not steady, where none
	// was (steadyRuns).
	NotSteadyLeft, NotSteadyKept int
	// Eligible reports whether the configuration may be the best: it has
	// a complete, feasible measurement, none of its re-measurements failed
	// or was infeasible, and, when its first measurement needed
	// confirmation, ConfirmNeeded more measurements count.
	Eligible bool
	// Trial is the number of the configuration's first complete
	// measurement (its representative; −1 when none).
	Trial int
}

// group is every measurement of one configuration.
type group struct {
	rep      Trial   // the first complete, feasible measurement (Number −1: none)
	counted  []Trial // the measurements the estimate uses
	all      int     // complete, feasible measurements, the first included
	disq     bool    // a re-measurement failed or was infeasible
	needConf int     // confirmations the first measurement needed
	listed   bool    // Incumbents considers the group (it has a complete measurement)
}

// measures reports whether u is a measurement that may count towards its
// configuration's estimate: not a final A/B run and not a minimisation
// run (both judge the chosen configuration; a minimisation must not
// change which configuration it minimises).
func measures(u Trial) bool {
	return u.Kind != ABBest && u.Kind != ABBase && u.Kind != ABWarm && !u.Kind.Minimizing()
}

// groupOf collects the measurements of configuration key.
func groupOf(trials []Trial, key string) group {
	g := group{rep: Trial{Number: -1}}
	for _, u := range trials {
		if measures(u) && u.Params.Key() == key {
			g.add(u)
		}
	}
	return g
}

// add takes in u, the next measurement of the group's configuration (not
// a final A/B run).
func (g *group) add(u Trial) {
	if u.Kind.Extra() && (unscored(u) || (u.State == Complete && u.Infeasible)) {
		g.disq = true
		return
	}
	if u.State != Complete || u.Infeasible {
		return
	}
	g.all++
	if g.rep.Number < 0 {
		g.rep = u
		if u.Kind != Baseline && !u.Kind.Extra() && u.ConfirmNeeded > 0 {
			g.needConf = u.ConfirmNeeded
			return // winner's curse: the selecting measurement
		}
	}
	g.counted = append(g.counted, u)
}

func (g group) estimate() Estimate {
	e := Estimate{Trial: g.rep.Number, SE: math.NaN()}
	if g.rep.Number < 0 {
		return e
	}
	runs := g.counted
	if len(runs) == 0 {
		// Not yet re-measured: the first measurement is all there is
		// (not eligible).
		runs = []Trial{g.rep}
	}
	runs, e.NotSteadyLeft, e.NotSteadyKept = steadyRuns(runs)
	scores, tps := make([]float64, len(runs)), make([]float64, len(runs))
	for i, u := range runs {
		scores[i], tps[i] = u.Score, u.MeanTPS
	}
	e.N = len(scores)
	e.Score, e.MeanTPS, e.Penalties = measure.Mean(scores), measure.Mean(tps), meanPenalties(runs)
	if e.N >= 2 {
		_, sd := stat.MeanStdDev(scores, nil)
		e.SE = sd / math.Sqrt(float64(e.N))
	}
	e.Eligible = !g.disq && len(g.counted) >= max(1, g.needConf)
	return e
}

// steadyRuns returns the measurements an estimate is the mean of: those
// whose window was steady, when there is one (left: how many that were not
// steady are left out), else all of them (kept: how many, none steady). A
// window that found no steady start before the warm-up cap measured a
// server still moving (see SteadyPairs); where the configuration has a
// steady window, that one says what it does in its steady state.
func steadyRuns(runs []Trial) (use []Trial, left, kept int) {
	for _, u := range runs {
		if !u.WarmupCapped {
			use = append(use, u)
		}
	}
	if len(use) > 0 {
		return use, len(runs) - len(use), 0
	}
	return runs, 0, len(runs)
}

// meanPenalties returns the mean penalties of runs (at least one): see
// Estimate.Penalties.
func meanPenalties(runs []Trial) measure.Penalties {
	ps := make([]measure.Penalties, len(runs))
	for i, u := range runs {
		ps[i] = u.Penalties
	}
	return measure.MeanPenalties(ps)
}

// withEstimate returns t with Score, MeanTPS and Penalties set to e's.
func withEstimate(t Trial, e Estimate) Trial {
	t.Score, t.MeanTPS, t.Penalties = e.Score, e.MeanTPS, e.Penalties
	return t
}

// EstimateOf returns the estimate of trial t's configuration (the pooled
// measurements of t.Params.Key() among trials, see Estimate).
func EstimateOf(trials []Trial, t Trial) Estimate {
	return groupOf(trials, t.Params.Key()).estimate()
}

// incumbent returns the study's best after all of trials (see
// Incumbents): the representative trial of its configuration with Score,
// MeanTPS and Penalties set to its estimate, Number −1 when none.
func incumbent(trials []Trial) Trial {
	var b bestTracker
	for _, u := range trials {
		b.add(u)
	}
	return b.best()
}

// ShrinkMin is the number of measured configurations from which the best
// is chosen on shrunk estimates (see Incumbents); with fewer, the highest
// estimate is the best.
const ShrinkMin = 4

// logStats accumulates the log scores of one configuration's
// measurements, for the pooled run-to-run noise.
type logStats struct{ n, sum, sumsq float64 }

func (l logStats) ss() float64 {
	if l.n < 2 {
		return 0
	}
	return math.Max(0, l.sumsq-l.sum*l.sum/l.n)
}

// shrunkBest returns the eligible group with the best shrunk estimate
// among order (nil when none is eligible), given the pooled variance of a
// single measurement's log score noise2 (0: unknown). The shrunk estimate
// is the empirical-Bayes posterior mean of the configuration's log score:
// the configurations' true log scores are taken to spread around their
// mean m with variance tau2 (the variance of the estimates' log scores
// less their mean sampling variance noise2/N, method of moments), and an
// estimate from N measurements is pulled towards m by the factor
// noise2/N / (tau2 + noise2/N). Where the measured configurations differ
// by much more than the noise (tau2 large), the pull is small and the
// highest estimate wins; where most of them are alike and the noise is
// large, a configuration measured three times that got lucky does not
// displace one measured eight times. With the noise unknown or fewer than
// ShrinkMin configurations, the highest estimate wins.
func shrunkBest(order []*group, ests map[*group]Estimate, noise2 float64) *group {
	best, _ := shrunkBestSpread(order, ests, noise2)
	return best
}

// shrunkBestSpread is shrunkBest that also returns the spread tau2 it
// estimated (the variance of the configurations' true log scores; −1
// when the highest estimate won without shrinkage).
func shrunkBestSpread(order []*group, ests map[*group]Estimate, noise2 float64) (*group, float64) {
	var best *group
	for _, g := range order {
		if e := ests[g]; e.Eligible && (best == nil || e.Score > ests[best].Score) {
			best = g
		}
	}
	if best == nil || noise2 <= 0 {
		return best, -1
	}
	var ys, vs []float64
	for _, g := range order {
		if e := ests[g]; e.N > 0 && e.Score > 0 {
			ys = append(ys, math.Log(e.Score))
			vs = append(vs, noise2/float64(e.N))
		}
	}
	if len(ys) < ShrinkMin {
		return best, -1
	}
	m := measure.Mean(ys)
	spread := 0.0
	for _, y := range ys {
		spread += (y - m) * (y - m)
	}
	spread /= float64(len(ys) - 1)
	tau2 := math.Max(spread-measure.Mean(vs), 1e-6)
	best = nil
	bestV := math.Inf(-1)
	for _, g := range order {
		e := ests[g]
		if !e.Eligible || e.Score <= 0 {
			continue
		}
		v := noise2 / float64(e.N)
		if post := m + tau2/(tau2+v)*(math.Log(e.Score)-m); post > bestV {
			best, bestV = g, post
		}
	}
	return best, tau2
}

// Incumbents returns the study's best trial after each trial: element i is
// the best of trials[:i+1] exactly as Best returns it (Number −1 while
// there is none). The best is the eligible configuration (see Estimate: a
// configuration that needs confirmation becomes eligible only with its
// last confirmation, a demoted one never) with the best shrunk estimate
// (shrunkBest, from the run-to-run noise pooled over the configurations
// measured twice or more so far): confirming each configuration does not
// stop the winner's curse *across* configurations, since after fifty
// confirmed candidates of equal value the luckiest would otherwise lead.
// It takes one pass over the trials.
func Incumbents(trials []Trial) []Trial {
	out := make([]Trial, len(trials))
	var b bestTracker
	for i, u := range trials {
		b.add(u)
		out[i] = b.best()
	}
	return out
}

// bestTracker follows the study's best as trials are added in order.
type bestTracker struct {
	groups map[string]*group
	ests   map[*group]Estimate
	logs   map[string]*logStats
	order  []*group // in the order of their first complete measurement
	ss     float64  // within-configuration sum of squares of log scores
	df     int      // its degrees of freedom
}

// add takes in the next trial.
func (b *bestTracker) add(u Trial) {
	if !measures(u) {
		return
	}
	if b.groups == nil {
		b.groups, b.ests, b.logs = map[string]*group{}, map[*group]Estimate{}, map[string]*logStats{}
	}
	key := u.Params.Key()
	g := b.groups[key]
	if g == nil {
		g = &group{rep: Trial{Number: -1}}
		b.groups[key] = g
	}
	g.add(u)
	if u.State == Complete && !g.listed {
		g.listed = true
		b.order = append(b.order, g)
	}
	if g.listed {
		b.ests[g] = g.estimate()
	}
	if u.State == Complete && !u.Infeasible && u.Score > 0 {
		l := b.logs[key]
		if l == nil {
			l = &logStats{}
			b.logs[key] = l
		}
		b.ss -= l.ss()
		v := math.Log(u.Score)
		l.n, l.sum, l.sumsq = l.n+1, l.sum+v, l.sumsq+v*v
		b.ss += l.ss()
		if l.n >= 2 {
			b.df++ // every measurement after a configuration's first
		}
	}
}

// noise2 returns the variance of one measurement's log score pooled over
// the configurations measured twice or more (0 before 2 degrees of
// freedom).
func (b *bestTracker) noise2() float64 {
	if b.df < 2 {
		return 0
	}
	return math.Max(0, b.ss) / float64(b.df)
}

// best returns the best so far (Number −1 when none), with its estimate.
func (b *bestTracker) best() Trial {
	if g := shrunkBest(b.order, b.ests, b.noise2()); g != nil {
		return withEstimate(g.rep, b.ests[g])
	}
	return Trial{Number: -1}
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

// RaceZ is how many standard errors of the difference a confirmed
// candidate's lead over the best it would displace must reach for the
// race between them to end before both have their full runs (see
// owesRace).
const RaceZ = 2

// owesRace returns the run a close race owes, if any. Confirmed candidate
// g (configuration key) races the best it would displace (the rival) when
// all of these hold:
//
//   - g is the best (Incumbents) and the rival the best of the other
//     configurations;
//   - the measured configurations are alike within the noise: the spread
//     of their true log scores that shrunkBest estimates (tau2) is under
//     twice the noise variance of g's estimate (noise2/N): the regime
//     where a lucky confirmation decides which configuration leads;
//   - g's lead on the log scale is under RaceZ standard errors of the
//     difference, from the run-to-run noise pooled over the study's
//     repeats;
//   - one of the two has fewer than twice the confirmations g's first
//     measurement needed (the full runs).
//
// The race measures the one with fewer runs (the rival on a tie only
// once g has its full runs), one run at a time, re-deciding after each.
// Where configurations differ by much more than the noise nothing
// changes; on a plateau at 15 % noise a configuration whose two
// confirmations were lucky does not take the best from the expert warm
// start on them.
// A race costs at most 2 × needConf runs.
func owesRace(trials []Trial, g group, key string) (Trial, bool) {
	var all, others bestTracker
	for _, u := range trials {
		all.add(u)
		if u.Params.Key() != key {
			others.add(u)
		}
	}
	noise2 := all.noise2()
	bestG, tau2 := shrunkBestSpread(all.order, all.ests, noise2)
	inc := others.best()
	if bestG == nil || inc.Number < 0 || bestG.rep.Params.Key() != key || noise2 <= 0 {
		return Trial{}, false
	}
	best := withEstimate(bestG.rep, all.ests[bestG])
	if best.Score <= 0 || inc.Score <= 0 {
		return Trial{}, false
	}
	nG, nInc := len(g.counted), others.ests[others.groups[inc.Params.Key()]].N
	// The estimate's own measurements (steadyRuns may leave some out)
	// set its error; nG counts the runs the confirmation spent.
	nEst := nG - all.ests[bestG].NotSteadyLeft
	if tau2 < 0 || tau2 >= 2*noise2/float64(nEst) {
		return Trial{}, false
	}
	full := 2 * g.needConf
	if nG >= full && nInc >= full {
		return Trial{}, false
	}
	se := math.Sqrt(noise2/float64(nEst) + noise2/float64(max(1, nInc)))
	if math.Log(best.Score)-math.Log(inc.Score) >= RaceZ*se {
		return Trial{}, false
	}
	if nInc < nG && nInc < full {
		return inc, true
	}
	if nG < full {
		return g.rep, true
	}
	return inc, true
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

// RaceShare is the share of a study's horizon (its planned search
// trials) at its end in which every other search trial is a run of the
// final race (raceRun), with confirmation on and a horizon of at least
// raceMinHorizon: a shorter study's race would be one or two runs, which
// cannot tell apart two configurations the noise makes it race.
const (
	RaceShare      = 0.2
	raceMinHorizon = 20
)

// raceFrom returns the number of search trials from which the final race
// runs in a study of horizon search trials.
func raceFrom(horizon int) int {
	return int(math.Round(float64(horizon) * (1 - RaceShare)))
}

// measuredRuns returns how many of trials finished and measure a
// configuration for the search (every kind but the final A/B and
// minimisation runs, re-measurements included).
func measuredRuns(trials []Trial) int {
	n := 0
	for _, t := range trials {
		if t.State.Finished() && measures(t) {
			n++
		}
	}
	return n
}

// lastIsRace reports whether the last trial that counts towards the cap
// is a run of the race.
func lastIsRace(trials []Trial) bool {
	for i := len(trials) - 1; i >= 0; i-- {
		if countsToCap(trials[i]) {
			return trials[i].Kind == Repeat
		}
	}
	return false
}

// raceRun returns the representative trial of whichever of the two
// configurations with the best estimates (EstimateOf, among those
// measured twice or more) has fewer measurements, the better one on a
// tie; false while fewer than two were measured twice, and while the two
// are more than raceDecided standard errors of their difference apart
// (the run-to-run noise of the log scores, once it rests on raceMinDoF
// degrees of freedom). The recommendation is decided between them, and
// at 6-12 % noise three measurements each cannot tell them apart.
func raceRun(trials []Trial) (Trial, bool) {
	type cand struct {
		rep Trial
		est float64
		n   int
	}
	var cs []cand
	seen := map[string]bool{}
	for _, u := range trials {
		k := u.Params.Key()
		if u.State != Complete || seen[k] || !measures(u) {
			continue
		}
		seen[k] = true
		if g := groupOf(trials, k); g.all >= 2 && !g.disq {
			cs = append(cs, cand{g.rep, g.estimate().Score, g.all})
		}
	}
	if len(cs) < 2 {
		return Trial{}, false
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(b.est, a.est) })
	if sd, dof := noiseStats(measure.GoalTPS, trials); dof >= raceMinDoF && sd > 0 && cs[1].est > 0 &&
		math.Log(cs[0].est/cs[1].est) > raceDecided*sd*math.Sqrt(1/float64(cs[0].n)+1/float64(cs[1].n)) {
		return Trial{}, false
	}
	if cs[1].n < cs[0].n {
		return cs[1].rep, true
	}
	return cs[0].rep, true
}

// raceDecided is the gap between the race's two estimates, in standard
// errors of their difference, beyond which the race is decided and does
// not run; raceMinDoF is the least number of degrees of freedom of the
// noise for the race to call a pair decided.
const (
	raceDecided = 3.0
	raceMinDoF  = 4
)

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

// abPairs returns the number of A/B rounds (pairs, or triples with the
// warm start's arm) the final phase aims for when a round measures arms
// configurations, at noise, the run-to-run noise abNoise measured (0:
// not measured yet). With the noise measured, the fewest rounds from
// MinABPairs up to ABPairs whose expected 95 % interval of a gain is
// within ±ABTargetPct (HalfWidthPct); ABPairs, or the rounds ABShare of
// the budget holds when more, at a noise that needs them all or when it
// is not known.
func (c *Confirmation) abPairs(budget, perTrial time.Duration, arms int, noise float64) int {
	if c == nil {
		return 0
	}
	n := c.ABPairs
	if noise > 0 {
		for m := MinABPairs; m < n; m++ {
			if HalfWidthPct(noise*math.Sqrt2, m) <= ABTargetPct {
				return m
			}
		}
	}
	if budget > 0 && perTrial > 0 && c.ABShare > 0 {
		if fit := int(float64(budget) * c.ABShare / float64(time.Duration(arms)*perTrial)); fit > n {
			n = fit
		}
	}
	return min(n, MaxABPairs)
}

// abNoise returns the run-to-run noise of goal over trials (NoiseSD) once
// it rests on at least 2 degrees of freedom; 0 before.
func abNoise(goal measure.Goal, trials []Trial) float64 {
	if sd, df := noiseStats(goal, trials); df >= 2 {
		return sd
	}
	return 0
}

// abLeft returns how many runs of the final A/B phase are still to come:
// the rounds it aims for (abPairs at perTrial) times the arms of a round
// (abArms) less the A/B runs of the best trial already finished, once
// there is a best that is not the baseline (before that none: the phase
// would have nothing to compare).
func (c *Confirmation) abLeft(trials []Trial, goal measure.Goal, budget, perTrial time.Duration) int {
	if c == nil {
		return 0
	}
	best, base := Best(trials)
	if best.Number < 0 || base.Number < 0 || best.Number == base.Number {
		return 0
	}
	arms := len(abArms(trials, best, base))
	return max(0, arms*c.abPairs(budget, perTrial, arms, abNoise(goal, trials))-len(abRuns(trials, best.Number)))
}

// abArm is one configuration the final A/B phase measures each round.
type abArm struct {
	kind   Kind
	params space.Config
}

// abArms returns the arms of a round of the final A/B phase of best: the
// best (ABBest) and the baseline (ABBase), and the expert warm start
// (ABWarm) when its trial completed feasibly with a configuration that is
// neither the best's nor the baseline's, and the phase has not begun or
// began with it: its first round measures the warm start third, so a phase
// of best begun with two arms (a study resumed from one that had no third
// arm) keeps two, and every warm-start run stays in the round of the
// best's run it is paired with (WarmStartGain).
func abArms(trials []Trial, best, base Trial) []abArm {
	arms := []abArm{{ABBest, best.Params}, {ABBase, base.Params}}
	w, ok := warmTrial(trials)
	if !ok || w.State != Complete || w.Infeasible {
		return arms
	}
	if k := w.Params.Key(); k == best.Params.Key() || k == base.Params.Key() {
		return arms
	}
	if runs := abRuns(trials, best.Number); len(runs) >= 3 && !slices.ContainsFunc(runs, func(t Trial) bool { return t.Kind == ABWarm }) {
		return arms
	}
	return append(arms, abArm{ABWarm, w.Params})
}

// warmTrial returns the study's expert warm-start trial (the first trial
// of kind Expert, in whatever state), false when the study has none.
func warmTrial(trials []Trial) (Trial, bool) {
	for _, t := range trials {
		if t.Kind == Expert {
			return t, true
		}
	}
	return Trial{Number: -1}, false
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

// abRuns returns the finished A/B runs of the best trial number.
func abRuns(trials []Trial, best int) []Trial {
	var out []Trial
	for _, t := range trials {
		if (t.Kind == ABBest || t.Kind == ABBase || t.Kind == ABWarm) && t.RepeatOf == best && t.State.Finished() {
			out = append(out, t)
		}
	}
	return out
}

// nextAB returns the next run of the final A/B phase: rounds of the
// arms (abArms: the best configuration, the baseline and, where it
// differs from both, the expert warm start), each round in the order of
// the one before rotated by one (A B, B A, A B, ... for two arms; A B W,
// B W A, W A B, ... for three: a cyclic Latin square, so over each cycle
// of rounds a steady drift of the machine favours no arm), until the
// phase has its rounds, then, with extend, while what is left of the
// budget (left) holds a whole round at finalRunCost a run, up to
// MaxABPairs; false when there is
// nothing to compare (no best other than the baseline), when the rounds
// are done, or when the best's and the baseline's runs keep failing.
//
// The warm start's arm is left out when its runs keep failing (more
// failures than rounds: the gain over the baseline must not be lost with
// it) and, before its first run, when the budget is set and what is left
// of it (left) holds fewer than two and a half runs a round at the
// median trial cost (estimate, as the rounds run; not finalRunCost, the
// upper quartile the reserve is held at, which slow confirmations can
// raise past what the rounds cost): the reserve was planned for two arms
// (the best changed after the plan) and a third would overrun the budget.
func (c *Confirmation) nextAB(trials []Trial, goal measure.Goal, budget, left time.Duration, extend bool) (Proposal, RepeatLink, bool) {
	if c == nil {
		return Proposal{}, RepeatLink{}, false
	}
	best, base := Best(trials)
	if best.Number < 0 || base.Number < 0 || best.Number == base.Number {
		return Proposal{}, RepeatLink{}, false
	}
	arms := abArms(trials, best, base)
	per := estimate(trials)
	noise := abNoise(goal, trials)
	pairs := c.abPairs(budget, per, len(arms), noise)
	count, failed := map[Kind]int{}, map[Kind]int{}
	for _, r := range abRuns(trials, best.Number) {
		count[r.Kind]++
		if unscored(r) {
			failed[r.Kind]++
		}
	}
	cost := finalRunCost(trials, per)
	if len(arms) == 3 {
		short := budget > 0 && count[ABWarm] == 0 && per > 0 && left < time.Duration(5*pairs)*per/2
		if short || failed[ABWarm] > pairs {
			arms = arms[:2]
			pairs = c.abPairs(budget, per, 2, noise)
		}
	}
	n := len(arms)
	more := 0
	if extend && cost > 0 {
		more = int(left / (time.Duration(n) * cost))
	}
	runs, round := 0, math.MaxInt
	for _, a := range arms {
		runs += count[a.kind]
		round = min(round, count[a.kind])
	}
	if failed[ABBest]+failed[ABBase] > pairs || runs >= n*MaxABPairs {
		return Proposal{}, RepeatLink{}, false
	}
	// Past its rounds the phase completes a round it began, and begins
	// another while the budget holds one (the reserve is held at a
	// pessimistic run cost, so what it leaves narrows the interval).
	if round >= pairs && runs == n*round && more < 1 {
		return Proposal{}, RepeatLink{}, false
	}
	// The round is the fewest runs of an arm; within it the arms go in
	// the order rotated by the round, and the first one still short of
	// the round runs.
	for i := range n {
		a := arms[(round+i)%n]
		if count[a.kind] == round {
			return Proposal{Config: a.params.Clone(), Kind: a.kind, Handle: -1}, RepeatLink{RepeatOf: best.Number}, true
		}
	}
	return Proposal{}, RepeatLink{}, false
}

// Verdict describes what a finished re-measurement settled, for the
// progress display: "" when it settled nothing yet. After the last Confirm
// run of a candidate it says whether the candidate became the best or was
// demoted; after a Recheck it reports the baseline's drift. After a
// search trial that needs another number of confirmations than the one
// before it (ConfirmAuto: the noise moved) it says so, with the noise.
func Verdict(trials []Trial, t Trial) string {
	if t.ConfirmNeeded > 0 && !t.Kind.Extra() && t.Kind != Baseline {
		return confirmChange(trials, t)
	}
	switch t.Kind {
	case Confirm:
		idx := -1
		for i, u := range trials {
			if u.Number == t.RepeatOf {
				idx = i
			}
		}
		if idx < 0 {
			return ""
		}
		cand := trials[idx]
		e := EstimateOf(trials, cand)
		g := groupOf(trials, cand.Params.Key())
		if e.Eligible && len(g.counted) > g.needConf {
			return raceVerdict(trials, cand, e)
		}
		var others []Trial
		for _, u := range trials {
			if u.Params.Key() != cand.Params.Key() {
				others = append(others, u)
			}
		}
		inc := incumbent(others)
		if !e.Eligible {
			if unscored(t) || t.Infeasible {
				return fmt.Sprintf("trial %d demoted: a confirmation run failed, was rejected or was infeasible", cand.Number)
			}
			return ""
		}
		best := incumbent(trials)
		if best.Number >= 0 && best.Params.Key() == cand.Params.Key() {
			if inc.Number < 0 {
				return fmt.Sprintf("trial %d confirmed: mean of %d re-measurements %.1f (first %.1f): new best",
					cand.Number, e.N, e.Score, cand.Score)
			}
			race := ""
			if _, ok := owesRace(trials, g, cand.Params.Key()); ok {
				race = ", by less than the noise explains: both are measured again (a close race)"
			}
			return fmt.Sprintf("trial %d confirmed: mean of %d re-measurements %.1f (first %.1f) beats #%d's %.1f: new best%s",
				cand.Number, e.N, e.Score, cand.Score, inc.Number, inc.Score, race)
		}
		if best.Number >= 0 && e.Score > best.Score {
			return fmt.Sprintf("trial %d not taken: re-measured %.1f (mean of %d) is above #%d's %.1f (mean of %d) by less than the run-to-run noise explains: #%d stays the best",
				cand.Number, e.Score, e.N, best.Number, best.Score, EstimateOf(trials, best).N, best.Number)
		}
		return fmt.Sprintf("trial %d demoted: first measured %.1f, re-measured %.1f (mean of %d), below #%d's %.1f",
			cand.Number, cand.Score, e.Score, e.N, inc.Number, inc.Score)
	case Recheck:
		for _, u := range trials {
			if u.Number == t.RepeatOf && t.State == Complete && u.Score != 0 {
				e := EstimateOf(trials, u)
				return fmt.Sprintf("baseline re-measured: %.1f vs first %.1f (%+.1f %% drift); baseline estimate %.1f over %d runs",
					t.Score, u.Score, (t.Score-u.Score)/math.Abs(u.Score)*100, e.Score, e.N)
			}
		}
	}
	return ""
}

// raceVerdict describes a run of a close race (owesRace): cand, re-measured
// beyond its confirmations (or the configuration it would displace), and
// its rival, each with its estimate, and which of them is the best now.
func raceVerdict(trials []Trial, cand Trial, e Estimate) string {
	key := cand.Params.Key()
	best := incumbent(trials)
	rival := best
	if best.Number >= 0 && best.Params.Key() == key {
		var others []Trial
		for _, u := range trials {
			if u.Params.Key() != key {
				others = append(others, u)
			}
		}
		rival = incumbent(others)
	}
	if best.Number < 0 || rival.Number < 0 {
		return ""
	}
	return fmt.Sprintf("close race: trial %d re-measured, %.1f (mean of %d) against #%d's %.1f (mean of %d): #%d is the best",
		cand.Number, e.Score, e.N, rival.Number, rival.Score, EstimateOf(trials, rival).N, best.Number)
}

// confirmChange describes a change in the confirmations a new best needs
// at search trial t ("" when t needs as many as the search trial before
// it, or is the first to need any): the count before and now, and the
// run-to-run noise of the score measured before t began.
func confirmChange(trials []Trial, t Trial) string {
	i := slices.IndexFunc(trials, func(u Trial) bool { return u.Number == t.Number })
	if i < 0 {
		return ""
	}
	for j := i - 1; j >= 0; j-- {
		u := trials[j]
		if u.ConfirmNeeded == 0 || u.Kind.Extra() || u.Kind == Baseline {
			continue
		}
		if u.ConfirmNeeded == t.ConfirmNeeded {
			return ""
		}
		sd, df := ScoreNoise(trials[:i])
		return fmt.Sprintf("a new best now needs %d confirmation(s), was %d: the score's run-to-run noise is %.1f %% (%d degrees of freedom)",
			t.ConfirmNeeded, u.ConfirmNeeded, sd*100, df)
	}
	return ""
}
