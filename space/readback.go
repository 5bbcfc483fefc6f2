package space

import (
	"regexp"
	"strings"
)

// ReadbackStatus classifies a value the server runs with against the value
// it was given. Tools that recorded the requested value were misled in the
// field: skip-name-resolve=0 still read back ON on MySQL 8.4, a 5.7 buffer
// pool was rounded to a multiple of chunk size × instances, and a
// case-sensitive compare reported "on" vs "ON" as a change.
type ReadbackStatus string

const (
	// Match: the same value after normalisation (on = ON = 1 = TRUE,
	// 9500M = 9961472000, enums case-insensitive).
	Match ReadbackStatus = "MATCH"
	// Adjusted: a number the server rounded (e.g. to a block size).
	Adjusted ReadbackStatus = "ADJUSTED"
	// Clamped: a number the server moved into its range, with an "adjusted
	// to" warning in the error log.
	Clamped ReadbackStatus = "CLAMPED"
	// Mismatch: the value did not take effect as intended.
	Mismatch ReadbackStatus = "MISMATCH"
)

// Readback is the comparison of one variable.
type Readback struct {
	Name, Requested, Effective string
	Status                     ReadbackStatus
	// Warning is the server's own warning about the option, if any.
	Warning string
}

var (
	adjustedWarning = regexp.MustCompile(`option '([^']+)': (?:signed |unsigned )?value (\S+) adjusted to (\S+)`)
	boolWarning     = regexp.MustCompile(`option '([^']+)': boolean value '([^']*)' was not recognized\. Set to OFF`)
)

// ServerWarnings extracts the option warnings of a server's start-up
// output or error log, keyed by variable name (dashes as underscores):
// "option 'max_connections': unsigned value 200000 adjusted to 100000" and
// "option 'log_slow_extra': boolean value 'yes' was not recognized. Set to
// OFF" (the my_getopt message catalogue).
func ServerWarnings(log string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(log, "\n") {
		for _, re := range []*regexp.Regexp{adjustedWarning, boolWarning} {
			if m := re.FindStringSubmatch(line); m != nil {
				out[strings.ReplaceAll(m[1], "-", "_")] = strings.TrimSpace(line[strings.Index(line, m[0]):])
			}
		}
	}
	return out
}

// deprecationLines are the servers' messages that an option is ignored,
// removed or deprecated, each with the submatches that name options:
// MySQL 8.0.30+ on the redo log ("[MY-013869] Ignored deprecated
// configuration parameter innodb_log_file_size. Used
// innodb_redo_log_capacity instead." and "Deprecated configuration
// parameters innodb_log_file_size and/or innodb_log_files_in_group have
// been used to compute innodb_redo_log_capacity=N"), MariaDB's "'NAME'
// was removed. It does nothing now" and "The parameter NAME is deprecated
// and has no effect". MySQL's "The syntax '--NAME' is deprecated and will
// be removed" ([MY-011069]) is not among them: such an option still
// takes effect.
var deprecationLines = []*regexp.Regexp{
	regexp.MustCompile(`Ignored deprecated configuration parameter ([\w-]+)`),
	regexp.MustCompile(`Deprecated configuration parameters ([\w-]+) and/or ([\w-]+) have been used`),
	regexp.MustCompile(`'-*([\w-]+)' was removed\. It does nothing now`),
	regexp.MustCompile(`The parameter ([\w-]+) is deprecated and has no effect`),
}

// Deprecations extracts the options a server's start-up output or error
// log says it ignores, removed or deprecated (deprecationLines), keyed by
// name (dashes as underscores), each with the server's message from the
// match on. A trial's knob among them does not tune what the study thinks
// it tunes: such a knob fails the trial like an unknown variable.
func Deprecations(log string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(log, "\n") {
		for _, re := range deprecationLines {
			m := re.FindStringSubmatchIndex(line)
			if m == nil {
				continue
			}
			msg := strings.TrimSpace(line[m[0]:])
			for i := 2; i+1 < len(m); i += 2 {
				if m[i] >= 0 {
					out[strings.ReplaceAll(line[m[i]:m[i+1]], "-", "_")] = msg
				}
			}
		}
	}
	return out
}

// serverBool reads a value the way the server's option parser reads a
// boolean: ON/TRUE/1 and OFF/FALSE/0 in any case; ok is false for anything
// else (which the server turns into OFF with a warning).
func serverBool(v string) (on, ok bool) {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "ON", "TRUE", "1":
		return true, true
	case "OFF", "FALSE", "0":
		return false, true
	}
	return false, false
}

// CompareValue classifies what the server runs with (effective, as SELECT
// @@GLOBAL or SHOW GLOBAL VARIABLES reports it) against what it was given
// (requested, as written in the option file). k, when not nil, is the
// variable's knob and decides the type; otherwise the type is read from
// the effective value (ON/OFF: boolean; a number: numeric; else text).
// warnings are the server's option warnings (ServerWarnings): a numeric
// change with an "adjusted to" warning is Clamped, without one Adjusted.
func CompareValue(k *Knob, name, requested, effective string, warnings map[string]string) Readback {
	r := Readback{Name: name, Requested: requested, Effective: effective, Warning: warnings[name]}
	kind := Enum
	switch {
	case k != nil:
		kind = k.Kind
	case strings.EqualFold(effective, "ON") || strings.EqualFold(effective, "OFF"):
		kind = Bool
	default:
		if _, err := ParseBytes(effective); err == nil {
			kind = Bytes
		}
	}
	switch kind {
	case Bool:
		want, ok := serverBool(requested)
		got, _ := serverBool(effective)
		if ok && want == got {
			r.Status = Match
		} else {
			r.Status = Mismatch
		}
	case Int, Bytes, Float:
		a, err1 := ParseBytes(requested)
		b, err2 := ParseBytes(effective)
		if kind == Float || err1 != nil || err2 != nil {
			ka := Knob{Name: name, Kind: Float}
			x, e1 := ka.Canonical(requested)
			y, e2 := ka.Canonical(effective)
			switch {
			case e1 == nil && e2 == nil && x == y:
				r.Status = Match
			case e1 == nil && e2 == nil && r.Warning != "":
				r.Status = Clamped
			case e1 == nil && e2 == nil:
				r.Status = Adjusted
			default:
				r.Status = Mismatch
			}
			return r
		}
		switch {
		case a == b:
			r.Status = Match
		case strings.Contains(r.Warning, "adjusted to"):
			r.Status = Clamped
		default:
			r.Status = Adjusted
		}
	default:
		if strings.EqualFold(strings.TrimSpace(requested), strings.TrimSpace(effective)) {
			r.Status = Match
		} else {
			r.Status = Mismatch
		}
	}
	return r
}
