package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Family is a landscape drawn anew for each seed: RunOne measures seed s
// on Draw(s), so a strategy is judged over many landscapes of one kind
// rather than tuned to one. Every draw's scores are scaled so that its
// best known score is the family's Best(); the harness's shares are then
// shares of each draw's own optimum. The family's own Measure fails and
// its True has no value: only its draws are measured.
type Family interface {
	Landscape
	// Draw returns the landscape of seed (the same one on every call).
	Draw(seed int) (Landscape, error)
}

// drawnBest is the best known score of every Drawn landscape.
const drawnBest = 1000.0

// Drawn is a Family of landscapes over the host space under relaxed
// durability (HostSpace: 36 knobs, the environment's included), each drawn
// at random from its seed, so that no strategy default can have been
// tuned on the landscape it is judged on. Every draw has the shape the
// project's measurements on the reference machine show (docs/measurement.md)
// with its sizes, knobs and signs drawn:
//
//   - buffer pool: +30 to +80 %, saturating once the pool holds 0.8 to 2
//     times the 1.1 GB dataset (the expert warm start's 1.25 × may be
//     short of it), with a power of 1 to 2 on the log-size fit;
//   - 3 to 8 other knobs, any of the 35, each of a size a of 2 to 12 %
//     (log-uniform): a numeric knob monotone up or down its scale (a over
//     the whole scale), an interior optimum with its centre between 0.1
//     and 0.9 of the scale (width 0.08 to 0.3; a above the far ends) or a
//     cliff (a drop of a over a tenth of the scale past a point between
//     0.5 and 0.95, so a late cliff drops part of a by the scale's end);
//     a choice knob a level per option drawn from ±a (the default's 0, so
//     two other options can be up to 2a apart); a third of them, on
//     average, only with a big buffer pool (as dirty-page flushing and
//     the redo log on this machine);
//   - 1 to 3 interactions between two of those knobs (or one of them and
//     the buffer pool): a product of their positions worth −10 to +12 %,
//     which no sum of per-knob effects describes;
//   - a crash region in 3 draws of 5: two numeric knobs both past
//     thresholds, or (half of those) a memory limit, buffer pool plus query
//     cache plus 4 × log buffer over 4–8 GiB; neither the baseline nor the
//     expert warm start crashes;
//   - noise: each measurement is the true score × (1 + σ·N(0,1)), σ 5 to
//     10 %;
//   - every other knob does nothing.
//
// A draw reads a configuration as the server would run it (space.Repair,
// then space.Essential: a knob that is inactive in it, thread_pool_size
// without the thread pool, has no effect). Its best known score is the
// optimum found by optimum() (20,000 random points, the baseline and the
// expert warm start, the best five polished knob by knob on a 41-point
// grid), scaled to drawnBest. The expert warm start is strategy.ExpertConfig
// for the reference host, the same for every draw.
type Drawn struct {
	sp     *space.Space
	expert space.Config

	mu    sync.Mutex
	draws map[int]*drawOnce
}

type drawOnce struct {
	once sync.Once
	l    *drawnLandscape
	err  error
}

// NewDrawn returns the Drawn family.
func NewDrawn() (*Drawn, error) {
	sp, expert, err := relaxedHost()
	if err != nil {
		return nil, err
	}
	return &Drawn{sp: sp, expert: expert, draws: map[int]*drawOnce{}}, nil
}

// Name implements Landscape.
func (d *Drawn) Name() string {
	return fmt.Sprintf("drawn (a landscape per seed: %d knobs, 4 to 9 matter)", len(d.sp.Knobs()))
}

// Space implements Landscape: the space every draw shares.
func (d *Drawn) Space() *space.Space { return d.sp }

// Best implements Landscape: every draw's best known score.
func (d *Drawn) Best() float64 { return drawnBest }

// Expert implements Landscape: the expert warm start of every draw.
func (d *Drawn) Expert() space.Config { return d.expert.Clone() }

// errFamily is Drawn's Measure error: only its draws are measured.
var errFamily = errors.New("drawn: a family of landscapes: measure a seed's draw (Draw)")

// Measure implements Landscape: it fails (errFamily).
func (d *Drawn) Measure(ctx context.Context, cfg space.Config, rng *rand.Rand) (float64, bool, error) {
	return 0, false, errFamily
}

// True implements Landscape: the family has no score of its own (ok
// false); its draws have.
func (d *Drawn) True(cfg space.Config) (float64, bool) { return 0, false }

// Draw implements Family. Draws are made once per seed and kept; they are
// safe for concurrent use.
func (d *Drawn) Draw(seed int) (Landscape, error) {
	d.mu.Lock()
	o := d.draws[seed]
	if o == nil {
		o = &drawOnce{}
		d.draws[seed] = o
	}
	d.mu.Unlock()
	o.once.Do(func() { o.l, o.err = newDrawnLandscape(d.sp, d.expert, seed) })
	if o.err != nil {
		return nil, o.err
	}
	return o.l, nil
}

// Effect shapes of a drawn knob.
const (
	shapeMonotone = iota // 1 + a·(u − ½)
	shapeInterior        // 1 + a·(exp(−((u−c)/w)²) − ½)
	shapeCliff           // 1 − a·clamp((u − c)/0.1)
)

// drawnEffect is one knob's effect: a factor of the score.
type drawnEffect struct {
	knob   int       // index in the space
	gated  bool      // scaled by the buffer pool's fit
	a      float64   // size (may be negative for monotone)
	shape  int       // numeric knobs
	c, w   float64   // centre and width (interior), point (cliff)
	levels []float64 // choice knobs: the factor's excess per option
}

// drawnPair is an interaction: 1 + b·h(u_i)·h(u_j), h a knob's position
// (u, or 1 − u when flip; for a choice knob 1 at option opt, else 0).
type drawnPair struct {
	i, j         int // knob indexes; −1 is the buffer pool's fit
	flipI, flipJ bool
	optI, optJ   int
	b            float64
}

type drawnLandscape struct {
	name     string
	sp       *space.Space
	expert   space.Config
	noise    float64
	scale    float64 // drawnBest / the raw optimum
	bpGain   float64
	bpSat    float64 // bytes
	bpPow    float64
	effects  []drawnEffect
	pairs    []drawnPair
	crashI   int // −1: no two-knob crash region
	crashJ   int
	crashTI  float64
	crashTJ  float64
	memLimit float64 // 0: no memory limit
}

func newDrawnLandscape(sp *space.Space, expert space.Config, seed int) (*drawnLandscape, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6472617765))
	ks := sp.Knobs()
	l := &drawnLandscape{sp: sp, expert: expert, crashI: -1, crashJ: -1, scale: 1}
	var others []int
	for i, k := range ks {
		if k.Name != "innodb_buffer_pool_size" {
			others = append(others, i)
		}
	}
	if len(others) == len(ks) {
		return nil, errors.New("drawn: the host space has no innodb_buffer_pool_size")
	}
	uni := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	logUni := func(lo, hi float64) float64 { return math.Exp(uni(math.Log(lo), math.Log(hi))) }
	choice := func(k space.Knob) bool { return k.Kind == space.Enum || k.Kind == space.Bool }

	l.bpGain, l.bpSat, l.bpPow = uni(0.3, 0.8), uni(0.8, 2.0)*synthData, uni(1, 2)
	rng.Shuffle(len(others), func(a, b int) { others[a], others[b] = others[b], others[a] })
	chosen := others[:3+rng.IntN(6)]
	defaults := search.Encode(sp, space.Config{})
	for _, i := range chosen {
		k := ks[i]
		e := drawnEffect{knob: i, gated: rng.IntN(3) == 0, a: logUni(0.02, 0.12)}
		if choice(k) {
			e.levels = make([]float64, len(k.Options()))
			for o := range e.levels {
				if o != int(defaults[i]) {
					e.levels[o] = uni(-e.a, e.a)
				}
			}
		} else {
			e.shape = rng.IntN(3)
			switch e.shape {
			case shapeMonotone:
				if rng.IntN(2) == 0 {
					e.a = -e.a
				}
			case shapeInterior:
				e.c, e.w = uni(0.1, 0.9), uni(0.08, 0.3)
			case shapeCliff:
				e.c = uni(0.5, 0.95)
			}
		}
		l.effects = append(l.effects, e)
	}
	for n := 1 + rng.IntN(3); len(l.pairs) < n; {
		p := drawnPair{i: chosen[rng.IntN(len(chosen))], b: uni(-0.10, 0.12), flipI: rng.IntN(2) == 0, flipJ: rng.IntN(2) == 0}
		if rng.IntN(4) == 0 {
			p.j = -1
		} else {
			p.j = chosen[rng.IntN(len(chosen))]
			if p.j == p.i {
				continue
			}
		}
		if choice(ks[p.i]) {
			p.optI = rng.IntN(len(ks[p.i].Options()))
		}
		if p.j >= 0 && choice(ks[p.j]) {
			p.optJ = rng.IntN(len(ks[p.j].Options()))
		}
		l.pairs = append(l.pairs, p)
	}
	l.noise = uni(0.05, 0.10)
	// A crash region in 3 draws of 5, never where the baseline or the
	// expert warm start is.
	if rng.IntN(5) < 3 {
		if rng.IntN(2) == 0 {
			l.memLimit = uni(4, 8) * (1 << 30)
		} else {
			var nums []int
			for i, k := range ks {
				if !choice(k) {
					nums = append(nums, i)
				}
			}
			for try := 0; try < 50; try++ {
				l.crashI, l.crashJ = nums[rng.IntN(len(nums))], nums[rng.IntN(len(nums))]
				l.crashTI, l.crashTJ = uni(0.6, 0.95), uni(0.6, 0.95)
				_, okB := l.raw(space.Config{})
				_, okE := l.raw(expert)
				if l.crashI != l.crashJ && okB && okE {
					break
				}
				l.crashI, l.crashJ = -1, -1
			}
		}
	}
	if _, ok := l.raw(expert); !ok {
		l.memLimit = 0
	}
	_, best := optimum(sp, l.raw, 20000, uint64(seed), expert)
	if !(best > 0) {
		return nil, fmt.Errorf("drawn seed %d: no feasible optimum", seed)
	}
	l.scale = drawnBest / best
	crash := "none"
	switch {
	case l.memLimit > 0:
		crash = fmt.Sprintf("memory over %.1f GiB", l.memLimit/(1<<30))
	case l.crashI >= 0:
		crash = fmt.Sprintf("%s and %s high", ks[l.crashI].Name, ks[l.crashJ].Name)
	}
	l.name = fmt.Sprintf("drawn seed %d (%d knobs matter, %d interactions, crash: %s, noise %.0f %%)",
		seed, 1+len(l.effects), len(l.pairs), crash, 100*l.noise)
	return l, nil
}

// raw returns the unscaled noise-free score of cfg, ok false where it
// crashes.
func (l *drawnLandscape) raw(cfg space.Config) (float64, bool) {
	run, _ := l.sp.Repair(cfg)
	run = l.sp.Essential(run)
	x := search.Encode(l.sp, run)
	num, _ := reader(l.sp, run)
	bp := num("innodb_buffer_pool_size")
	if l.memLimit > 0 && bp+num("query_cache_size")+4*num("innodb_log_buffer_size") > l.memLimit {
		return 0, false
	}
	if l.crashI >= 0 && x[l.crashI] > l.crashTI && x[l.crashJ] > l.crashTJ {
		return 0, false
	}
	g := math.Pow(clamp01(math.Log(bp/(128<<20))/math.Log(l.bpSat/(128<<20))), l.bpPow)
	m := 1 + l.bpGain*g
	for _, e := range l.effects {
		u := x[e.knob]
		var f float64
		switch {
		case e.levels != nil:
			f = e.levels[int(math.Round(u))]
		case e.shape == shapeMonotone:
			f = e.a * (u - 0.5)
		case e.shape == shapeInterior:
			d := (u - e.c) / e.w
			f = e.a * (math.Exp(-d*d) - 0.5)
		case e.shape == shapeCliff:
			f = -e.a * clamp01((u-e.c)/0.1)
		}
		if e.gated {
			f *= g
		}
		m *= 1 + f
	}
	pos := func(i int, flip bool, opt int) float64 {
		if i < 0 {
			return g
		}
		k := l.sp.Knobs()[i]
		if k.Kind == space.Enum || k.Kind == space.Bool {
			if int(math.Round(x[i])) == opt {
				return 1
			}
			return 0
		}
		if flip {
			return 1 - x[i]
		}
		return x[i]
	}
	for _, p := range l.pairs {
		m *= 1 + p.b*pos(p.i, p.flipI, p.optI)*pos(p.j, p.flipJ, p.optJ)
	}
	return 500 * m, true
}

// Name implements Landscape: the seed and what was drawn.
func (l *drawnLandscape) Name() string { return l.name }

// Space implements Landscape: the family's space.
func (l *drawnLandscape) Space() *space.Space { return l.sp }

// Best implements Landscape: drawnBest, the draw's optimum after scaling.
func (l *drawnLandscape) Best() float64 { return drawnBest }

// Expert implements Landscape: the family's expert warm start.
func (l *drawnLandscape) Expert() space.Config { return l.expert.Clone() }

// True implements Landscape: the scaled noise-free score, ok false where
// the draw crashes.
func (l *drawnLandscape) True(cfg space.Config) (float64, bool) {
	v, ok := l.raw(cfg)
	return v * l.scale, ok
}

// Noise implements Noisy: the draw's relative noise.
func (l *drawnLandscape) Noise() float64 { return l.noise }

// Measure implements Landscape: True with the draw's relative noise.
func (l *drawnLandscape) Measure(ctx context.Context, cfg space.Config, rng *rand.Rand) (float64, bool, error) {
	return noisy(l.True, l.noise, cfg, rng)
}
