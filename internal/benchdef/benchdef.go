// Package benchdef is the definition of a benchmark: the driver, the
// benchmark program's version and every option that changes what it
// measures, as passed to the program. The study manifest stores it
// (storage.Manifest.Definition); a resume or a comparison of studies whose
// definitions differ is refused (Definition.Diff names each difference).
package benchdef

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Definition is what a benchmark measures. Two runs with equal
// definitions run the same benchmark program with the same options.
type Definition struct {
	// Driver is the benchmark driver (study.Register: "sysbench", "tpcc",
	// "command", ...).
	Driver string `json:"driver"`
	// Version is the benchmark program's version as it reports it
	// ("sysbench 1.0.20", "go-tpc v1.0.12"); "" when the program has none
	// (a user's --bench-cmd).
	Version string `json:"version"`
	// Options maps each option that changes what the benchmark measures
	// to its value as passed to the program: the option's name without
	// leading dashes ("tables", "rand-type") → "8", "uniform". Options the
	// engine varies per run (the thread level, the run length) are not
	// here; thread levels are recorded as "threads" ("4,16").
	Options map[string]string `json:"options"`
}

// Names returns the option names, sorted.
func (d Definition) Names() []string { return slices.Sorted(maps.Keys(d.Options)) }

// String renders the definition on one line: driver, version and the
// options sorted by name, "sysbench (sysbench 1.0.20) --rand-type=uniform
// --tables=8 ...".
func (d Definition) String() string {
	var b strings.Builder
	b.WriteString(d.Driver)
	if d.Version != "" {
		fmt.Fprintf(&b, " (%s)", d.Version)
	}
	for _, k := range d.Names() {
		fmt.Fprintf(&b, " --%s=%s", k, d.Options[k])
	}
	return b.String()
}

// Change is one difference between two definitions.
type Change struct {
	// What is "driver", "version" or an option's name ("--tables").
	What string
	// Old and New are the values; "" when absent.
	Old, New string
}

// String renders the change as "--tables: 8 → 16" ("(none)" for an
// absent value).
func (c Change) String() string {
	return fmt.Sprintf("%s: %s → %s", c.What, orNone(c.Old), orNone(c.New))
}

// Diff returns the differences from d to n: the driver, then the version,
// then the options sorted by name. Empty when they define the same
// benchmark.
func (d Definition) Diff(n Definition) []Change {
	var out []Change
	if d.Driver != n.Driver {
		out = append(out, Change{What: "driver", Old: d.Driver, New: n.Driver})
	}
	if d.Version != n.Version {
		out = append(out, Change{What: "version", Old: d.Version, New: n.Version})
	}
	names := map[string]bool{}
	for k := range d.Options {
		names[k] = true
	}
	for k := range n.Options {
		names[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(names)) {
		if a, b := d.Options[k], n.Options[k]; a != b {
			out = append(out, Change{What: "--" + k, Old: a, New: b})
		}
	}
	return out
}

// Equal reports whether d and n define the same benchmark.
func (d Definition) Equal(n Definition) bool { return len(d.Diff(n)) == 0 }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// RandType returns the access distribution the definition's benchmark
// ran under, its "rand-type" option (sysbench's --rand-type); "" when it
// has none.
func (d Definition) RandType() string { return d.Options["rand-type"] }

// Distribution renders the options that shape the access distribution:
// "--rand-type=uniform", then the other options named rand-* sorted by
// name ("--rand-type=special --rand-pareto-h=0.2 --rand-spec-iter=12
// ..."), as passed to the program; "" without a rand-type option.
func (d Definition) Distribution() string {
	if d.RandType() == "" {
		return ""
	}
	parts := []string{"--rand-type=" + d.RandType()}
	for _, k := range d.Names() {
		if strings.HasPrefix(k, "rand-") && k != "rand-type" {
			parts = append(parts, "--"+k+"="+d.Options[k])
		}
	}
	return strings.Join(parts, " ")
}
