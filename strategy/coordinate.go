package strategy

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// CoordinateOptions tunes coordinate descent; zero values take the
// defaults named on each field.
type CoordinateOptions struct {
	// Levels is the number of levels of a numeric knob in the first pass:
	// both ends of its search range and points evenly spaced between, on
	// its scale (log where the knob has one). Default 4.
	Levels int
	// Z is how many standard errors a difference must exceed to count as
	// an effect (and a gain to be adopted). Default 2.
	Z float64
	// PriorCV is the noise, as a share of the incumbent's mean score,
	// assumed until two repeats of some configuration exist. Default 0.09:
	// the between-run CV at 16 threads, measured on the reference 2-core
	// machine (docs/measurement.md).
	PriorCV float64
	// MaxZoom is how many times the level spacing is halved around the
	// incumbent after a pass finds nothing. Default 3.
	MaxZoom int
	// Starts are configurations the descent may start from (the baseline
	// and the expert warm start): it starts from the one with the best mean
	// among those measured; the baseline (server defaults) when none is.
	Starts []space.Config
	// Shape is how the study shapes a proposal (StrategyOptions.Shape).
	Shape search.Shape
	// Seed seeds the draws made once the descent has converged.
	Seed int64
}

func (o CoordinateOptions) withDefaults() CoordinateOptions {
	if o.Levels < 2 {
		o.Levels = 4
	}
	if o.Z <= 0 {
		o.Z = 2
	}
	if o.PriorCV <= 0 {
		o.PriorCV = 0.09
	}
	if o.MaxZoom <= 0 {
		o.MaxZoom = 3
	}
	return o
}

// CoordinateDescent is coordinate descent as a tuning engineer does it by
// hand: from the starting configuration (the baseline, or the best
// measured start), each knob alone at a few levels along its scale; each
// effect is judged against the run-to-run noise of the study's repeated
// measurements (its confirmations and baseline rechecks; PriorCV before
// there are any); the best single change whose gain exceeds Z standard
// errors is adopted as the new incumbent; then the knobs whose effect
// exceeded the noise are stepped again around it, until no change helps.
// Then a new pass over every knob at half the level spacing around the
// incumbent (up to MaxZoom times); when even that finds nothing, the
// descent has converged and draws configurations at random. It proposes
// only configurations not measured yet: a change that beats the incumbent
// is confirmed by the study (--confirm), whose repeats count here.
//
// The state is recomputed from the trial history on every Ask, so a
// resumed study continues where it stopped, and a confirmation that
// lowers an adopted configuration's mean can undo the adoption.
type CoordinateDescent struct {
	sp *space.Space
	recorder
	opts CoordinateOptions
}

// NewCoordinate returns coordinate descent over sp.
func NewCoordinate(sp *space.Space, o CoordinateOptions) *CoordinateDescent {
	return &CoordinateDescent{sp: sp, recorder: recorder{h: newHistory(sp, o.Shape)}, opts: o.withDefaults()}
}

// Ask returns the next step of the descent.
func (c *CoordinateDescent) Ask(ctx context.Context) (search.Proposal, error) {
	if err := ctx.Err(); err != nil {
		return search.Proposal{}, err
	}
	cfg, kind := c.next()
	return search.Proposal{Config: cfg, Kind: kind, Handle: -1}, nil
}

// probe is one coordinate step: the incumbent with knob moved.
type probe struct {
	knob int
	cfg  space.Config
}

// levels returns the coordinates knob k is tried at around base coordinate
// u at the given zoom: the whole scale at zoom 0, u ± spacing/2^zoom after.
func (c *CoordinateDescent) levels(k space.Knob, u float64, zoom int) []float64 {
	if search.IsChoice(k) {
		var out []float64
		for i := range k.Options() {
			if float64(i) != math.Round(u) {
				out = append(out, float64(i))
			}
		}
		return out
	}
	step := 1 / float64(c.opts.Levels-1)
	if zoom == 0 {
		out := make([]float64, c.opts.Levels)
		for i := range out {
			out[i] = float64(i) * step
		}
		return out
	}
	d := step / math.Pow(2, float64(zoom))
	return []float64{u - d, u + d}
}

// probes returns the distinct, changed configurations of one round.
func (c *CoordinateDescent) probes(base space.Config, knobs []int, zoom int) []probe {
	var out []probe
	seen := map[string]bool{base.Key(): true}
	ks := c.sp.Knobs()
	for _, i := range knobs {
		k := ks[i]
		u, err := search.ToUnit(k, base[k.Name])
		if err != nil {
			continue
		}
		for _, l := range c.levels(k, u, zoom) {
			if l < 0 || l > 1 {
				continue
			}
			cfg := base.Clone()
			cfg[k.Name] = search.FromUnit(k, l)
			if key := cfg.Key(); !seen[key] {
				seen[key] = true
				out = append(out, probe{knob: i, cfg: cfg})
			}
		}
	}
	return out
}

// start returns the configuration the descent starts from.
func (c *CoordinateDescent) start() space.Config {
	base := search.FullConfig(c.sp, space.Config{})
	bestMean, found := 0.0, false
	for _, s := range append([]space.Config{{}}, c.opts.Starts...) {
		full := search.FullConfig(c.sp, s)
		m, n := c.h.stats(full)
		if n == 0 {
			// As the study measured it: Base under it (with
			// --baseline-cnf the baseline is not the defaults).
			full = search.FullConfig(c.sp, c.h.shape.Of(search.Proposal{Config: s, Kind: search.Sampled}))
			m, n = c.h.stats(full)
		}
		if n > 0 && (!found || m > bestMean) {
			base, bestMean, found = full, m, true
		}
	}
	return base
}

// next replays the descent over the history and returns the first
// configuration it lacks: a probe of the current round, or, once the
// descent has converged (a pass at the finest zoom found nothing), a
// configuration drawn at random, so the rest of the study still searches.
// It never proposes a configuration measured already: the incumbent's and
// a promising probe's repeats are the study's (its confirmations and
// rechecks), and every measurement the study tells counts here.
func (c *CoordinateDescent) next() (space.Config, search.Kind) {
	all := make([]int, len(c.sp.Knobs()))
	for i := range all {
		all[i] = i
	}
	base := c.start()
	active, zoom := all, 0
	// Each adoption strictly raises the incumbent's mean, so the loop ends.
	for {
		mB, nB := c.h.stats(base)
		ps := c.probes(base, active, zoom)
		for _, p := range ps {
			if !c.h.measured(p.cfg) {
				return p.cfg, search.Coordinate
			}
		}
		sd, dof := c.h.noise()
		if dof < 2 {
			sd = c.opts.PriorCV * math.Abs(mB)
		}
		bestGain, bestProbe := 0.0, -1
		significant := map[int]bool{}
		for pi, p := range ps {
			m, n := c.h.stats(p.cfg)
			se := sd * math.Sqrt(1/float64(n)+1/float64(max(1, nB)))
			gain := m - mB
			z := math.Inf(1)
			if se > 0 {
				z = gain / se
			} else if gain == 0 {
				z = 0
			}
			if math.Abs(z) > c.opts.Z {
				significant[p.knob] = true
			}
			if z > c.opts.Z && (bestProbe < 0 || gain > bestGain) {
				bestGain, bestProbe = gain, pi
			}
		}
		fullPass := len(active) == len(all)
		if bestProbe >= 0 {
			moved := ps[bestProbe].knob
			base = ps[bestProbe].cfg
			active = nil
			for _, i := range all {
				if significant[i] && i != moved {
					active = append(active, i)
				}
			}
			if len(active) == 0 {
				active = all
			}
			continue
		}
		// No change helps. After a round over some knobs: a pass over every
		// knob; after a full pass: a finer one around the incumbent.
		if fullPass {
			if zoom >= c.opts.MaxZoom {
				return c.draw(), search.Sampled
			}
			zoom++
		}
		active = all
	}
}

// draw returns a configuration not measured yet, drawn uniformly over the
// unit cube (the same for the same history: the generator is seeded by
// Seed and the history's size), or the last one drawn when 32 draws were
// all measured.
func (c *CoordinateDescent) draw() space.Config {
	rng := rand.New(rand.NewPCG(uint64(c.opts.Seed), uint64(len(c.h.obs))))
	x := make([]float64, len(c.sp.Knobs()))
	var cfg space.Config
	for try := 0; try < 32; try++ {
		for i := range x {
			x[i] = rng.Float64()
		}
		if cfg = search.Decode(c.sp, x); !c.h.measured(cfg) {
			break
		}
	}
	return cfg
}
