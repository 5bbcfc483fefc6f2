package exportfile

import (
	"fmt"
	"strings"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// exportDurability is what an export says about the crash safety of the
// configuration it writes, derived from that configuration's own values
// (space.Relaxations), never from the study's policy alone.
type exportDurability struct {
	// Policy is the study's --durability ("" when its manifest has none).
	Policy string
	// Relaxed are the durability knobs the configuration sets weaker than
	// their crash-safe value.
	Relaxed []space.Relaxation
	// Reset is the study's measurement of the configuration with those
	// knobs at their crash-safe values (Number −1: not measured); Best
	// and Base are the estimates of the exported configuration and the
	// baseline it is compared with.
	Reset            search.Trial
	Best, Base, Safe search.Estimate
}

// durabilityOf returns the durability of cfg (the configuration exported
// for best) in the study of manifest bs, and an error when a strict study
// would export relaxed values: a strict label over relaxed values is
// refused, whatever put them in the trial.
func durabilityOf(bs storage.Manifest, cfg space.Config, best, base search.Trial, trials []search.Trial) (exportDurability, error) {
	d := exportDurability{Relaxed: space.Relaxations(cfg), Reset: search.Trial{Number: -1}}
	if bs.Space != nil {
		d.Policy = bs.Space.Durability
	}
	if len(d.Relaxed) == 0 {
		return d, nil
	}
	if space.Durability(d.Policy) == space.Strict {
		var ks []string
		for _, r := range d.Relaxed {
			ks = append(ks, r.Knob+"="+r.Value)
		}
		return d, fmt.Errorf("trial %d sets %s under the study's --durability strict: not exported (a strict study's export must be as crash-safe as the policy says; export another --trial)",
			best.Number, strings.Join(ks, ", "))
	}
	safe := cfg.Clone()
	for _, r := range d.Relaxed {
		safe[r.Knob] = r.Strict
	}
	for _, t := range trials {
		if t.State == search.Complete && !t.Infeasible && sameEffective(t.Params, safe) {
			d.Reset = t
			break
		}
	}
	if d.Reset.Number >= 0 && base.Number >= 0 {
		d.Best, d.Safe, d.Base = search.EstimateOf(trials, best), search.EstimateOf(trials, d.Reset), search.EstimateOf(trials, base)
	}
	return d, nil
}

// sameEffective reports whether configurations a and b run the server
// alike: every knob either sets is at the same canonical value in both, a
// knob one leaves out at the catalogue's default.
func sameEffective(a, b space.Config) bool {
	all := space.Lookup()
	value := func(c space.Config, n string) string {
		k, known := all.Knob(n)
		v, ok := c[n]
		if !ok {
			if !known {
				return ""
			}
			v = k.Default
		}
		if known {
			if cv, err := k.Canonical(v); err == nil {
				return cv
			}
		}
		return v
	}
	for _, c := range []space.Config{a, b} {
		for n := range c {
			if value(a, n) != value(b, n) {
				return false
			}
		}
	}
	return true
}

// lines returns the export header's durability lines (without comment
// markers): the tier the values give, each relaxed knob's loss window, and
// the share of the gain that giving up durability bought where the study
// measured it.
func (d exportDurability) lines() []string {
	if len(d.Relaxed) == 0 {
		how := ""
		switch space.Durability(d.Policy) {
		case space.Strict:
			how = " (pinned for every trial: --durability strict)"
		case space.Relaxed:
			how = " (the relaxed search kept them: --durability relaxed)"
		}
		return []string{"durability: strict: innodb_flush_log_at_trx_commit=1, innodb_doublewrite=ON and, where binary logging is on, sync_binlog=1" + how + ": as crash-safe as the defaults"}
	}
	out := []string{"durability: RELAXED: this configuration trades crash safety for speed; use it only where these losses are acceptable:"}
	for _, r := range d.Relaxed {
		out = append(out, fmt.Sprintf("  %s = %s (crash-safe: %s): %s", r.Knob, r.Value, r.Strict, r.Loss))
	}
	share, measured := d.share()
	switch {
	case measured:
		out = append(out, fmt.Sprintf("with these knobs at their crash-safe values (trial %d): score %.1f (mean of %d) against %.1f (mean of %d) as written, over the baseline's %.1f: %.0f %% of the gain comes from giving up durability",
			d.Reset.Number, d.Safe.Score, d.Safe.N, d.Best.Score, d.Best.N, d.Base.Score, share))
	case d.Reset.Number >= 0:
		out = append(out, fmt.Sprintf("with these knobs at their crash-safe values: trial %d", d.Reset.Number))
	default:
		out = append(out, "the gain with these knobs at their crash-safe values was not measured: write a copy with them set so and measure both (autotune verify best.cnf safe.cnf)")
	}
	return out
}

// exportDurabilityDoc is the json export's durability.
type exportDurabilityDoc struct {
	// Tier is "strict" or "relaxed", from the exported values; Policy the
	// study's --durability.
	Tier   string `json:"tier"`
	Policy string `json:"policy,omitempty"`
	// Relaxed lists each durability knob set weaker than its crash-safe
	// value, with what a crash can lose.
	Relaxed []exportRelaxed `json:"relaxed"`
	// SafeTrial is the trial that measured the configuration with those
	// knobs at their crash-safe values; DurabilitySharePct the share of
	// the gain over the baseline that giving them up bought (both absent
	// when not measured).
	SafeTrial          *int     `json:"safe_trial,omitempty"`
	DurabilitySharePct *float64 `json:"durability_share_pct,omitempty"`
}

type exportRelaxed struct {
	Knob   string `json:"knob"`
	Value  string `json:"value"`
	Strict string `json:"crash_safe"`
	Loss   string `json:"loss"`
}

func (d exportDurability) doc() *exportDurabilityDoc {
	out := &exportDurabilityDoc{Tier: string(space.Strict), Policy: d.Policy, Relaxed: []exportRelaxed{}}
	if len(d.Relaxed) > 0 {
		out.Tier = string(space.Relaxed)
	}
	for _, r := range d.Relaxed {
		out.Relaxed = append(out.Relaxed, exportRelaxed{r.Knob, r.Value, r.Strict, r.Loss})
	}
	if d.Reset.Number >= 0 {
		n := d.Reset.Number
		out.SafeTrial = &n
		if share, ok := d.share(); ok {
			out.DurabilitySharePct = ptr(round1(share))
		}
	}
	return out
}

// share returns the percentage of the exported configuration's gain over
// the baseline that its durability knobs bought: (best − safe) / (best −
// baseline) × 100 on the estimates; false when the safe configuration was
// not measured or the export has no gain.
func (d exportDurability) share() (float64, bool) {
	if d.Reset.Number < 0 || d.Best.N == 0 || d.Base.N == 0 || d.Best.Score <= d.Base.Score {
		return 0, false
	}
	return (d.Best.Score - d.Safe.Score) / (d.Best.Score - d.Base.Score) * 100, true
}
