package study

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/internal/secret"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// DefaultDiffTimeout bounds each read of the server by `autotune diff
// --dsn` when ServerDiff.Timeout is 0.
const DefaultDiffTimeout = 10 * time.Second

// ServerDiff is the configuration of `autotune diff --dsn`: the running
// server (DSN, without a password: ServerPassword reads it from
// $AUTOTUNE_PASSWORD or PasswordFile) against an option file (File) or,
// when File is "", trial Trial (−1: the best) of study Study in the store
// DB.
type ServerDiff struct {
	DSN, PasswordFile string
	// Timeout bounds each read of the server, connecting included
	// (DefaultDiffTimeout when 0).
	Timeout   time.Duration
	File      string
	DB, Study string
	Trial     int
}

// DiffServer compares the variables of the running server c.DSN with the
// settings of c.File or of a trial and returns the comparison
// (report.WriteServerDiff renders it). It only reads: SELECT @@version, SHOW GLOBAL VARIABLES and, where
// the server has it, information_schema.SYSTEM_VARIABLES.READ_ONLY.
//
// Settings are matched by the server's rules: the option file is read as
// that server version reads it (groups, !include, loose- prefixes, dashes
// equal to underscores), a knob of the catalogue is looked up under the
// server's own variable name for its flavour and version
// (space.VariableName, e.g. tx_isolation) and written in its own option
// spelling (space.OptionName), and values are compared in the knob's
// canonical form (sizes with suffixes, ON/1/TRUE, enum case); a variable
// the catalogue does not know is compared by space.CompareValue. A
// boolean option's skip-/disable-/enable- prefix sets the variable
// OFF/OFF/ON as the server's option parser does. Options that are not
// system variables of the server (start-up-only options, unknown ones)
// and trial knobs that are not server options (environment, build) are
// listed as not compared.
//
// Errors: a DSN ParseUserDSN refuses or two password sources (usage
// errors); a server that cannot be read within c.Timeout, naming the
// redacted DSN; the store, study or trial (LoadStudy, ChosenTrial); a
// file that cannot be read (naming file and line).
func DiffServer(ctx context.Context, c ServerDiff) (result.ServerDiff, error) {
	ex, err := openServer(c.DSN, c.PasswordFile)
	if err != nil {
		return result.ServerDiff{}, err
	}
	ex.QueryTimeout = c.Timeout
	if ex.QueryTimeout <= 0 {
		ex.QueryTimeout = DefaultDiffTimeout
	}
	d := result.ServerDiff{Server: secret.RedactDSN(c.DSN), Against: c.File}
	var params space.Config
	if c.File == "" {
		db, st, trials, err := LoadStudy(ctx, c.DB, c.Study)
		if err != nil {
			return result.ServerDiff{}, err
		}
		db.Close()
		t, _, err := ChosenTrial(trials, st.Name, c.Trial)
		if err != nil {
			return result.ServerDiff{}, err
		}
		params = t.Params
		d.Against = fmt.Sprintf("trial %d of study %q (%s) in %s", t.Number, st.Name, t.Kind, storage.RedactURL(c.DB))
	}
	g, err := ex.Globals(ctx, []string{"version", "version_comment"})
	if err != nil {
		return result.ServerDiff{}, fmt.Errorf("diff --dsn %s: cannot read the server (deadline %s per read): %w", d.Server, ex.QueryTimeout, err)
	}
	d.Version = g["version"]
	v, err := space.ParseVersion(g["version"], g["version_comment"])
	if err != nil {
		d.Notes = append(d.Notes, fmt.Sprintf("server version %q: %v; knobs are looked up under their catalogue names", g["version"], err))
	}
	var wants []wanted
	if c.File != "" {
		of, err := readOptionFileFor(c.File, v)
		if err != nil {
			return result.ServerDiff{}, err
		}
		d.Notes = append(d.Notes, of.Notes...)
		d.Notes = append(d.Notes, of.OtherVersionGroups(v)...)
		wants = fileWants(of.Effective(space.ServerGroups(v)))
	} else {
		wants = trialWants(space.ForServer(params, v))
	}
	vars, err := ex.VariableInfo(ctx, queryNames(wants, v))
	if err != nil {
		return result.ServerDiff{}, fmt.Errorf("diff --dsn %s: %w", d.Server, err)
	}
	rows, skipped, notes := compareServer(wants, vars, v)
	d.Rows, d.NotCompared = rows, skipped
	d.Notes = append(d.Notes, notes...)
	return d, nil
}

// wanted is one setting of the file or trial: its name (underscores, any
// loose- prefix removed, case kept), the value the server would see
// (Option.Setting), whether it was written with one, and where it comes
// from ("FILE line N", "trial").
type wanted struct {
	name, value string
	hasValue    bool
	at          string
}

func fileWants(opts []space.Option) []wanted {
	out := make([]wanted, 0, len(opts))
	for _, o := range opts {
		out = append(out, wanted{name: o.Name, value: o.Setting(), hasValue: o.HasValue, at: fmt.Sprintf("%s line %d", o.File, o.Line)})
	}
	return out
}

// trialWants are the knobs of params in catalogue order.
func trialWants(params space.Config) []wanted {
	var out []wanted
	for _, k := range space.Lookup().All() {
		if v, ok := params[k.Name]; ok {
			out = append(out, wanted{name: k.Name, value: v, hasValue: true, at: "the trial"})
		}
	}
	return out
}

// boolPrefixes are the prefixes the server's option parser takes on a
// boolean option (my_getopt): skip- and disable- set it OFF, enable- ON.
var boolPrefixes = []struct{ prefix, value string }{{"skip_", "OFF"}, {"disable_", "OFF"}, {"enable_", "ON"}}

// target is what a wanted setting sets on the server: the catalogue's
// knob (nil when the catalogue does not know the variable), the server's
// variable, and the value.
type target struct {
	knob            *space.Knob
	variable, value string
	// prefixed is true when the name had a boolean prefix: the target
	// must then be a boolean.
	prefixed bool
}

// candidates returns the variables the server might read w as, the
// likeliest first: the knob's variable on v, the name itself, then the
// same for the name without a boolean prefix.
func candidates(lk *space.Space, w wanted, v space.Version) []target {
	one := func(name, value string, prefixed bool) []target {
		var out []target
		if k, ok := lk.Knob(name); ok {
			out = append(out, target{knob: &k, variable: space.VariableName(k.Name, v), value: value, prefixed: prefixed})
		}
		return append(out, target{variable: name, value: value, prefixed: prefixed})
	}
	out := one(w.name, w.value, false)
	for _, p := range boolPrefixes {
		rest, ok := strings.CutPrefix(w.name, p.prefix)
		if !ok {
			continue
		}
		value := p.value
		if w.hasValue {
			if p.value == "OFF" {
				continue // --skip-x=1: my_getopt refuses an argument there
			}
			value = w.value
		}
		out = append(out, one(rest, value, true)...)
	}
	return out
}

// queryNames are the variables to ask the server about: every candidate
// of every want that is a lower-case identifier (the server's variables
// are; anything else is no variable of it).
func queryNames(wants []wanted, v space.Version) []string {
	lk := space.Lookup()
	seen := map[string]bool{}
	var out []string
	for _, w := range wants {
		for _, c := range candidates(lk, w, v) {
			if !seen[c.variable] && isIdent(c.variable) {
				seen[c.variable] = true
				out = append(out, c.variable)
			}
		}
	}
	return out
}

func isIdent(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// compareServer compares each wanted setting with the server's variables
// (vars, from runner.Existing.VariableInfo) on a server of version v: one
// row per variable (a later setting of the same variable wins, at the
// place of the first), the settings not compared with why, and notes on
// values a knob cannot take.
func compareServer(wants []wanted, vars map[string]space.ServerVar, v space.Version) (rows []result.ServerDiffRow, skipped, notes []string) {
	lk := space.Lookup()
	idx := map[string]int{}
	for _, w := range wants {
		var t target
		found := false
		for _, c := range candidates(lk, w, v) {
			if c.knob != nil && c.knob.Layer != space.LayerServer {
				skipped = append(skipped, fmt.Sprintf("%s = %s (%s): not a server variable (%s knob, applied by autotune's sandbox)", c.knob.Name, c.knob.Render(w.value), w.at, c.knob.Layer))
				found = true
				break
			}
			if sv, ok := vars[c.variable]; ok && (!c.prefixed || isBool(c.knob, sv.Value)) {
				t, found = c, true
				break
			}
		}
		if !found {
			why := "not a system variable of this server (a start-up-only option, or one it does not know)"
			if k, ok := lk.Knob(w.name); ok {
				why = fmt.Sprintf("the catalogue's knob %s, but this server has no variable %s", k.Name, space.VariableName(k.Name, v))
			}
			skipped = append(skipped, fmt.Sprintf("%s (%s): %s", w.name, w.at, why))
			continue
		}
		if t.variable == "" {
			continue // not a server setting (listed above)
		}
		r := compareOne(t, vars[t.variable], v)
		if t.knob != nil {
			// An enum's Choices are what autotune searches, not all the
			// server takes (SERIALIZABLE): no note for those.
			if _, err := t.knob.Canonical(t.value); err != nil && t.knob.Kind != space.Enum {
				notes = append(notes, fmt.Sprintf("%s: %v", w.at, err))
			}
			if r.Differs && t.knob.FreshDatadir {
				notes = append(notes, fmt.Sprintf("%s takes effect only in a new datadir or for tables created afterwards", t.variable))
			}
		}
		if i, ok := idx[t.variable]; ok {
			rows[i] = r
			continue
		}
		idx[t.variable] = len(rows)
		rows = append(rows, r)
	}
	return rows, skipped, notes
}

// isBool reports whether a variable is boolean: the knob's kind, or, for
// a variable the catalogue does not know, a running value of ON or OFF.
func isBool(k *space.Knob, running string) bool {
	if k != nil {
		return k.Kind == space.Bool
	}
	return strings.EqualFold(running, "ON") || strings.EqualFold(running, "OFF")
}

// compareOne compares the wanted value of t with the server's variable sv.
func compareOne(t target, sv space.ServerVar, v space.Version) result.ServerDiffRow {
	r := result.ServerDiffRow{Variable: t.variable, Option: t.variable, Knob: t.knob,
		Running: sv.Value, Wanted: t.value, Value: t.value, Change: result.ChangeUnknown}
	if k := t.knob; k != nil {
		r.Option = space.OptionName(k.Name, v)
		wc, werr := k.Canonical(t.value)
		if werr != nil && k.Kind == space.Bool {
			// my_getopt sets a boolean it does not recognise ("yes") to
			// OFF, with a warning.
			wc, werr = "OFF", nil
		}
		rc, rerr := k.Canonical(sv.Value)
		if werr == nil {
			r.Wanted, r.Value = k.Render(wc), wc
		}
		if rerr == nil {
			r.Running = k.Render(rc)
		}
		if werr == nil && rerr == nil {
			r.Differs = wc != rc
		} else {
			r.Differs = !strings.EqualFold(strings.TrimSpace(t.value), strings.TrimSpace(sv.Value))
		}
	} else {
		r.Differs = space.CompareValue(nil, t.variable, t.value, sv.Value, nil).Status != space.Match
		// A size the file writes with a suffix: the running value in
		// the same form.
		if _, err := strconv.ParseInt(t.value, 10, 64); err != nil {
			if _, err := space.ParseBytes(t.value); err == nil {
				if n, err := strconv.ParseInt(sv.Value, 10, 64); err == nil && n >= 0 {
					r.Running = space.FormatBytes(n)
				}
			}
		}
	}
	switch {
	case sv.ReadOnlyKnown:
		r.Change, r.Source = result.ChangeDynamic, "server"
		if sv.ReadOnly {
			r.Change = result.ChangeRestart
		}
	case t.knob != nil:
		r.Change, r.Source = result.ChangeDynamic, "catalogue"
		if !t.knob.Dynamic {
			r.Change = result.ChangeRestart
		}
	}
	return r
}
