package search

import (
	"fmt"
	"math"
	"sort"

	"github.com/autotune/autotune/space"
)

// This file maps configurations to and from the unit cube the model-based
// strategies work in: a numeric knob becomes a coordinate in [0, 1] along
// its search scale (log scale where the knob has one), a choice knob
// (Enum, Bool) the position of its value in Knob.Options().

// isChoice reports whether k takes one of a fixed list of values.
func isChoice(k space.Knob) bool { return k.Kind == space.Enum || k.Kind == space.Bool }

// toUnit returns the coordinate of canonical value v of knob k: in [0, 1]
// for numeric knobs (values outside the range are clamped, e.g. a default
// below a range narrowed by space.Limit), the index in Options() for choice
// knobs. It returns an error for a value that does not parse or is not a
// choice.
func toUnit(k space.Knob, v string) (float64, error) {
	f, err := k.Float(v)
	if err != nil {
		return 0, err
	}
	if isChoice(k) {
		return f, nil
	}
	if k.Max <= k.Min {
		return 0, nil
	}
	var u float64
	if k.Scale == space.Log {
		u = (math.Log(f) - math.Log(k.Min)) / (math.Log(k.Max) - math.Log(k.Min))
	} else {
		u = (f - k.Min) / (k.Max - k.Min)
	}
	if math.IsNaN(u) {
		return 0, fmt.Errorf("knob %s: value %q has no unit coordinate", k.Name, v)
	}
	return math.Min(1, math.Max(0, u)), nil
}

// fromUnit returns the canonical value of knob k at coordinate u: clamped
// to [0, 1] and rounded to the knob's Step for numeric knobs, the choice at
// index round(u) for choice knobs.
func fromUnit(k space.Knob, u float64) string {
	if isChoice(k) {
		opts := k.Options()
		i := int(math.Round(u))
		i = max(0, min(len(opts)-1, i))
		return opts[i]
	}
	u = math.Min(1, math.Max(0, u))
	var f float64
	if k.Scale == space.Log {
		f = math.Exp(math.Log(k.Min) + u*(math.Log(k.Max)-math.Log(k.Min)))
	} else {
		f = k.Min + u*(k.Max-k.Min)
	}
	if k.Kind == space.Float {
		f = math.Min(k.Max, math.Max(k.Min, f))
	} else {
		f = clampRound(k, f)
	}
	v, err := k.FromFloat(f)
	if err != nil {
		// clampRound keeps f inside the range; only a range narrower than
		// one Step gets here.
		return k.Default
	}
	return v
}

// fullConfig returns cfg with every searched knob of sp set: absent knobs
// take the value the server runs with (space.Space.LeftOut: their default;
// for innodb_io_capacity_max, twice innodb_io_capacity when that is more).
// Knobs of cfg not searched are dropped. Two configurations the server
// runs alike have one full form (up to the knobs space.Space.Repair
// leaves out), which is what a history groups by.
func fullConfig(sp *space.Space, cfg space.Config) space.Config {
	out := make(space.Config, len(sp.Knobs()))
	for _, k := range sp.Knobs() {
		v, ok := cfg[k.Name]
		if !ok {
			v = sp.LeftOut(cfg, k)
		}
		out[k.Name] = v
	}
	return out
}

// encode returns the coordinates of cfg (absent knobs at the value the
// server runs with, see fullConfig), one per knob in space order.
func encode(sp *space.Space, cfg space.Config) []float64 {
	ks := sp.Knobs()
	x := make([]float64, len(ks))
	for i, k := range ks {
		v, ok := cfg[k.Name]
		if !ok {
			v = sp.LeftOut(cfg, k)
		}
		u, err := toUnit(k, v)
		if err != nil {
			u, _ = toUnit(k, k.Default)
		}
		x[i] = u
	}
	return x
}

// decode returns the configuration at coordinates x (one per knob).
func decode(sp *space.Space, x []float64) space.Config {
	ks := sp.Knobs()
	cfg := make(space.Config, len(ks))
	for i, k := range ks {
		cfg[k.Name] = fromUnit(k, x[i])
	}
	return cfg
}

// observation is one measured configuration as a strategy sees it.
type observation struct {
	cfg   space.Config // full: every knob of the space set
	key   string       // cfg.Key()
	x     []float64    // encode(cfg)
	value float64      // score, or the penalty for a failed trial
}

// history is the trial history shared by every phase of a strategy: every
// measured point, whoever proposed it. Repeated measurements of one
// configuration are grouped by key.
type history struct {
	sp *space.Space
	// shape turns a proposal into the configuration the study measures
	// (its Space nil: the space's repair alone).
	shape Shape
	obs   []observation
	byKey map[string][]int
}

func newHistory(sp *space.Space, shape Shape) *history {
	if shape.Space == nil {
		shape = Shape{Space: sp, Base: shape.Base, Verbatim: true}
	}
	return &history{sp: sp, shape: shape, byKey: map[string][]int{}}
}

// add records a measurement of cfg (absent knobs at their default).
func (h *history) add(cfg space.Config, value float64) {
	full := fullConfig(h.sp, cfg)
	o := observation{cfg: full, key: full.Key(), x: encode(h.sp, full), value: value}
	h.byKey[o.key] = append(h.byKey[o.key], len(h.obs))
	h.obs = append(h.obs, o)
}

// keyOf returns the history's key for cfg: its own (absent knobs at the
// value the server runs with) when that was measured, else the key of the
// configuration a study measures for it (shape's: Base under it, the
// repair, the canonical form), filled as add fills (the knobs the repair leaves
// out, e.g. query_cache_size with the cache off, at their default). A
// study tells the strategy what it measured, so a step that only moves a
// knob the repair moves back, or one Base pins, is a repeat of a measured
// configuration.
func (h *history) keyOf(cfg space.Config) string {
	full := fullConfig(h.sp, cfg)
	key := full.Key()
	if len(h.byKey[key]) > 0 {
		return key
	}
	return fullConfig(h.sp, h.shape.Of(Proposal{Config: full, Kind: Sampled})).Key()
}

// stats returns the mean value and count of the measurements of cfg (see
// keyOf).
func (h *history) stats(cfg space.Config) (mean float64, n int) {
	idx := h.byKey[h.keyOf(cfg)]
	for _, i := range idx {
		mean += h.obs[i].value
	}
	if len(idx) > 0 {
		mean /= float64(len(idx))
	}
	return mean, len(idx)
}

// measured reports whether cfg has been measured, as proposed or as the
// space's repairs make it (see keyOf).
func (h *history) measured(cfg space.Config) bool {
	return len(h.byKey[h.keyOf(cfg)]) > 0
}

// mean returns the mean value of the observations at indexes idx (one
// configuration's repeats: a byKey entry, never empty).
func (h *history) mean(idx []int) float64 {
	m := 0.0
	for _, i := range idx {
		m += h.obs[i].value
	}
	return m / float64(len(idx))
}

// best returns the configuration with the highest mean over its repeats
// (ties: the earliest) and that mean; ok is false for an empty history.
func (h *history) best() (cfg space.Config, mean float64, n int, ok bool) {
	keys := make([]string, 0, len(h.byKey))
	for k := range h.byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return h.byKey[keys[i]][0] < h.byKey[keys[j]][0] })
	for _, k := range keys {
		idx := h.byKey[k]
		m := h.mean(idx)
		if !ok || m > mean {
			cfg, mean, n, ok = h.obs[idx[0]].cfg, m, len(idx), true
		}
	}
	return cfg, mean, n, ok
}

// noise returns the pooled within-configuration standard deviation of the
// repeated measurements and its degrees of freedom (0 when no
// configuration was measured twice).
func (h *history) noise() (sd float64, dof int) {
	ss := 0.0
	for _, idx := range h.byKey {
		if len(idx) < 2 {
			continue
		}
		m := h.mean(idx)
		for _, i := range idx {
			d := h.obs[i].value - m
			ss += d * d
		}
		dof += len(idx) - 1
	}
	if dof == 0 {
		return 0, 0
	}
	return math.Sqrt(ss / float64(dof)), dof
}

// Encode returns the coordinates of cfg, one per knob of sp in order: for a
// numeric knob its position in [0, 1] along its search scale (log where the
// knob has one), for an Enum or Bool knob the index of its value in
// Knob.Options(). Absent knobs take their default.
func Encode(sp *space.Space, cfg space.Config) []float64 { return encode(sp, cfg) }

// Decode returns the configuration at coordinates x (as Encode returns
// them; numeric coordinates are clamped to [0, 1] and rounded to the knob's
// Step, choice coordinates rounded to the nearest index).
func Decode(sp *space.Space, x []float64) space.Config { return decode(sp, x) }
