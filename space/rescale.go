package space

import (
	"fmt"
	"math"
)

// HostScale says how a knob's value carries over to a host of another
// size, when a configuration tuned on one machine seeds a study on
// another (--seed-from). It is a property of the knob (Knob.PerHost).
type HostScale int

const (
	// HostFixed values carry over as they are (most knobs: they describe
	// the workload or the server's behaviour, not the machine).
	HostFixed HostScale = iota
	// HostRAM values are memory sizes meant as a share of the machine's
	// RAM: scaled by the ratio of the two hosts' RAM, and capped by the
	// memory budget of the new host.
	HostRAM
	// HostCores values are thread counts meant per core: scaled by the
	// ratio of the two hosts' cores (a count > 0 stays > 0, so a special
	// 0 such as "unlimited" is never produced by scaling).
	HostCores
)

// String names the scale as the knobs listing and docs show it.
func (h HostScale) String() string {
	switch h {
	case HostRAM:
		return "RAM"
	case HostCores:
		return "cores"
	}
	return "fixed"
}

// HostSize is the size of a machine: RAM in bytes and CPU cores (0 = unknown).
type HostSize struct {
	RAMBytes int64
	Cores    int
}

// Rescaled is one value Rescale changed.
type Rescaled struct {
	// Knob is the knob's name; Old and New are the rendered values
	// ("8G", "2G").
	Knob, Old, New string
	// Why says by which ratio, and any cap: "RAM 32.0G -> 8.0G (x0.25),
	// capped by the memory budget 1.5G".
	Why string
}

// String renders the change as "innodb_buffer_pool_size 8G -> 2G (RAM
// 32.0G -> 8.0G (x0.25))".
func (r Rescaled) String() string {
	return fmt.Sprintf("%s %s -> %s (%s)", r.Knob, r.Old, r.New, r.Why)
}

// Rescale returns a copy of c in which every knob whose PerHost scale is
// HostRAM or HostCores is carried over from host from to host to, and the
// list of values it changed, in c's name order:
//
//   - HostRAM: value × to.RAMBytes / from.RAMBytes, at most memBudget (when
//     > 0) and the knob's search maximum (which a study already limits to
//     the memory budget for the buffer pool);
//   - HostCores: value × to.Cores / from.Cores, rounded, at least 1 when the
//     value was above 0, within the knob's search range.
//
// Results are rounded to the knob's Step and kept within its range. A
// ratio is 1 (nothing changes) when either host's size is unknown (0) or
// the sizes are equal. Knobs c sets that the space does not know, and
// values that do not parse, are left as they are: validation reports them.
func (s *Space) Rescale(c Config, from, to HostSize, memBudget int64) (Config, []Rescaled) {
	out := c.Clone()
	var changed []Rescaled
	for _, name := range c.Names() {
		k, ok := s.Knob(name)
		if !ok || (k.Kind != Int && k.Kind != Bytes) {
			continue
		}
		old, err := k.Float(c[name])
		if err != nil {
			continue
		}
		var ratio float64
		var why string
		switch k.PerHost {
		case HostRAM:
			if from.RAMBytes <= 0 || to.RAMBytes <= 0 || from.RAMBytes == to.RAMBytes {
				continue
			}
			ratio = float64(to.RAMBytes) / float64(from.RAMBytes)
			why = fmt.Sprintf("RAM %s -> %s (x%.3g)", HumanBytes(from.RAMBytes), HumanBytes(to.RAMBytes), ratio)
		case HostCores:
			if from.Cores <= 0 || to.Cores <= 0 || from.Cores == to.Cores {
				continue
			}
			ratio = float64(to.Cores) / float64(from.Cores)
			why = fmt.Sprintf("cores %d -> %d (x%.3g)", from.Cores, to.Cores, ratio)
		default:
			continue
		}
		f := old * ratio
		hi := k.Max
		capWhy := fmt.Sprintf("capped by the search range's maximum %s", k.format(k.Max))
		if k.PerHost == HostRAM && memBudget > 0 && float64(memBudget) < hi {
			hi = float64(memBudget)
			capWhy = "capped by the memory budget " + HumanBytes(memBudget)
		}
		if k.PerHost == HostCores {
			f = math.Round(f)
			if old > 0 && f < 1 {
				f = 1
			}
		}
		step := float64(max64(k.Step, 1))
		switch {
		case f > hi:
			f = floorTo(hi, step)
			why += ", " + capWhy
		case f < k.Min:
			f = math.Ceil(k.Min/step) * step
			why += fmt.Sprintf(", raised to the search range's minimum %s", k.format(k.Min))
		default:
			f = math.Round(f/step) * step
			f = math.Min(math.Max(f, math.Ceil(k.Min/step)*step), floorTo(k.Max, step))
		}
		v, err := k.FromFloat(f)
		if err != nil || v == c[name] {
			continue
		}
		out[name] = v
		changed = append(changed, Rescaled{Knob: k.Name, Old: k.Render(c[name]), New: k.Render(v), Why: why})
	}
	return out, changed
}
