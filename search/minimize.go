package search

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// Minimizing reports whether k is a minimisation kind (MinCurrent,
// MinRevert, Minimal, MinFull).
func (k Kind) Minimizing() bool {
	switch k {
	case MinCurrent, MinRevert, Minimal, MinFull:
		return true
	}
	return false
}

// Minimisation defaults (the flags --minimize-pairs and --minimize-share).
const (
	// DefaultMinimizePairs is the number of interleaved pairs per step.
	DefaultMinimizePairs = 2
	// DefaultMinimizeShare is the share of a --budget held for the
	// minimisation.
	DefaultMinimizeShare = 0.25
)

// Minimization is the policy of the final phase that minimises the best
// trial: starting from the best configuration, it reverts changes (knobs
// whose value differs from the baseline's) to the baseline's value, in
// dependency groups ordered by importance, least important first, and
// keeps a change only when reverting it costs more than the measured
// noise (see MinimizeRule). A nil *Minimization turns the phase off.
type Minimization struct {
	// Pairs is the number of interleaved pairs (current, reverted;
	// reverted, current; ...) each step measures (>= 2; 0 means
	// DefaultMinimizePairs). The interval borrows the study's measured
	// noise, so two pairs can decide.
	Pairs int
	// Share is the share of Loop.Budget held back for the minimisation
	// (0 < Share < 1); without a budget the minimisation runs to its end.
	Share float64
	// Space is the knob space: importance order (Importance) and
	// dependency groups (space.Space.Repair). Nil: every change is its own
	// group, in name order.
	Space *space.Space
}

// MinimizeRule documents the decision of a step, for the docs and the
// progress lines.
const MinimizeRule = "a change is kept when the 95 % interval of what reverting it costs lies wholly above 0; the interval's width comes from the run-to-run noise measured over the whole study pooled with the step's own pairs; a step whose cost leans above 0 without showing it (more than one standard error) gets more pairs, up to three times as many"

// MaxStepPairsFactor bounds a step's extension: a step whose cost leans
// above 0 without its interval clearing 0 measures one more pair at a
// time, up to MaxStepPairsFactor × Minimization.Pairs pairs. Without it a
// change worth +50 % on a machine with 20 % run-to-run noise was reverted
// after 2 pairs (interval −2 .. +141 %).
const MaxStepPairsFactor = 3

// MinStatus is what a minimisation step decided.
type MinStatus string

const (
	// MinKept: reverting the step's single group costs more than the
	// noise: the change stays.
	MinKept MinStatus = "kept"
	// MinReverted: reverting the step's changes costs nothing shown: they
	// are reverted for good.
	MinReverted MinStatus = "reverted"
	// MinSplit: reverting several groups at once costs more than the
	// noise: the block is split and its halves are tried in later steps
	// (or, when fewer than two of its pairs completed, its groups one by
	// one).
	MinSplit MinStatus = "split"
	// MinUntested: the budget ran out before the change was tried; it
	// stays, without a measured contribution.
	MinUntested MinStatus = "untested"
	// MinUnmeasured: fewer than two pairs of the step completed (the
	// reverted configuration failed, say): the change stays.
	MinUnmeasured MinStatus = "unmeasured"
)

// MinStep is one step of a minimisation.
type MinStep struct {
	// Knobs are the changes the step reverted together, in catalogue
	// order: one dependency group or a block of them.
	Knobs []string
	// Lead is the most important of Knobs (knob importance over the
	// trials before the minimisation; the first in catalogue order when
	// the importance does not tell them apart): the knob a kept group's
	// contribution is written on.
	Lead string
	// Values are the best trial's values of Knobs (canonical).
	Values space.Config
	// Status is what the step decided.
	Status MinStatus
	// Pct, LoPct and HiPct are what keeping the changes gains over
	// reverting them, on the objective, in percent, with the 95 %
	// interval (see MinimizeRule); positive: the changes pay. Zero for
	// MinUntested and MinUnmeasured.
	Pct, LoPct, HiPct float64
	// Pairs is the number of complete pairs behind the step.
	Pairs int
}

// MinCheck is the final check of a minimisation: the minimal
// configuration against the full best in interleaved pairs.
type MinCheck struct {
	// Pct, LoPct, HiPct: the minimal configuration's gain over the full
	// best, in percent, with the 95 % interval (as a step's).
	Pct, LoPct, HiPct float64
	// Pairs is the number of complete pairs.
	Pairs int
}

// Minimized is the state of a study's minimisation of its best trial,
// derived from its trials alone (so a killed minimisation resumes where
// it stopped).
type Minimized struct {
	// Best is the number of the minimised trial (−1: nothing to minimise).
	Best int
	// Goal is the objective the steps compared.
	Goal measure.Goal
	// Changes is the number of knobs the best changes from the baseline.
	Changes int
	// Config is the minimal configuration so far: the best with the
	// reverted changes at the baseline's values.
	Config space.Config
	// Steps are the decided steps, in order.
	Steps []MinStep
	// Check is the final check (nil until it has two complete pairs, and
	// when nothing was reverted: the minimal configuration is the best).
	Check *MinCheck
	// Done reports that every step is decided and the final check ran (or
	// was not needed).
	Done bool
	// Accepted reports that the minimisation is done and its final check
	// does not show the minimal configuration worse than the full best
	// (the interval's upper end is not below 0); exports then use the
	// minimal configuration.
	Accepted bool
	// Runs is the number of finished minimisation runs: the cost in trials.
	Runs int
	// Pairs is the pairs per step it runs with (Minimization.Pairs): a
	// minimisation resumes only with the same.
	Pairs int
}

// KeptSteps returns the steps whose changes the minimal configuration
// keeps, in order (kept, unmeasured or untested).
func (m Minimized) KeptSteps() []MinStep {
	var out []MinStep
	for _, s := range m.Steps {
		if s.Status == MinKept || s.Status == MinUntested || s.Status == MinUnmeasured {
			out = append(out, s)
		}
	}
	return out
}

// minRun is where a minimisation stands: its state and, when not done,
// the next run.
type minRun struct {
	state Minimized
	next  Proposal
	rep   RepeatLink
	more  bool // next is valid
}

// Minimize returns the state of the minimisation of the best trial of
// trials under policy m for goal (see Minimized); Best is −1 when there is
// nothing to minimise (no best other than the baseline, or no change).
func Minimize(trials []Trial, m *Minimization, goal measure.Goal) Minimized {
	return m.derive(trials, goal, math.MaxInt).state
}

// needRuns returns the runs the minimisation needs at least: its first
// step and the final check, pairsPerStep pairs each.
func (m *Minimization) needRuns() int { return 4 * m.pairsPerStep() }

// pairsPerStep returns the pairs of a step (at least 1).
func (m *Minimization) pairsPerStep() int {
	if m == nil || m.Pairs < 2 {
		return DefaultMinimizePairs
	}
	return m.Pairs
}

// next returns the next minimisation run when left runs fit in what is
// left of the budget (math.MaxInt: no budget); false when the
// minimisation is done or there is nothing to minimise.
func (m *Minimization) next(trials []Trial, goal measure.Goal, left int) (Proposal, RepeatLink, bool) {
	if m == nil {
		return Proposal{}, RepeatLink{}, false
	}
	r := m.derive(trials, goal, left)
	return r.next, r.rep, r.more
}

// minimizationBegun reports whether trials hold a minimisation run.
func minimizationBegun(trials []Trial) bool {
	return slices.ContainsFunc(trials, func(t Trial) bool { return t.Kind.Minimizing() })
}

// minimisable returns the best and baseline trials when the best can be
// minimised, and the knobs it changes from the baseline in catalogue (or
// name) order.
func minimisable(trials []Trial, sp *space.Space) (best, base Trial, changed []string, ok bool) {
	best, base = Best(trials)
	if best.Number < 0 || base.Number < 0 || best.Params.Key() == base.Params.Key() {
		return best, base, nil, false
	}
	changed = changedKnobs(sp, best.Params, base.Params)
	return best, base, changed, len(changed) > 0
}

// changedKnobs returns the knobs whose value differs between cfg and base
// (a knob absent from base and set in cfg to its catalogue default is no
// change), in catalogue order when sp is set, else by name.
func changedKnobs(sp *space.Space, cfg, base space.Config) []string {
	names := map[string]bool{}
	for k := range cfg {
		names[k] = true
	}
	for k := range base {
		names[k] = true
	}
	var out []string
	for n := range names {
		v, inC := cfg[n]
		b, inB := base[n]
		if inC == inB && v == b {
			continue
		}
		if inC && !inB && sp != nil {
			if k, ok := sp.Knob(n); ok && k.Default == v {
				continue
			}
		}
		out = append(out, n)
	}
	sortKnobs(sp, out)
	return out
}

// sortKnobs sorts names in catalogue order (unknown knobs last, by name).
func sortKnobs(sp *space.Space, names []string) {
	pos := map[string]int{}
	if sp != nil {
		for i, k := range sp.All() {
			pos[k.Name] = i + 1
		}
	}
	sort.SliceStable(names, func(i, j int) bool {
		pi, pj := pos[names[i]], pos[names[j]]
		switch {
		case pi > 0 && pj > 0:
			return pi < pj
		case pi > 0 || pj > 0:
			return pi > 0
		}
		return names[i] < names[j]
	})
}

// revert returns cfg with knobs at base's values (left out when base
// does not set them: the server default).
func revert(cfg, base space.Config, knobs []string) space.Config {
	out := cfg.Clone()
	for _, k := range knobs {
		if v, ok := base[k]; ok {
			out[k] = v
		} else {
			delete(out, k)
		}
	}
	return out
}

// DependencyGroups partitions the changed knobs of cfg (changes from base)
// into groups that must revert together, derived from the space's
// constraint repair (space.Space.Repair) rather than from a list: with
// every knob at its catalogue default unless set, a knob is linked to
// another when reverting it alone makes the repair change the other
// (thread_handling reverted drops thread_pool_size), or when reverting it
// alone makes the repair change its own reverted value and reverting both
// does not (innodb_io_capacity_max reverted below a raised
// innodb_io_capacity). Groups are the connected knobs, each in catalogue
// order, the groups ordered by their first knob. A nil sp gives one group
// per knob.
func DependencyGroups(sp *space.Space, cfg, base space.Config, changed []string) [][]string {
	parent := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		if parent[k] == "" || parent[k] == k {
			return k
		}
		r := find(parent[k])
		parent[k] = r
		return r
	}
	union := func(a, b string) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[rb] = ra
		}
	}
	if sp != nil {
		isChanged := map[string]bool{}
		for _, k := range changed {
			isChanged[k] = true
		}
		touched := func(c space.Config) map[string]bool {
			full := space.Config{}
			for _, k := range sp.All() {
				if k.Default != "" {
					full[k.Name] = k.Default
				}
			}
			full = full.Merge(c)
			rep, _ := sp.Repair(full)
			out := map[string]bool{}
			for k, v := range full {
				if w, ok := rep[k]; !ok || w != v {
					out[k] = true
				}
			}
			for k := range rep {
				if _, ok := full[k]; !ok {
					out[k] = true
				}
			}
			return out
		}
		before := touched(cfg)
		for _, a := range changed {
			after := touched(revert(cfg, base, []string{a}))
			for x := range after {
				if x != a && isChanged[x] && !before[x] {
					union(a, x)
				}
			}
			for x := range before {
				if x != a && isChanged[x] && !after[x] {
					union(a, x)
				}
			}
			if after[a] && !before[a] {
				for _, b := range changed {
					if b != a && !touched(revert(cfg, base, []string{a, b}))[a] {
						union(a, b)
					}
				}
			}
		}
	}
	byRoot := map[string][]string{}
	var roots []string
	for _, k := range changed {
		r := find(k)
		if _, ok := byRoot[r]; !ok {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], k)
	}
	var out [][]string
	for _, r := range roots {
		g := byRoot[r]
		sortKnobs(sp, g)
		out = append(out, g)
	}
	return out
}

// orderGroups sorts groups by importance, least important first: a
// group's importance is its most important knob's share (Importance over
// hist; all 0 when it cannot be estimated), ties in catalogue order of
// the groups' first knobs (the order groups come in).
//
// It also returns each knob's share (absent: 0).
func orderGroups(sp *space.Space, groups [][]string, hist []Trial) ([][]string, map[string]float64) {
	share := map[string]float64{}
	if sp != nil {
		if imp, err := Importance(sp, hist); err == nil {
			for _, ki := range imp {
				share[ki.Knob] = ki.Importance
			}
		}
	}
	type g struct {
		knobs []string
		imp   float64
	}
	gs := make([]g, len(groups))
	for i, knobs := range groups {
		gs[i].knobs = knobs
		for _, k := range knobs {
			gs[i].imp = math.Max(gs[i].imp, share[k])
		}
	}
	sort.SliceStable(gs, func(i, j int) bool { return gs[i].imp < gs[j].imp })
	out := make([][]string, len(gs))
	for i := range gs {
		out[i] = gs[i].knobs
	}
	return out, share
}

// leadKnob returns the knob of knobs (catalogue order) with the largest
// share, the first of them on a tie.
func leadKnob(knobs []string, share map[string]float64) string {
	l := knobs[0]
	for _, k := range knobs[1:] {
		if share[k] > share[l] {
			l = k
		}
	}
	return l
}

// derive derives the minimisation's state from trials and its next run.
// left is how many runs the budget still allows (math.MaxInt: no
// budget).
//
// The procedure: the changes of the best (knobs differing from the
// baseline) form dependency groups (DependencyGroups), ordered least
// important first (orderGroups, importance from the trials before the
// minimisation). A step reverts a block of the undecided groups, the
// first ceil(n/2) of the n undecided, and measures Pairs interleaved
// pairs of the current configuration (MinCurrent) and the reverted one
// (MinRevert), the member measured first alternating. When the loss is
// not shown (MinimizeRule), the block is reverted for good; when it is
// and the block holds one group, the group is kept; when it is and the
// block holds more, the block is halved and its first half tried next.
// Once every group is decided (or the budget leaves room for no more
// than the final check), the minimal configuration runs against the full
// best in Pairs pairs (Minimal, MinFull), unless nothing was reverted.
func (m *Minimization) derive(trials []Trial, goal measure.Goal, left int) minRun {
	var sp *space.Space
	if m != nil {
		sp = m.Space
	}
	if goal == "" {
		goal = measure.GoalTPS
	}
	r := minRun{state: Minimized{Best: -1, Goal: goal}}
	best, base, changed, ok := minimisable(trials, sp)
	if !ok {
		r.state.Done = true
		return r
	}
	pairs := m.pairsPerStep()
	r.state.Pairs = pairs
	var runs, check []Trial
	firstRun := math.MaxInt
	for _, t := range trials {
		if !t.Kind.Minimizing() || t.RepeatOf != best.Number {
			continue
		}
		firstRun = min(firstRun, t.Number)
		if !t.State.Finished() {
			continue
		}
		r.state.Runs++
		if t.Kind == Minimal || t.Kind == MinFull {
			check = append(check, t)
		} else {
			runs = append(runs, t)
		}
	}
	var hist []Trial
	for _, t := range trials {
		if t.Number < firstRun && !t.Kind.Minimizing() {
			hist = append(hist, t)
		}
	}
	st := &r.state
	st.Best, st.Changes = best.Number, len(changed)
	groups, share := orderGroups(sp, DependencyGroups(sp, best.Params, base.Params, changed), hist)
	lead := func(knobs []string) string { return leadKnob(knobs, share) }
	cur := best.Params.Clone()
	undecided := groups
	block := (len(undecided) + 1) / 2
	pos := 0
	values := func(knobs []string) space.Config {
		out := space.Config{}
		for _, k := range knobs {
			out[k] = best.Params[k]
		}
		return out
	}
	flat := func(gs [][]string) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g...)
		}
		sortKnobs(sp, out)
		return out
	}
	cutShort := len(check) > 0
	for len(undecided) > 0 {
		knobs := flat(undecided[:block])
		cand := revert(cur, base.Params, knobs)
		curKey, candKey := cur.Key(), cand.Key()
		matches := func(u Trial) bool {
			return (u.Kind == MinCurrent && u.Params.Key() == curKey) || (u.Kind == MinRevert && u.Params.Key() == candKey)
		}
		var stepRuns []Trial
		var j judgement
		var err error
		untested := false
		for target := pairs; ; target++ {
			for pos < len(runs) && len(stepRuns) < 2*target {
				u := runs[pos]
				if matches(u) {
					stepRuns = append(stepRuns, u)
					if failedRuns(stepRuns) > pairs {
						pos++
						break
					}
				}
				pos++
			}
			failed := failedRuns(stepRuns) > pairs
			if len(stepRuns) < 2*target && !failed {
				if cutShort || left < 2*target-len(stepRuns)+2*pairs {
					// The budget leaves room for the final check only (or
					// the final check has begun: the budget did then): an
					// extended step decides on the pairs measured, a new
					// one stays untested.
					untested = target == pairs
					break
				}
				r.next, r.rep, r.more = alternate(stepRuns, MinCurrent, cur, MinRevert, cand), RepeatLink{RepeatOf: best.Number}, true
				st.Config = cur
				return r
			}
			ps := kindPairs(goal, stepRuns, MinCurrent, MinRevert)
			j, err = judge(goal, ps, upTo(trials, stepRuns[len(stepRuns)-1].Number))
			if failed || err != nil || j.LoPct > 0 || !(j.Z > 1) || target >= MaxStepPairsFactor*pairs {
				break
			}
			// A recorded run of this step beyond target means the step was
			// extended when it ran: replay that, whatever the budget says now.
			if recorded := pos < len(runs) && matches(runs[pos]); !recorded && (cutShort || left < 2+2*pairs) {
				break
			}
		}
		if untested {
			for _, g := range undecided {
				st.Steps = append(st.Steps, MinStep{Knobs: g, Lead: lead(g), Values: values(g), Status: MinUntested})
			}
			undecided = nil
			break
		}
		step := MinStep{Knobs: knobs, Lead: lead(knobs), Values: values(knobs)}
		switch {
		case err != nil && block > 1:
			// An unmeasured block: its groups are tried one by one.
			step.Status = MinSplit
		case err != nil:
			step.Status = MinUnmeasured
		case !(j.LoPct > 0):
			step.Status = MinReverted
		case block == 1:
			step.Status = MinKept
		default:
			step.Status = MinSplit
		}
		if err == nil {
			step.Pct, step.LoPct, step.HiPct, step.Pairs = j.Pct, j.LoPct, j.HiPct, j.Pairs
		}
		st.Steps = append(st.Steps, step)
		switch step.Status {
		case MinReverted:
			cur = cand
			undecided = undecided[block:]
			block = (len(undecided) + 1) / 2
		case MinSplit:
			if err != nil {
				block = 1
			} else {
				block = (block + 1) / 2
			}
		default: // kept or unmeasured: the group stays
			undecided = undecided[1:]
			block = (len(undecided) + 1) / 2
		}
	}
	st.Config = cur
	if cur.Key() == best.Params.Key() {
		st.Done, st.Accepted = true, true
		return r
	}
	cp := kindPairs(goal, check, Minimal, MinFull)
	if j, err := judge(goal, cp, upTo(trials, lastNumber(check))); err == nil {
		st.Check = &MinCheck{Pct: j.Pct, LoPct: j.LoPct, HiPct: j.HiPct, Pairs: j.Pairs}
	}
	if len(check) >= 2*pairs || failedRuns(check) > pairs {
		st.Done = true
		st.Accepted = st.Check != nil && !(st.Check.HiPct < 0)
		return r
	}
	need := 2*pairs - len(check)
	if left < need {
		return r
	}
	r.next, r.rep, r.more = alternate(check, Minimal, cur, MinFull, best.Params), RepeatLink{RepeatOf: best.Number}, true
	return r
}

// failedRuns counts the runs that finished without a score.
func failedRuns(runs []Trial) int {
	n := 0
	for _, u := range runs {
		if u.State != Complete || u.Infeasible {
			n++
		}
	}
	return n
}

// alternate returns the next run of a pair sequence A B, B A, A B, ...
// over the finished runs so far (as the final A/B phase orders them).
func alternate(runs []Trial, ka Kind, a space.Config, kb Kind, b space.Config) Proposal {
	nA, nB := 0, 0
	for _, u := range runs {
		if u.Kind == ka {
			nA++
		} else {
			nB++
		}
	}
	if nA < nB || (nA == nB && nA%2 == 0) {
		return Proposal{Config: a.Clone(), Kind: ka, Handle: -1}
	}
	return Proposal{Config: b.Clone(), Kind: kb, Handle: -1}
}

// kindPairs pairs the k-th complete run of kind a with the k-th complete
// run of kind b (a pair with a failed member is left out; a pair with a
// window that was not steady is marked), as ABPairs.
func kindPairs(goal measure.Goal, runs []Trial, a, b Kind) []Pair {
	type run struct {
		v      float64
		capped bool
	}
	var as, bs []run
	for _, u := range runs {
		r := run{v: math.NaN(), capped: u.WarmupCapped}
		if u.State == Complete && !u.Infeasible {
			r.v = ObjectiveValue(goal, u)
		}
		switch u.Kind {
		case a:
			as = append(as, r)
		case b:
			bs = append(bs, r)
		}
	}
	var out []Pair
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i].v > 0 && bs[i].v > 0 {
			out = append(out, Pair{A: as[i].v, B: bs[i].v, NotSteady: as[i].capped || bs[i].capped})
		}
	}
	return out
}

func upTo(trials []Trial, n int) []Trial {
	var out []Trial
	for _, t := range trials {
		if t.Number <= n {
			out = append(out, t)
		}
	}
	return out
}

func lastNumber(runs []Trial) int {
	n := -1
	for _, u := range runs {
		n = max(n, u.Number)
	}
	return n
}

// judgement is a step's paired comparison with the pooled interval.
type judgement struct {
	Pct, LoPct, HiPct float64
	Pairs             int
	// Z is the mean log-ratio over its standard error: how many standard
	// errors the estimate lies above 0.
	Z float64
}

// judge compares pairs (A: with the changes, B: without) on goal: the
// point estimate is PairedGain's (the geometric mean ratio of the pairs);
// the 95 % interval uses Student's t with the pair log-ratios' variance
// pooled from two sources, weighted by their degrees of freedom: twice the
// squared run-to-run noise measured over history (noiseStats: every
// configuration measured at least twice; a pair's log-ratio holds two
// runs) and the pairs' own variance. With history's noise, one or two
// pairs can decide; without, the interval is PairedGain's own. It returns
// PairedGain's error (fewer than 2 pairs, say).
func judge(goal measure.Goal, pairs []Pair, history []Trial) (judgement, error) {
	g, err := PairedGain(goal, pairs)
	if err != nil {
		return judgement{}, err
	}
	sd, df := noiseStats(goal, history)
	return interval(math.Log1p(g.Pct/100), g.SDLog, g.Pairs, sd, df), nil
}

// interval returns the judgement for mean log-ratio m of n pairs with
// their own sd (n−1 degrees of freedom) pooled with history's run noise
// sd (df degrees of freedom; a pair's variance is twice a run's).
func interval(m, ownSD float64, n int, runSD float64, df int) judgement {
	dfAll := float64(df + n - 1)
	v := (float64(df)*2*runSD*runSD + float64(n-1)*ownSD*ownSD) / dfAll
	se := math.Sqrt(v / float64(n))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dfAll}.Quantile(0.975)
	z := 0.0
	if se > 0 {
		z = m / se
	}
	return judgement{Pct: pct(m), LoPct: pct(m - q*se), HiPct: pct(m + q*se), Pairs: n, Z: z}
}

// minNote describes a finished minimisation run for the progress display:
// what the step it completed decided, or "".
func minNote(trials []Trial, t Trial, m *Minimization, goal measure.Goal) string {
	if !t.Kind.Minimizing() || m == nil {
		return ""
	}
	before := Minimize(upTo(trials, t.Number-1), m, goal)
	after := Minimize(trials, m, goal)
	var lines []string
	for _, s := range after.Steps[min(len(before.Steps), len(after.Steps)):] {
		lines = append(lines, StepText(s, goal))
	}
	if after.Check != nil && after.Done && !before.Done {
		lines = append(lines, CheckText(after, goal))
	}
	return strings.Join(lines, "; ")
}

// StepText describes a step for people: "reverting innodb_x, innodb_y
// costs +1.2 % tps (95 % interval -6.1 .. +9.0 %, 2 pairs): reverted".
func StepText(s MinStep, goal measure.Goal) string {
	what := strings.Join(s.Knobs, ", ")
	switch s.Status {
	case MinUntested:
		return "minimize: " + what + ": not tried (budget used), kept"
	case MinUnmeasured:
		return "minimize: " + what + ": the reverted configuration could not be measured (fewer than 2 complete pairs), kept"
	}
	if s.Status == MinSplit && s.Pairs == 0 {
		return "minimize: " + what + ": the reverted configuration could not be measured (fewer than 2 complete pairs): tried one group at a time"
	}
	verdict := map[MinStatus]string{MinKept: "kept", MinReverted: "reverted", MinSplit: "some of them pay: the block is split"}[s.Status]
	return fmt.Sprintf("minimize: reverting %s costs %+.1f %% %s (95 %% interval %+.1f .. %+.1f %%, %d pairs): %s",
		what, s.Pct, goal, s.LoPct, s.HiPct, s.Pairs, verdict)
}

// CheckText describes the final check.
func CheckText(m Minimized, goal measure.Goal) string {
	if m.Check == nil {
		return "minimize: the final check has fewer than 2 complete pairs: the full best stays the result"
	}
	c := m.Check
	s := fmt.Sprintf("minimize: the minimal configuration against the full best: %+.1f %% %s (95 %% interval %+.1f .. %+.1f %%, %d pairs)", c.Pct, goal, c.LoPct, c.HiPct, c.Pairs)
	if m.Accepted {
		return s + ": not worse, accepted"
	}
	return s + ": worse, the full best stays the result"
}
