package space

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the value type of a knob.
type Kind int

const (
	// Int is an integer knob (a count, a percentage, IOPS).
	Int Kind = iota
	// Bytes is an integer size in bytes; rendered with K/M/G suffixes.
	Bytes
	// Float is a real-valued knob.
	Float
	// Enum is one of a fixed list of strings (Knob.Choices).
	Enum
	// Bool is ON or OFF.
	Bool
)

// String returns the kind's name as used in docs and the knobs listing.
func (k Kind) String() string {
	switch k {
	case Int:
		return "int"
	case Bytes:
		return "bytes"
	case Float:
		return "float"
	case Enum:
		return "enum"
	case Bool:
		return "bool"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Scale tells how a numeric knob's range is searched.
type Scale int

const (
	// Linear samples the range uniformly.
	Linear Scale = iota
	// Log samples the range uniformly in log space (sizes, counts spanning
	// orders of magnitude).
	Log
)

// Layer says where a knob's value is applied.
type Layer int

const (
	// LayerServer knobs are server options: written to the trial's my.cnf,
	// and set with SET GLOBAL when dynamic.
	LayerServer Layer = iota
	// LayerEnvironment knobs are applied by the sandbox launcher: the
	// server's allocator (LD_PRELOAD), CPU placement (taskset), NUMA policy
	// (numactl) and the benchmark's connection.
	LayerEnvironment
	// LayerBuild knobs choose among binaries the user lists (--server-build,
	// --benchmark-build): compile-time settings cannot change per trial.
	LayerBuild
	// LayerDataset knobs are fixed when the datadir is initialised and the
	// dataset loaded (e.g. innodb_page_size): one value per dataset.
	LayerDataset
)

// String returns the layer's name as used in the knobs listing.
func (l Layer) String() string {
	switch l {
	case LayerServer:
		return "server"
	case LayerEnvironment:
		return "environment"
	case LayerBuild:
		return "build"
	case LayerDataset:
		return "dataset"
	}
	return fmt.Sprintf("layer(%d)", int(l))
}

// Avail is one flavour's version range in which a knob exists, and its
// names there. A knob without Avail entries exists on every flavour under
// Knob.Name. A knob with entries exists only where one matches.
type Avail struct {
	// Flavor is the server family (MySQL entries also cover Percona).
	Flavor Flavor
	// Since is the first release that has the knob in this form ("" = every
	// release considered); Until the first release without it ("" = still
	// present). Both "MAJOR.MINOR.PATCH".
	Since, Until string
	// Variable is the system variable name in this range ("" = Knob.Name),
	// e.g. "tx_isolation" for transaction_isolation on MariaDB < 11.1.1.
	Variable string
	// Option is the option's spelling in option files and on the command
	// line in this range when it is not Knob.Name ("" = Knob.Name), e.g.
	// "innodb_redo_log_capacity" for the redo log's size on MySQL 8.0.30
	// and later (OptionName).
	Option string
	// Gone says what happens from Until on, in words shown to the user, e.g.
	// "removed in MariaDB 10.6.0; the option is accepted as a no-op".
	Gone string
	// Tolerated is true when, from Until on, the server still accepts the
	// startup option as a no-op (with a "was removed" warning) instead of
	// aborting on an unknown variable.
	Tolerated bool
}

// Knob describes one setting of the search space. Numeric ranges (Min,
// Max) are the search range in the knob's unit (bytes for Bytes knobs);
// they lie inside what the server accepts, per the manual page in Source,
// and are clamped to the live server's range before a study (Resolve).
type Knob struct {
	// Name is the knob's name with underscores, e.g.
	// "innodb_buffer_pool_size". For server knobs it is also the full option
	// name written to my.cnf (never an abbreviation: the server matches
	// unique prefixes).
	Name string
	// Seed is the number of the knob in the reference tuning study's list
	// of 36 (MySQL 5.5 on sysbench; "1.1" .. "4.22", group.number; two
	// knobs share 3.5, 4.14 and 4.22), "" for the extras of later reports.
	Seed string
	// Group is "environment", "build", "server" or "innodb".
	Group string
	// Layer says where the value is applied.
	Layer Layer
	// Kind is the value type.
	Kind Kind
	// Min and Max bound the search range of numeric knobs (inclusive).
	Min, Max float64
	// Scale is the search scale of numeric knobs.
	Scale Scale
	// Step is the rounding granularity of Int and Bytes knobs (1 when 0).
	Step int64
	// Choices lists the values of Enum knobs in a fixed order; never reorder
	// them, stored trials refer to values, samplers to positions.
	Choices []string
	// Default is the server's compiled-in default on MariaDB 10.11, in
	// canonical form (bytes as an integer).
	Default string
	// Unit is the unit of numeric values: "bytes", "IOPS", "%", "threads", "".
	Unit string
	// Dynamic reports whether SET GLOBAL changes it without a restart. The
	// live server's READ_ONLY flag overrides it (Resolve).
	Dynamic bool
	// FreshDatadir is true when a change only takes effect on a newly
	// initialised datadir or for tables created afterwards
	// (innodb_page_size, innodb_file_per_table): such a knob is a dataset
	// dimension and never changes per trial.
	FreshDatadir bool
	// Durability marks knobs that trade crash safety for speed; under
	// --durability strict they are pinned to StrictValue.
	Durability bool
	// StrictValue is the canonical value pinned by --durability strict.
	StrictValue string
	// Avail lists where the knob exists and under which variable name; see
	// Avail. Empty means every flavour, under Name.
	Avail []Avail
	// NotSearched, when set, is why the knob is never searched per trial
	// whatever the server (a compile-time setting, an OS setting, a dataset
	// dimension). Shown as the knob's status.
	NotSearched string
	// Via names the knob that stands for this one in the search, when there
	// is one: the compile-time knobs are searched as "server_build".
	Via string
	// PerHost says how a value carries over to a host with other RAM or
	// cores (seeds from another machine, Space.Rescale): HostRAM for
	// memory sizes, HostCores for thread counts, HostFixed (the zero
	// value) for everything else.
	PerHost HostScale
	// Source names the manual section that gives the range and default.
	Source string
	// Help is a one-line description.
	Help string
}

// Normalize parses a value given by a user, a server or a sampler and
// returns the knob's canonical form: integers in decimal (bytes as plain
// integers, size suffixes K/M/G/T accepted), enums spelt as in Choices
// (case-insensitive match), bools as "ON"/"OFF" (1/0/true/false accepted).
// Numeric values are rounded to Step. It returns an error naming the knob,
// the value and the accepted form when the value is malformed or outside
// [Min, Max].
func (k Knob) Normalize(v string) (string, error) {
	v = strings.TrimSpace(v)
	switch k.Kind {
	case Bool:
		// The server's option parser (my_getopt get_bool_argument) takes
		// exactly these; "yes" is "not recognized. Set to OFF" (the
		// my_getopt message "option '%s': boolean value '%s' was not
		// recognized. Set to OFF.").
		switch strings.ToUpper(v) {
		case "ON", "1", "TRUE":
			return "ON", nil
		case "OFF", "0", "FALSE":
			return "OFF", nil
		}
		return "", fmt.Errorf("knob %s: value %q: want ON or OFF (1/0 and TRUE/FALSE also work; the server reads %q as OFF)", k.Name, v, v)
	case Enum:
		for _, c := range k.Choices {
			if strings.EqualFold(c, v) {
				return c, nil
			}
		}
		return "", fmt.Errorf("knob %s: value %q: want one of %s", k.Name, v, strings.Join(k.Choices, ", "))
	case Float:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("knob %s: value %q: want a number in [%g, %g]", k.Name, v, k.Min, k.Max)
		}
		return k.FromFloat(f)
	case Int, Bytes:
		n, err := k.parseInt(v)
		if err != nil {
			return "", err
		}
		return k.FromFloat(float64(n))
	}
	return "", fmt.Errorf("knob %s: unknown kind %v", k.Name, k.Kind)
}

// parseInt parses an integer value the way the server's option parser
// does: an optional K, M, G, T, P or E suffix (powers of 1024) is accepted
// for every integer option, not only for sizes.
func (k Knob) parseInt(v string) (int64, error) {
	n, err := ParseBytes(v)
	if err == nil {
		return n, nil
	}
	if k.Kind == Bytes {
		return 0, fmt.Errorf("knob %s: %w", k.Name, err)
	}
	if m, err2 := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err2 == nil {
		return m, nil // negative integers
	}
	return 0, fmt.Errorf("knob %s: value %q: want an integer in [%g, %g] (K/M/G suffixes allowed)", k.Name, v, k.Min, k.Max)
}

// Canonical returns v in the knob's canonical form without checking the
// search range or rounding to Step: for values read from a server or an
// option file, which may lie outside what autotune searches. Enum values
// not among Choices are returned as given (trimmed), with an error.
func (k Knob) Canonical(v string) (string, error) {
	v = strings.TrimSpace(v)
	switch k.Kind {
	case Bool:
		return k.Normalize(v)
	case Enum:
		for _, c := range k.Choices {
			if strings.EqualFold(c, v) {
				return c, nil
			}
		}
		return v, fmt.Errorf("knob %s: value %q: want one of %s", k.Name, v, strings.Join(k.Choices, ", "))
	case Float:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return v, fmt.Errorf("knob %s: value %q: want a number", k.Name, v)
		}
		return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64), nil
	case Int, Bytes:
		n, err := k.parseInt(v)
		if err != nil {
			return v, err
		}
		return strconv.FormatInt(n, 10), nil
	}
	return v, fmt.Errorf("knob %s: unknown kind %v", k.Name, k.Kind)
}

// FromFloat rounds a numeric value to the knob's Step and renders it in
// canonical form. It returns an error when the rounded value lies outside
// [Min, Max] or the knob is not numeric.
func (k Knob) FromFloat(f float64) (string, error) {
	switch k.Kind {
	case Int, Bytes:
		step := k.Step
		if step <= 0 {
			step = 1
		}
		n := int64(math.Round(f/float64(step))) * step
		if float64(n) < k.Min || float64(n) > k.Max {
			return "", fmt.Errorf("knob %s: value %s outside [%s, %s]", k.Name, k.format(float64(n)), k.format(k.Min), k.format(k.Max))
		}
		return strconv.FormatInt(n, 10), nil
	case Float:
		if f < k.Min || f > k.Max {
			return "", fmt.Errorf("knob %s: value %g outside [%g, %g]", k.Name, f, k.Min, k.Max)
		}
		return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64), nil
	}
	return "", fmt.Errorf("knob %s: %v knob has no numeric value", k.Name, k.Kind)
}

// Float returns the numeric value of a canonical value of a numeric knob,
// or the position in Choices (OFF=0, ON=1 for Bool) of a choice knob.
func (k Knob) Float(canonical string) (float64, error) {
	switch k.Kind {
	case Bool:
		if canonical == "ON" {
			return 1, nil
		}
		return 0, nil
	case Enum:
		for i, c := range k.Choices {
			if c == canonical {
				return float64(i), nil
			}
		}
		return 0, fmt.Errorf("knob %s: %q is not a choice", k.Name, canonical)
	}
	return strconv.ParseFloat(canonical, 64)
}

// Options returns the choices of an Enum or Bool knob (Bool: OFF, ON).
func (k Knob) Options() []string {
	if k.Kind == Bool {
		return []string{"OFF", "ON"}
	}
	return k.Choices
}

// Render formats a canonical value for my.cnf: bytes with the largest exact
// K/M/G suffix (134217728 → "128M"), everything else unchanged.
func (k Knob) Render(canonical string) string {
	if k.Kind != Bytes {
		return canonical
	}
	n, err := strconv.ParseInt(canonical, 10, 64)
	if err != nil {
		return canonical
	}
	return FormatBytes(n)
}

func (k Knob) format(f float64) string {
	if k.Kind == Bytes {
		return FormatBytes(int64(f))
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Range returns the search range as text ("64M..16G", "1..32", or the
// choices joined by "|").
func (k Knob) Range() string {
	switch k.Kind {
	case Enum, Bool:
		return strings.Join(k.Options(), "|")
	}
	s := k.format(k.Min) + ".." + k.format(k.Max)
	if k.Scale == Log {
		s += " (log)"
	}
	return s
}

// ParseBytes parses a size as the MySQL option-file rules allow: an integer
// with an optional K, M, G, T, P or E suffix (case-insensitive, powers of
// 1024). It returns an error naming the value when it is malformed, negative
// or overflows int64.
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("size %q: want an integer with an optional K, M, G or T suffix (e.g. 128M)", s)
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		mult = 1 << 10
	case 'm', 'M':
		mult = 1 << 20
	case 'g', 'G':
		mult = 1 << 30
	case 't', 'T':
		mult = 1 << 40
	case 'p', 'P':
		mult = 1 << 50
	case 'e', 'E':
		mult = 1 << 60
	}
	num := s
	if mult > 1 {
		num = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("size %q: want a non-negative integer with an optional K, M, G or T suffix (e.g. 128M)", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return n * mult, nil
}

// FormatBytes renders n with the largest suffix (K, M, G, T) that divides it
// exactly: 134217728 → "128M", 1000 → "1000".
func FormatBytes(n int64) string {
	units := []struct {
		suffix string
		size   int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}}
	for _, u := range units {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
