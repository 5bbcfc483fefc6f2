package strategy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// HybridOptions tunes the hybrid strategy; zero values take the defaults
// named on each field.
type HybridOptions struct {
	// Seed seeds the design and the samplers.
	Seed int64
	// Horizon is the number of trials the study is planned to run (see
	// Plan); the phases are sized on it. Default 100. SetHorizon changes it.
	Horizon int
	// Screen is the size of the space-filling screening design. Default
	// 8, at most a fifth of Horizon and at least 4; with the default a
	// futile screening is cut short (Hybrid.near), a Screen set here never
	// is.
	Screen int
	// Reselect is how many new trials pass between two choices of the
	// knobs that matter (the local steps draw half their moves among
	// them). Default 8.
	Reselect int
	// Starts are the configurations the study measures first besides the
	// baseline (the expert warm start, --seed-from's seeds): the numeric
	// knobs they set, at most maxProbeKnobs in probeFirst's order, are
	// probed first after the screening (probeStep).
	Starts []space.Config
	// Shape is how the study shapes a proposal (StrategyOptions.Shape).
	Shape search.Shape
}

// Hybrid is the default strategy. Its phases share one history (every
// measured point, whichever phase or the study itself proposed it,
// informs the model):
//
//  1. Screening: a Latin hypercube design over every knob (Screen points,
//     8 by default, after whatever the study measured first, e.g. the
//     baseline and the expert warm start). When its first points all land
//     far below the best (near), the rest of the screening is dropped.
//  2. Diagnosis and probes, on the local search's turns: the knobs the
//     incumbent's own server counters say limit it (hintStep, Diagnose),
//     at any time; then, within probeWindow told trials after the
//     screening, the knobs the starts set, a step each way from the
//     incumbent (probeStep).
//  3. Model-guided local search (local.go), every other proposal: a
//     main-effects surrogate of the log score ranks changes of one to
//     three knobs of the centre, the configuration with the best shrunk
//     estimate.
//  4. Multivariate TPE over every knob (parzen, as Optuna's multivariate
//     TPE) on the other proposals.
//  5. The model's best configuration (modelStep) takes every other TPE
//     turn once the history holds modelStepFrom of Horizon and
//     2 × Screen + 4 points: the incumbent with each knob the main-effects
//     model rates as worth 1 % or more set to its best level.
//
// The hybrid proposes only configurations it has not measured: every
// re-measurement (confirmations, the final race) is the study's
// (Confirmation). The incumbent is the configuration with the best mean
// over its measurements. Phases are decided from the
// history's size, so a resumed study goes on in the phase it was in
// (screening ends once the history holds Screen + 4 points; a resumed
// screening draws its remaining points from a design of the new run's
// seed). What each phase is worth on the lab's landscapes is in
// docs/research/search.md.
type Hybrid struct {
	sp *space.Space
	recorder
	opts     HybridOptions
	rng      *rand.Rand
	tpe      parzen
	nChoices []int
	design   [][]float64
	sub      []int // knobs that matter: the fallback TPE searches them, local steps prefer them
	all      []int // every knob
	subAt    int   // history size when sub was chosen
	model    *search.MainEffects
	asked    int
	// local is the local search's surrogate; localAsked counts its steps.
	local      *localModel
	localAsked int
	// rank is each knob's place in the last importance ranking
	// (selectKnobs; 0: the most important), nil before one.
	rank map[string]int
	// probeKnobs are the indexes of the knobs the starts set (probeStep).
	probeKnobs []int
	// lastProbe is the last probe proposed.
	lastProbe lastProbe
	// hints are Diagnose's hints by measured configuration (history key),
	// from ObserveMetrics.
	hints map[string][]Hint
}

// NewHybrid returns the hybrid strategy over sp.
func NewHybrid(sp *space.Space, o HybridOptions) *Hybrid {
	if o.Reselect <= 0 {
		o.Reselect = 8
	}
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x9e3779b97f4a7c15))
	h := &Hybrid{sp: sp, recorder: recorder{h: newHistory(sp, o.Shape)}, opts: o, rng: rng, tpe: parzen{rng: rng}}
	for i, k := range sp.Knobs() {
		n := 0
		if search.IsChoice(k) {
			n = len(k.Options())
		}
		h.nChoices = append(h.nChoices, n)
		h.all = append(h.all, i)
	}
	for _, st := range o.Starts {
		for i, k := range sp.Knobs() {
			if _, ok := st[k.Name]; ok && !search.IsChoice(k) && !slices.Contains(h.probeKnobs, i) {
				h.probeKnobs = append(h.probeKnobs, i)
			}
		}
	}
	slices.SortStableFunc(h.probeKnobs, func(a, b int) int { return probeOrder(sp.Knobs()[a].Name) - probeOrder(sp.Knobs()[b].Name) })
	h.probeKnobs = h.probeKnobs[:min(len(h.probeKnobs), maxProbeKnobs)]
	h.SetHorizon(o.Horizon)
	return h
}

// probeFirst lists the knobs the warm start's rules set in the order
// probeStep probes them while the importance ranking knows too little
// (rankInformed): the buffer pool first (what it holds decides what is
// read from disk; the rule's value is a data-size factor capped by a
// memory share), then the redo log (a quarter of the pool), then
// io_capacity (half the measured fsync rate).
var probeFirst = []string{"innodb_buffer_pool_size", "innodb_redo_log_capacity", "innodb_log_file_size", "innodb_io_capacity", "innodb_io_capacity_max"}

// probeOrder is name's place in probeFirst (len(probeFirst) when absent).
func probeOrder(name string) int {
	if i := slices.Index(probeFirst, name); i >= 0 {
		return i
	}
	return len(probeFirst)
}

// SetHorizon sets the number of trials the study is planned to run (≤ 0:
// 100) and resizes the phases; the budget plan calls it when it re-plans.
func (h *Hybrid) SetHorizon(n int) {
	if n <= 0 {
		n = 100
	}
	h.opts.Horizon = n
	s := h.opts.Screen
	if s <= 0 {
		s = min(8, max(minScreen, n/5))
	}
	if len(h.design) != s {
		h.design = latinHypercube(h.rng, s, h.nChoices)
	}
}

// latinHypercube returns n points with one coordinate per dimension: each
// numeric dimension is cut into n strata visited once in random order, each
// choice dimension cycles through its choices in random order.
func latinHypercube(rng *rand.Rand, n int, nChoices []int) [][]float64 {
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, len(nChoices))
	}
	for d, m := range nChoices {
		perm := rng.Perm(n)
		for i := range pts {
			if m > 0 {
				pts[i][d] = float64(perm[i] % m)
			} else {
				pts[i][d] = (float64(perm[i]) + rng.Float64()) / float64(n)
			}
		}
	}
	return pts
}

// Observe adds a measured configuration to the history (a resumed
// study's replay; a worker's, which asks a fresh instance for each trial,
// see Worker). Each observation also counts as a proposal for the phases
// that alternate (TPE every other proposal, half of those turns the
// model step's, the centre's repeat every fourth local step, the race
// every other proposal), so an instance that
// replayed a history goes through them from the history's size (without
// it a worker's hybrid only ever made local steps), and an
// observed second measurement of the incumbent counts as the repeat Ask
// makes of it (at most every third proposal). An observation in a local
// step's place (an even proposal) counts as a local step, so the centre's
// repeat comes every fourth local step as in a study.
func (h *Hybrid) Observe(cfg space.Config, value float64) error {
	h.asked++
	if h.asked%2 == 0 {
		// Ask makes a local step on even proposals only: so does a
		// replayed history, or a worker's fresh instance re-measured the
		// centre on half its local steps.
		h.localAsked++
	}
	return h.recorder.Observe(cfg, value)
}

// Ask returns the next configuration of the current phase.
func (h *Hybrid) Ask(ctx context.Context) (search.Proposal, error) {
	if err := ctx.Err(); err != nil {
		return search.Proposal{}, err
	}
	h.asked++
	n := len(h.h.obs)
	// Screening: the design points not measured yet, in order.
	near := h.near()
	for _, x := range h.design {
		cfg := search.Decode(h.sp, x)
		if !h.h.measured(cfg) && n < len(h.design)+4 && !near {
			return search.Proposal{Config: cfg, Kind: search.Screen, Handle: -1}, nil
		}
	}
	// After the screening, on the local steps' turns: the knobs the
	// incumbent's metrics say limit it (hintStep), at any time; the knobs
	// the starts set (probeStep), within probeWindow told trials.
	if h.asked%2 == 0 || near {
		if p, ok := h.hintStep(); ok {
			return p, nil
		}
		if n < len(h.design)+4+h.probeWindow() {
			if p, ok := h.probeStep(); ok {
				return p, nil
			}
		}
	}
	if h.asked%2 == 0 {
		if p, ok := h.localStep(); ok {
			return p, nil
		}
	}
	// Every other TPE turn from modelStepFrom of the horizon on: the
	// main-effects model's best configuration (modelStep).
	if h.asked%modelStepEvery == 1 && n >= h.guidedFrom() && float64(n) >= modelStepFrom*float64(h.opts.Horizon) {
		if p, ok := h.modelStep(); ok {
			return p, nil
		}
	}
	return h.sampleAll(), nil
}

// near reports whether the study searches near its starts: futileScreen
// of its screening points or more are measured and every one is below
// half the best's mean. On a real server most screening points, drawn over
// every knob's whole range, are pruned or fail, at a trial's cost each
// (about 2 minutes there): the study then drops the rest of its screening
// and probes the starts' knobs on every proposal, with a doubling or a
// halving on knobs other than memory sizes (nearProbeRatio), along the
// knob whose step won first (probeStep). Off with a fixed Screen or no
// probe knobs.
func (h *Hybrid) near() bool {
	if h.opts.Screen > 0 || len(h.probeKnobs) == 0 {
		return false
	}
	_, best, _, ok := h.h.best()
	if !ok || best <= 0 {
		return false
	}
	n := 0
	for _, x := range h.design {
		idx := h.h.byKey[h.h.keyOf(search.Decode(h.sp, x))]
		if len(idx) == 0 {
			continue
		}
		if h.h.mean(idx) >= best/2 {
			return false
		}
		n++
	}
	return n >= futileScreen
}

// guidedFrom returns the history size from which the model-guided search
// is under way (twice the screening design, plus 4): an incumbent measured
// once is re-measured from there, and the model step starts no earlier.
func (h *Hybrid) guidedFrom() int { return 2*len(h.design) + 4 }

// selectKnobs re-ranks the knobs by importance when Reselect trials have
// passed since the last choice.
func (h *Hybrid) selectKnobs() {
	n := len(h.h.obs)
	if h.sub != nil && n-h.subAt < h.opts.Reselect {
		return
	}
	h.subAt = n
	all := make([]int, len(h.sp.Knobs()))
	for i := range all {
		all[i] = i
	}
	if n < search.MinImportanceTrials {
		h.sub = all
		return
	}
	xs := make([][]float64, n)
	ys := make([]float64, n)
	for i, o := range h.h.obs {
		xs[i], ys[i] = o.x, o.value
	}
	imp, model := search.FitImportance(h.sp, xs, ys, search.OverRange)
	h.sub = chooseKnobs(h.sp, imp)
	h.model = model
	h.rank = map[string]int{}
	for r, ki := range imp {
		h.rank[ki.Knob] = r
	}
}

// anchor returns the coordinates TPE holds the knobs it does not search
// at: the incumbent's, except that a knob whose fitted main effect spans
// at least 1 % of the mean score takes the level the model rates best (a
// screening point that became the incumbent brings random values for
// every knob; the model, fitted on every trial, knows better for the knobs
// with a visible effect).
func (h *Hybrid) anchor() []float64 {
	inc, _ := h.incumbent()
	x := search.Encode(h.sp, inc)
	if h.model == nil || h.model.Effects == nil {
		return x
	}
	floor := 0.01 * math.Abs(h.model.Intercept)
	for i, k := range h.sp.Knobs() {
		g := search.Grid(k)
		lo, hi, bestU := math.Inf(1), math.Inf(-1), x[i]
		for gi, f := range h.model.Effects[i] {
			lo = math.Min(lo, f)
			if f > hi {
				hi, bestU = f, g[gi]
			}
		}
		if hi-lo >= floor {
			x[i] = bestU
		}
	}
	return x
}

// modelStep returns anchor(): the incumbent with every knob whose fitted
// effect is at least 1 % of the mean score set to the level the
// main-effects model (see fitImportance; fitted to every told value, raw
// scores and failure penalties, refitted every Reselect trials) rates
// best. In a landscape close to additive that model averages the noise of
// every trial, so its argmax is a strong candidate where single
// measurements cannot tell 5 % effects from 10 % noise. ok is false when
// there is no model yet or the step was measured (then the same fit and
// incumbent give the same step: TPE takes the turn).
func (h *Hybrid) modelStep() (search.Proposal, bool) {
	h.selectKnobs()
	if h.model == nil || h.model.Beta == nil || h.model.Effects == nil {
		return search.Proposal{}, false
	}
	cfg := search.Decode(h.sp, h.anchor())
	if h.h.measured(cfg) {
		return search.Proposal{}, false
	}
	return search.Proposal{Config: cfg, Kind: search.Sampled, Handle: -1}, true
}

// chooseKnobs returns the indexes of the knobs that matter: the most
// important ones (half the space, 3 to 8 knobs) whose importance is at
// least 1 %, and never fewer than 2.
func chooseKnobs(sp *space.Space, imp []search.KnobImportance) []int {
	kmax := max(3, min(8, len(sp.Knobs())/2))
	idx := map[string]int{}
	for i, k := range sp.Knobs() {
		idx[k.Name] = i
	}
	var out []int
	for _, ki := range imp {
		if len(out) >= kmax || (len(out) >= 2 && ki.Importance < 0.01) {
			break
		}
		out = append(out, idx[ki.Knob])
	}
	sort.Ints(out)
	return out
}

// incumbent returns the configuration with the best mean (the baseline
// when nothing was measured).
func (h *Hybrid) incumbent() (space.Config, int) {
	cfg, _, n, ok := h.h.best()
	if !ok {
		return search.FullConfig(h.sp, space.Config{}), 0
	}
	return cfg, n
}

// sample returns a TPE proposal over the knobs that matter, the others at
// the anchor (sampleAll's fallback), or refine's when TPE proposes
// measured configurations eight times.
func (h *Hybrid) sample() search.Proposal {
	h.selectKnobs()
	fixed := h.anchor()
	for try := 0; try < 8; try++ {
		cfg := search.Decode(h.sp, h.tpe.suggest(h.h.obs, h.nChoices, h.sub, fixed))
		if !h.h.measured(cfg) {
			return search.Proposal{Config: cfg, Kind: search.Sampled, Handle: -1}
		}
	}
	return h.refine()
}

// sampleAll returns a multivariate TPE proposal over every knob (sample's
// when TPE proposes measured configurations eight times). It re-ranks the
// knobs that matter when due (selectKnobs), for the local steps.
func (h *Hybrid) sampleAll() search.Proposal {
	h.selectKnobs()
	for try := 0; try < 8; try++ {
		cfg := search.Decode(h.sp, h.tpe.suggest(h.h.obs, h.nChoices, h.all, make([]float64, len(h.all))))
		if !h.h.measured(cfg) {
			return search.Proposal{Config: cfg, Kind: search.Sampled, Handle: -1}
		}
	}
	return h.sample()
}

// refine returns a local step around the incumbent, or a repeat of it
// (sample's fallback when TPE proposes only measured configurations).
func (h *Hybrid) refine() search.Proposal {
	h.selectKnobs()
	inc, _ := h.incumbent()
	ks := h.sp.Knobs()
	inSub := map[int]bool{}
	for _, i := range h.sub {
		inSub[i] = true
	}
	// The step shrinks from 0.12 to 0.03 of the scale as the history fills the horizon.
	progress := math.Min(1, float64(len(h.h.obs))/float64(max(1, h.opts.Horizon)))
	sigma := 0.12 - 0.09*progress
	for try := 0; try < 32; try++ {
		cfg := inc.Clone()
		moves := 1 + h.rng.IntN(2)
		for m := 0; m < moves; m++ {
			var i int
			if len(h.sub) > 0 && h.rng.Float64() < 0.6 {
				i = h.sub[h.rng.IntN(len(h.sub))]
			} else {
				i = h.rng.IntN(len(ks))
			}
			k := ks[i]
			if !inSub[i] && cfg[k.Name] != k.Default && h.rng.Float64() < 0.5 {
				cfg[k.Name] = k.Default
				continue
			}
			if search.IsChoice(k) {
				cfg[k.Name] = search.FromUnit(k, h.tpe.uniform(len(k.Options())))
				continue
			}
			u, err := search.ToUnit(k, cfg[k.Name])
			if err != nil {
				continue
			}
			cfg[k.Name] = search.FromUnit(k, u+sigma*h.rng.NormFloat64())
		}
		if !h.h.measured(cfg) {
			return search.Proposal{Config: cfg, Kind: search.Refine, Handle: -1}
		}
	}
	x := make([]float64, len(ks))
	for i, m := range h.nChoices {
		if m > 0 {
			x[i] = float64(h.rng.IntN(m))
		} else {
			x[i] = h.rng.Float64()
		}
	}
	return search.Proposal{Config: search.Decode(h.sp, x), Kind: search.Sampled, Handle: -1}
}

// modelStepEvery is the period, in proposals, of the hybrid's model step
// (on the odd proposals, TPE's turns: one TPE turn in two), and
// modelStepFrom the share of the horizon measured before it starts: a
// main-effects model of fewer trials over a dozen knobs or more is a poor
// guide (TestHybridNotWorseThanTPE).
//
// modelStepEvery must be even: the local steps and the race take the even
// proposals. The model is refitted every Reselect trials (selectKnobs), so
// in a study two model turns often share a fit, and with the same
// incumbent give the same, already measured, step: TPE takes that turn. A
// worker's fresh instance fits on every proposal, and workers proposing
// from the same finished history propose the same model step (the second
// worker, seeing it running, asks again: Worker).
const (
	modelStepEvery = 4
	modelStepFrom  = 0.3
)

// probeStep returns the incumbent with one of the knobs the starts set
// (probeKnobs: the most important first by the last importance ranking
// of selectKnobs when rankInformed, else in probeFirst's order) a
// quarter higher or lower (probeRatio), the first such configuration not
// measured yet; false when every one was. The rules behind a warm start
// (the buffer pool from the data and the memory, the redo log from the
// pool, io_capacity from an fsync probe) pick their knobs well and their
// values roughly: a warm start is where the search starts, not its
// answer. Probed from the incumbent, a step that won is followed by the
// next one in the same direction (a line search along each knob), until
// a step loses or the knob's range ends.
func (h *Hybrid) probeStep() (search.Proposal, bool) {
	h.selectKnobs()
	inc, _ := h.incumbent()
	ks := h.sp.Knobs()
	order := slices.Clone(h.probeKnobs)
	if h.rank != nil && h.rankInformed() {
		slices.SortStableFunc(order, func(a, b int) int {
			ra, oka := h.rank[ks[a].Name]
			rb, okb := h.rank[ks[b].Name]
			if !oka {
				ra = len(ks)
			}
			if !okb {
				rb = len(ks)
			}
			return ra - rb
		})
	}
	// Near the starts, a step that won goes on along its knob before the
	// others are probed from the new incumbent.
	near := h.near()
	if near && h.lastProbe.key == inc.Key() {
		if p, ok := h.probe(inc, h.lastProbe.knob, []float64{h.lastProbe.ratio}); ok {
			return p, true
		}
	}
	for _, i := range order {
		ratio := probeRatio
		if near && ks[i].PerHost != space.HostRAM {
			ratio = nearProbeRatio
		}
		if p, ok := h.probe(inc, i, []float64{ratio, 1 / ratio}); ok {
			return p, true
		}
	}
	return search.Proposal{}, false
}

// ObserveMetrics reads the server metrics of one measured trial of cfg
// (its thread levels; the study gives every complete trial after telling
// it, and a resumed study or a worker the history's): the knobs Diagnose
// says limit cfg are probed first from it while it is the incumbent
// (hintStep). Hints of repeats of cfg add up, one per knob.
func (h *Hybrid) ObserveMetrics(cfg space.Config, levels []measure.Level) {
	hs := Diagnose(h.sp, cfg, levels)
	if len(hs) == 0 {
		return
	}
	if h.hints == nil {
		h.hints = map[string][]Hint{}
	}
	key := h.h.keyOf(cfg)
	for _, x := range hs {
		if !slices.ContainsFunc(h.hints[key], func(y Hint) bool { return y.Knob == x.Knob }) {
			h.hints[key] = append(h.hints[key], x)
		}
	}
}

// hintStep returns the incumbent with the first knob its metrics say
// limit it (ObserveMetrics) moved by the hint's ratio, clamped to the
// knob's range, the first such configuration not measured yet; false when
// the incumbent has no hint left. An engineer reads the status counters
// after a run and changes what they name before anything else: a redo
// log whose checkpoint age runs at its flushing mark is doubled, and
// doubled again while the new incumbent's own run says the same.
func (h *Hybrid) hintStep() (search.Proposal, bool) {
	inc, _ := h.incumbent()
	for _, x := range h.hints[h.h.keyOf(inc)] {
		i := slices.IndexFunc(h.sp.Knobs(), func(k space.Knob) bool { return k.Name == x.Knob })
		if i < 0 {
			continue
		}
		if p, ok := h.probe(inc, i, []float64{x.Ratio}); ok {
			step := fmt.Sprintf("× %g", x.Ratio)
			if x.Ratio == 2 {
				step = "doubled"
			}
			p.Why = fmt.Sprintf("%s %s: %s", x.Knob, step, x.Why)
			return p, true
		}
	}
	return search.Proposal{}, false
}

// probe returns inc with knob i times the first of ratios that moves it
// (clamped to the knob's range) to a configuration not measured yet, and
// notes it as the last probe; false when none does.
func (h *Hybrid) probe(inc space.Config, i int, ratios []float64) (search.Proposal, bool) {
	k := h.sp.Knobs()[i]
	f, err := k.Float(inc[k.Name])
	if err != nil {
		return search.Proposal{}, false
	}
	for _, r := range ratios {
		v, err := k.FromFloat(search.ClampRound(k, math.Min(k.Max, math.Max(k.Min, f*r))))
		if err != nil || v == inc[k.Name] {
			continue
		}
		cfg := inc.Clone()
		cfg[k.Name] = v
		if !h.h.measured(cfg) {
			h.lastProbe = lastProbe{knob: i, ratio: r, key: cfg.Key()}
			return search.Proposal{Config: cfg, Kind: search.Refine, Handle: -1}, true
		}
	}
	return search.Proposal{}, false
}

// lastProbe is the last configuration probeStep proposed (its key) and
// the knob and ratio of its step.
type lastProbe struct {
	knob  int
	ratio float64
	key   string
}

// rankInformed reports whether the importance ranking rests on at least
// MinImportanceTrials configurations whose mean is within half of the
// best's: screening points pruned or failed far below the warm start (on
// a real server most are) leave the fit nothing to tell the warm start's
// own knobs apart by.
func (h *Hybrid) rankInformed() bool {
	_, best, _, ok := h.h.best()
	if !ok || best <= 0 {
		return false
	}
	n := 0
	for _, idx := range h.h.byKey {
		if h.h.mean(idx) >= best/2 {
			n++
		}
	}
	return n >= search.MinImportanceTrials
}

// probeWindow is how many told trials after the screening the probes
// (probeStep) may take turns in: four per probed knob, room for a step
// each way and a confirmation of each, every other proposal.
func (h *Hybrid) probeWindow() int { return 4 * len(h.probeKnobs) }

const (
	// maxProbeKnobs bounds the knobs probeStep probes.
	maxProbeKnobs = 4
	// probeRatio is probeStep's step: a quarter more (or, divided, a
	// fifth less), the next size an engineer tries.
	probeRatio = 1.25
	// nearProbeRatio is the step of the probes near the starts (Hybrid.near)
	// on knobs other than memory sizes: a doubling or a halving, so the
	// few steps cross a range of 4-64 × the rule's value (the
	// redo log, io_capacity). Memory sizes keep probeRatio: the rule caps
	// them by the memory there is, and a doubling past it fails.
	nearProbeRatio = 2.0
	// minScreen is the smallest screening design (SetHorizon).
	minScreen = 4
	// futileScreen is how many screening points, all below half the
	// best's mean, end the screening (near).
	futileScreen = 2
)
