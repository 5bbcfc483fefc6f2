package space

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Rules is a space file's content: which knobs to search and how. The file
// format (TOML) is read by package spacefile; Resolve applies the rules
// after the server and durability checks.
type Rules struct {
	// File names the space file in errors.
	File string
	// Include lists knob names or path.Match patterns ("innodb_*"); when
	// non-empty, tunable knobs matching none are excluded.
	Include []string
	// Exclude lists names or patterns of knobs left at the server default.
	Exclude []string
	// Knobs holds per-knob rules, keyed by knob name.
	Knobs map[string]KnobRule
}

// KnobRule narrows or fixes one knob. Values are written as in my.cnf
// (sizes with K/M/G suffixes).
type KnobRule struct {
	// Min and Max narrow a numeric knob's search range ("" keeps the end).
	Min, Max string
	// Choices narrows an enum or bool knob to these values (kept in the
	// catalogue's order); one choice pins the knob.
	Choices []string
	// Fixed pins the knob to this value in every trial.
	Fixed string
	// Line is the rule's line in the file (0 when unknown), for errors.
	Line int
}

func (r *Rules) where(line int) string {
	s := "space file " + r.File
	if line > 0 {
		s += " line " + strconv.Itoa(line)
	}
	return s
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// apply changes entries in place per the rules. It returns an error naming
// the file, the line when known, the knob and what is allowed.
func (r *Rules) apply(entries []Entry) error {
	names := map[string]int{}
	for i, e := range entries {
		names[e.Knob.Name] = i
	}
	for _, list := range [][]string{r.Include, r.Exclude} {
		for _, p := range list {
			if _, err := path.Match(p, ""); err != nil {
				return fmt.Errorf("%s: pattern %q: %w", r.where(0), p, err)
			}
			n := 0
			for name := range names {
				if ok, _ := path.Match(p, name); ok {
					n++
				}
			}
			if n == 0 {
				return fmt.Errorf("%s: %q matches no knob (see autotune knobs for the names)", r.where(0), p)
			}
		}
	}
	keys := make([]string, 0, len(r.Knobs))
	for k := range r.Knobs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := names[strings.ReplaceAll(k, "-", "_")]; !ok {
			return fmt.Errorf("%s: unknown knob %q (see autotune knobs for the names)", r.where(r.Knobs[k].Line), k)
		}
	}
	for i := range entries {
		e := &entries[i]
		name := e.Knob.Name
		if e.Status == Tunable {
			switch {
			case len(r.Include) > 0 && !matchAny(r.Include, name):
				e.Status, e.Reason = Excluded, "not in the include list of "+r.where(0)+": left at the server default"
			case matchAny(r.Exclude, name):
				e.Status, e.Reason = Excluded, "excluded by "+r.where(0)+": left at the server default"
			}
		}
		var rule KnobRule
		found := false
		for k, kr := range r.Knobs {
			if strings.ReplaceAll(k, "-", "_") == name {
				rule, found = kr, true
			}
		}
		if !found {
			continue
		}
		if err := r.applyRule(e, rule); err != nil {
			return err
		}
	}
	return nil
}

func (r *Rules) applyRule(e *Entry, rule KnobRule) error {
	k := e.Knob
	at := r.where(rule.Line) + ": knob " + k.Name
	switch e.Status {
	case Unsupported, Via:
		return fmt.Errorf("%s: not searched on this server: %s", at, e.Reason)
	case Excluded:
		return fmt.Errorf("%s: has a rule but is excluded by the include/exclude lists", at)
	}
	narrow := rule.Min != "" || rule.Max != "" || len(rule.Choices) > 0
	if rule.Fixed != "" && narrow {
		return fmt.Errorf("%s: give either fixed or min/max/choices, not both", at)
	}
	if e.Status == Pinned {
		if rule.Fixed != "" {
			v, err := k.Canonical(rule.Fixed)
			if err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			if v != e.Value {
				return fmt.Errorf("%s: fixed %s, but %s", at, rule.Fixed, e.Reason)
			}
			return nil
		}
		return fmt.Errorf("%s: cannot be narrowed: %s", at, e.Reason)
	}
	if rule.Fixed != "" {
		v, err := k.Canonical(rule.Fixed)
		if err != nil {
			return fmt.Errorf("%s: fixed: %w", at, err)
		}
		if err := e.accepts(v); err != nil {
			return fmt.Errorf("%s: fixed: %w", at, err)
		}
		e.Status, e.Value = Pinned, v
		e.Reason = "fixed to " + k.Render(v) + " by " + r.where(rule.Line)
		return nil
	}
	switch k.Kind {
	case Int, Bytes, Float:
		if len(rule.Choices) > 0 {
			return fmt.Errorf("%s: a %s knob takes min and max, not choices", at, k.Kind)
		}
		lo, hi := k.Min, k.Max
		for _, b := range []struct {
			name, val string
			dst       *float64
		}{{"min", rule.Min, &lo}, {"max", rule.Max, &hi}} {
			if b.val == "" {
				continue
			}
			v, err := k.Canonical(b.val)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", at, b.name, err)
			}
			f, _ := strconv.ParseFloat(v, 64)
			if f < k.Min || f > k.Max {
				return fmt.Errorf("%s: %s %s lies outside the range searched on this server, %s (narrow it, do not widen it)", at, b.name, b.val, k.Range())
			}
			*b.dst = f
		}
		if lo > hi {
			return fmt.Errorf("%s: min %s above max %s", at, rule.Min, rule.Max)
		}
		if k.Kind != Float {
			step := float64(max(k.Step, 1))
			lo = ceilTo(lo, step)
			hi = floorTo(hi, step)
			if lo > hi {
				return fmt.Errorf("%s: no multiple of the step %s between min %s and max %s", at, k.format(step), rule.Min, rule.Max)
			}
		}
		e.Knob.Min, e.Knob.Max = lo, hi
		if lo == hi {
			v, _ := k.FromFloat(lo)
			e.Status, e.Value = Pinned, v
			e.Reason = "min = max in " + r.where(rule.Line)
		}
	default:
		if rule.Min != "" || rule.Max != "" {
			return fmt.Errorf("%s: a %s knob takes choices, not min/max", at, k.Kind)
		}
		// Spell choices against the catalogue's full list, so a value the
		// server or host lacks reads as "not offered", not as a typo.
		full := k
		for _, ck := range Catalogue() {
			if ck.Name == k.Name && len(ck.Choices) > 0 {
				full = ck
			}
		}
		want := map[string]bool{}
		for _, c := range rule.Choices {
			v, err := full.Canonical(c)
			if err != nil {
				return fmt.Errorf("%s: choice %q: %w", at, c, err)
			}
			want[v] = true
		}
		var keep []string
		for _, c := range k.Options() {
			if want[c] {
				keep = append(keep, c)
				delete(want, c)
			}
		}
		if len(want) > 0 {
			var bad []string
			for c := range want {
				bad = append(bad, c)
			}
			sort.Strings(bad)
			return fmt.Errorf("%s: choices %s are not offered on this server (offered: %s)", at, strings.Join(bad, ", "), strings.Join(k.Options(), ", "))
		}
		if len(keep) == 1 {
			e.Status, e.Value = Pinned, keep[0]
			e.Reason = "one choice in " + r.where(rule.Line)
			return nil
		}
		if k.Kind == Enum {
			e.Knob.Choices = keep
		}
	}
	return nil
}

// accepts checks a canonical value against what the entry's knob may take:
// an offered choice, or a number within the server's range when known
// (else the search range).
func (e *Entry) accepts(v string) error {
	k := e.Knob
	switch k.Kind {
	case Enum, Bool:
		for _, c := range k.Options() {
			if c == v {
				return nil
			}
		}
		return fmt.Errorf("value %s: want one of %s", v, strings.Join(k.Options(), ", "))
	}
	f, _ := strconv.ParseFloat(v, 64)
	lo, hi := k.Min, k.Max
	if e.hard != nil {
		lo, hi = e.hard[0], e.hard[1]
	}
	if f < lo || f > hi {
		return fmt.Errorf("value %s outside %s..%s", k.Render(v), k.format(lo), k.format(hi))
	}
	return nil
}

func ceilTo(f, step float64) float64 {
	n := f / step
	if n != float64(int64(n)) {
		n = float64(int64(n) + 1)
	}
	return n * step
}

func floorTo(f, step float64) float64 { return float64(int64(f/step)) * step }
