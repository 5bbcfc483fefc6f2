package strategy

import (
	"math"
	"sort"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

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
	shape search.Shape
	obs   []observation
	byKey map[string][]int
}

func newHistory(sp *space.Space, shape search.Shape) *history {
	if shape.Space == nil {
		shape = search.Shape{Space: sp, Base: shape.Base, Verbatim: true}
	}
	return &history{sp: sp, shape: shape, byKey: map[string][]int{}}
}

// add records a measurement of cfg (absent knobs at their default).
func (h *history) add(cfg space.Config, value float64) {
	full := search.FullConfig(h.sp, cfg)
	o := observation{cfg: full, key: full.Key(), x: search.Encode(h.sp, full), value: value}
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
	full := search.FullConfig(h.sp, cfg)
	key := full.Key()
	if len(h.byKey[key]) > 0 {
		return key
	}
	return search.FullConfig(h.sp, h.shape.Of(search.Proposal{Config: full, Kind: search.Sampled})).Key()
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
