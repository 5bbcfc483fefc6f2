package search

import (
	"fmt"
	"math"

	"github.com/autotune/autotune/space"
)

// This file maps configurations to and from the unit cube the model-based
// strategies work in: a numeric knob becomes a coordinate in [0, 1] along
// its search scale (log scale where the knob has one), a choice knob
// (Enum, Bool) the position of its value in Knob.Options().

// IsChoice reports whether k takes one of a fixed list of values.
func IsChoice(k space.Knob) bool { return k.Kind == space.Enum || k.Kind == space.Bool }

// ToUnit returns the coordinate of canonical value v of knob k: in [0, 1]
// for numeric knobs (values outside the range are clamped, e.g. a default
// below a range narrowed by space.Limit), the index in Options() for choice
// knobs. It returns an error for a value that does not parse or is not a
// choice.
func ToUnit(k space.Knob, v string) (float64, error) {
	f, err := k.Float(v)
	if err != nil {
		return 0, err
	}
	if IsChoice(k) {
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

// FromUnit returns the canonical value of knob k at coordinate u: clamped
// to [0, 1] and rounded to the knob's Step for numeric knobs, the choice at
// index round(u) for choice knobs.
func FromUnit(k space.Knob, u float64) string {
	if IsChoice(k) {
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
		f = ClampRound(k, f)
	}
	v, err := k.FromFloat(f)
	if err != nil {
		// clampRound keeps f inside the range; only a range narrower than
		// one Step gets here.
		return k.Default
	}
	return v
}

// FullConfig returns cfg with every searched knob of sp set: absent knobs
// take the value the server runs with (space.Space.LeftOut: their default;
// for innodb_io_capacity_max, twice innodb_io_capacity when that is more).
// Knobs of cfg not searched are dropped. Two configurations the server
// runs alike have one full form (up to the knobs space.Space.Repair
// leaves out), which is what a history groups by.
func FullConfig(sp *space.Space, cfg space.Config) space.Config {
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

// Encode returns the coordinates of cfg (absent knobs at the value the
// server runs with, see fullConfig), one per knob in space order.
func Encode(sp *space.Space, cfg space.Config) []float64 {
	ks := sp.Knobs()
	x := make([]float64, len(ks))
	for i, k := range ks {
		v, ok := cfg[k.Name]
		if !ok {
			v = sp.LeftOut(cfg, k)
		}
		u, err := ToUnit(k, v)
		if err != nil {
			u, _ = ToUnit(k, k.Default)
		}
		x[i] = u
	}
	return x
}

// Decode returns the configuration at coordinates x (one per knob).
func Decode(sp *space.Space, x []float64) space.Config {
	ks := sp.Knobs()
	cfg := make(space.Config, len(ks))
	for i, k := range ks {
		cfg[k.Name] = FromUnit(k, x[i])
	}
	return cfg
}

// ClampRound keeps a value inside the knob's range after rounding to Step,
// so a sample near an end never rounds outside it.
func ClampRound(k space.Knob, f float64) float64 {
	step := float64(k.Step)
	if step <= 0 {
		step = 1
	}
	r := math.Round(f/step) * step
	if r < k.Min {
		r = math.Ceil(k.Min/step) * step
	}
	if r > k.Max {
		r = math.Floor(k.Max/step) * step
	}
	return r
}
