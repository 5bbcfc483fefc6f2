package exportfile

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// Formats are the values of `autotune export --format`.
var Formats = []string{"cnf", "sql", "persist", "json"}

// Write renders the best trial in format (one of Formats).
// Every format writes the same knobs: those whose value differs from the
// baseline's (see exportSelection), each with a note on what it is.
func Write(w io.Writer, format string, sp *space.Space, st storage.StudyRecord, best, base search.Trial, trials []search.Trial, now time.Time) error {
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("export format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	best, base = forServer(st, best), forServer(st, base)
	return writeExport(w, format, sp, st, best, base, trials, now, selectExport(sp, st, best, base))
}

// forServer returns t with its configuration as the study's server reads
// it (space.ForServer).
func forServer(st storage.StudyRecord, t search.Trial) search.Trial {
	v, err := space.ParseVersion(cmp.Or(t.ServerVersion, st.ServerVersion), "")
	if err != nil {
		return t
	}
	t.Params = space.ForServer(t.Params, v)
	return t
}

// WriteMinimal renders the minimal configuration of m, the done and
// accepted minimisation of best (search.Minimized), in format: the same
// forms as Write, over the knobs of m.Config that differ from the
// baseline, each change the minimisation kept followed by its measured
// contribution as a comment (KeptChanges: "+48 % tps (±6 %)"). It returns
// an error when m is not a done, accepted minimisation of best.
func WriteMinimal(w io.Writer, format string, sp *space.Space, st storage.StudyRecord, m search.Minimized, best, base search.Trial, trials []search.Trial, now time.Time) error {
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("export format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	if m.Best != best.Number || !m.Done || !m.Accepted {
		return fmt.Errorf("the minimisation of trial %d (done %v, accepted %v) is not a result for trial %d", m.Best, m.Done, m.Accepted, best.Number)
	}
	minimal := best
	minimal.Params = m.Config.Clone()
	minimal, base = forServer(st, minimal), forServer(st, base)
	sel := selectExport(sp, st, minimal, base)
	sel.Minimal = &m
	sel.Contrib = map[string]string{}
	for _, k := range KeptChanges(sp, m) {
		sel.Contrib[k.Name] = k.Comment
	}
	return writeExport(w, format, sp, st, minimal, base, trials, now, sel)
}

// MinimalResult returns the minimisation an export writes by default: m
// when it was stored (found), is done and accepted, and minimised best;
// false otherwise (then the export writes best in full).
func MinimalResult(m search.Minimized, found bool, best search.Trial) (search.Minimized, bool) {
	return m, found && m.Done && m.Accepted && m.Best == best.Number && best.Number >= 0
}

// writeExport renders the knobs sel chose of best in format.
func writeExport(w io.Writer, format string, sp *space.Space, st storage.StudyRecord, best, base search.Trial, trials []search.Trial, now time.Time, sel exportSelection) error {
	for _, n := range best.Params.Names() {
		if _, ok := sp.Knob(n); !ok {
			return fmt.Errorf("trial %d: unknown knob %q", best.Number, n)
		}
	}
	bs, _ := st.Manifest()
	d, err := durabilityOf(bs, best.Params, best, base, trials)
	if err != nil {
		return err
	}
	sel.Durability = d
	sel.Version, _ = space.ParseVersion(cmp.Or(best.ServerVersion, st.ServerVersion), "") // unknown: the catalogue's names
	switch format {
	case "cnf":
		return writeCnf(w, sp, st, best, base, trials, now, sel)
	case "sql":
		return writeSQL(w, st, best, base, trials, now, false, sel)
	case "persist":
		return writeSQL(w, st, best, base, trials, now, true, sel)
	}
	return writeExportJSON(w, st, best, base, trials, now, sel)
}

// exportSelection is what an export writes of a trial: the knobs it sets
// to a value other than the baseline's, where the baseline is what the
// user runs today, the server defaults or their --baseline-cnf (not the
// knobs autotune pinned for every trial, which the user's server does not
// have). A knob the baseline leaves out is at its server default, known
// from the catalogue only for a sandbox of the server release the
// catalogue describes (space.CatalogueDefaultsHold); otherwise such knobs
// are written whatever their value.
type exportSelection struct {
	// Knobs are the knobs written, in catalogue order, every layer (the
	// option formats write the server layer).
	Knobs []exportedKnob
	// LeftOut names the knobs the trial set to the baseline's value.
	LeftOut []string
	// Against says what the knobs are compared with: "the baseline (server
	// defaults)" or "your my.cnf FILE (the baseline)".
	Against string
	// Unknown, when set, says why the baseline's value of knobs it leaves
	// out is not known (every such knob is then written).
	Unknown string
	// Show is the command that lists every knob of the trial.
	Show string
	// Minimal, when set, is the minimisation whose minimal configuration
	// is written; Contrib maps each kept change to its contribution
	// comment (KeptChange.Comment).
	Minimal *search.Minimized
	Contrib map[string]string
	// Durability is the crash safety of the written configuration, from
	// its values (durabilityOf).
	Durability exportDurability
	// Version is the tuned server's release (zero when unknown): options
	// and SET statements are written in its spelling (space.OptionName,
	// space.VariableName).
	Version space.Version
}

// option is the option file's name of knob name on the tuned server.
func (s exportSelection) option(name string) string { return space.OptionName(name, s.Version) }

// variable is the system variable of knob name on the tuned server (for
// SET GLOBAL).
func (s exportSelection) variable(name string) string {
	if s.Version.IsZero() {
		return name
	}
	return space.VariableName(name, s.Version)
}

// what names the written configuration in a header: "best" or "minimal".
func (s exportSelection) what() string {
	if s.Minimal != nil {
		return "minimal"
	}
	return "best"
}

// minimalHeader returns the header lines that say what the minimisation
// kept and how the minimal configuration compares with the full best
// (none for a full export).
func (s exportSelection) minimalHeader(best search.Trial) []string {
	m := s.Minimal
	if m == nil {
		return nil
	}
	kept, untried := 0, 0
	for _, st := range m.KeptSteps() {
		if st.Pairs == 0 {
			untried += len(st.Knobs)
		} else {
			kept += len(st.Knobs)
		}
	}
	txt := fmt.Sprintf("minimal: keeps the %d of trial %d's %d changes that pay", kept, best.Number, m.Changes)
	if kept == 0 {
		txt = fmt.Sprintf("minimal: none of trial %d's %d changes was shown to pay", best.Number, m.Changes)
	}
	if untried > 0 {
		txt += fmt.Sprintf(", and %d not measured", untried)
	}
	out := []string{txt + "; the others are at the baseline's value (--full writes them all)",
		fmt.Sprintf("minimisation: %d runs; %s", m.Runs, search.MinimizeRule)}
	if m.Check != nil {
		out = append(out, strings.TrimPrefix(search.CheckText(*m, m.Goal), "minimize: "))
	}
	out = append(out, "each kept change: its measured contribution (what reverting it cost, ± half the 95 % interval)")
	return out
}

// from prefixes the trial line of a minimal export: its score is the
// full best's.
func (s exportSelection) from() string {
	if s.Minimal != nil {
		return "minimised from "
	}
	return ""
}

// comment returns the contribution comment of knob n ("" when none).
func (s exportSelection) comment(n string) string { return s.Contrib[n] }

// exportedKnob is one knob an export writes.
type exportedKnob struct {
	space.Knob
	// Value is the trial's canonical value; InFile the --baseline-cnf's
	// ("" when the file does not set the knob).
	Value, InFile string
	// Pinned reports that the baseline trial ran with the same value: a
	// knob autotune held for every trial (durability, space file).
	Pinned bool
}

// selectExport chooses the knobs an export of best writes (see
// exportSelection).
func selectExport(sp *space.Space, st storage.StudyRecord, best, base search.Trial) exportSelection {
	bs, _ := st.Manifest()
	sel := exportSelection{Against: "the baseline (server defaults)", Show: fmt.Sprintf("autotune show --study %s %d", st.Name, best.Number)}
	ref := space.Config{}
	if bs.Space != nil && bs.Space.Baseline != nil {
		ref = bs.Space.Baseline.Config
		sel.Against = fmt.Sprintf("your my.cnf %s (the baseline)", bs.Space.Baseline.File)
	}
	version := cmp.Or(best.ServerVersion, st.ServerVersion)
	v, err := space.ParseVersion(version, "")
	switch {
	case bs.Target != "":
		sel.Unknown = "the baseline was the existing server's own settings, which autotune did not record"
	case err != nil || !space.CatalogueDefaultsHold(v):
		sel.Unknown = fmt.Sprintf("the knob catalogue's defaults are MariaDB 10.11's, not necessarily those of %s", cmp.Or(version, "this server"))
	}
	for _, k := range sp.All() {
		val, ok := best.Params[k.Name]
		if !ok {
			continue
		}
		was, known := ref[k.Name]
		if !known && sel.Unknown == "" {
			was, known = k.Default, true
		}
		if known && val == was {
			sel.LeftOut = append(sel.LeftOut, k.Name)
			continue
		}
		pinned := base.Number >= 0 && base.Params[k.Name] == val
		sel.Knobs = append(sel.Knobs, exportedKnob{Knob: k, Value: val, InFile: ref[k.Name], Pinned: pinned})
	}
	return sel
}

// options returns the written knobs that are server options.
func (s exportSelection) options() []exportedKnob {
	var out []exportedKnob
	for _, k := range s.Knobs {
		if k.Layer == space.LayerServer {
			out = append(out, k)
		}
	}
	return out
}

// summary says, for the header, what the knobs below are and what was
// left out.
func (s exportSelection) summary() string {
	n := len(s.options())
	if s.Unknown != "" {
		if n == 1 {
			return "the 1 option the trial set, even if at the baseline's value: " + s.Unknown
		}
		return fmt.Sprintf("all %d options the trial set, also those at the baseline's value: %s", n, s.Unknown)
	}
	txt := fmt.Sprintf("the %d options that differ from %s", n, s.Against)
	if n == 1 {
		txt = "the 1 option that differs from " + s.Against
	}
	switch len(s.LeftOut) {
	case 0:
	case 1:
		txt += fmt.Sprintf("; 1 the trial set to the baseline's value is left out (%s lists every knob)", s.Show)
	default:
		txt += fmt.Sprintf("; %d the trial set to the baseline's value are left out (%s lists every knob)", len(s.LeftOut), s.Show)
	}
	return txt
}

// note says what knob k is, for a reviewer: its unit, its server default,
// the baseline my.cnf's value, whether every trial had it, and the
// catalogue's description, e.g. "bytes, default 128M: memory for cached
// data and index pages".
func (k exportedKnob) note() string {
	var parts []string
	if k.Unit != "" {
		parts = append(parts, k.Unit)
	}
	if k.Default != "" {
		parts = append(parts, "default "+k.Render(k.Default))
	}
	if k.InFile != "" {
		parts = append(parts, "your my.cnf "+k.Render(k.InFile))
	}
	if k.Pinned {
		parts = append(parts, "held for every trial, the baseline too")
	}
	txt := strings.Join(parts, ", ")
	if k.Help != "" {
		txt += ": " + k.Help
	}
	return txt
}

// writeSQL renders the selected knobs of the best trial as SQL, each after
// a comment saying what it is: one SET GLOBAL (or, with persist, SET
// PERSIST: MySQL 8.0+, which also writes mysqld-auto.cnf) per dynamic
// knob, in catalogue order; static knobs cannot change at runtime and are
// listed as comments that need the option file and a restart. Whether a
// knob is dynamic is taken from the knob catalogue (MariaDB 10.11).
func writeSQL(w io.Writer, st storage.StudyRecord, best, base search.Trial, trials []search.Trial, now time.Time, persist bool, sel exportSelection) error {
	verb := "SET GLOBAL"
	if persist {
		verb = "SET PERSIST"
	}
	bs, _ := st.Manifest()
	fmt.Fprintf(w, "-- autotune: %s configuration of study %q as %s statements\n", sel.what(), st.Name, verb)
	unit, value := ThroughputOf(best)
	fmt.Fprintf(w, "-- %strial %d (%s), score %.1f, %.1f %s, p95 %.1f ms\n", sel.from(), best.Number, best.Kind, best.Score, value, unit, best.P95MS)
	for _, l := range sel.minimalHeader(best) {
		fmt.Fprintf(w, "-- %s\n", l)
	}
	if base.Number >= 0 {
		text, _ := GainText(st.Goal(), trials, best)
		unit, value := ThroughputOf(base)
		fmt.Fprintf(w, "-- baseline (server defaults): trial %d, %.1f %s\n-- %s%s\n", base.Number, value, unit, gainPrefix, text)
		text, _ = RulesText(st.Goal(), trials, best)
		fmt.Fprintf(w, "-- gain over the expert warm start: %s\n", text)
		for _, l := range SkewLines(st.Goal(), trials, best) {
			fmt.Fprintf(w, "-- %s\n", l)
		}
	}
	for _, l := range conditionLines(st, bs, best, sel) {
		fmt.Fprintf(w, "-- %s\n", l)
	}
	fmt.Fprintf(w, "-- exported: %s\n", now.UTC().Format(time.RFC3339))
	if persist {
		fmt.Fprintln(w, "-- SET PERSIST needs MySQL 8.0 or later (MariaDB has none: use --format sql and the option file).")
		fmt.Fprintln(w, "-- Dynamic or not is as on MariaDB 10.11; MySQL may refuse some at runtime.")
	} else {
		fmt.Fprintln(w, "-- SET GLOBAL changes the running server only: put the same values in the option file")
		fmt.Fprintln(w, "-- (autotune export --format cnf) to keep them after a restart.")
	}
	fmt.Fprintf(w, "-- below: %s\n", sel.summary())
	var static []exportedKnob
	opts := sel.options()
	for _, k := range opts {
		if !k.Dynamic {
			static = append(static, k)
			continue
		}
		fmt.Fprintf(w, "-- %s\n%s %s = %s;%s\n", k.note(), verb, sel.variable(k.Name), SQLValue(k.Knob, k.Value), inline("  -- ", sel.comment(k.Name)))
	}
	if len(opts) == 0 {
		fmt.Fprintln(w, "-- nothing to change: the trial's options are the baseline's")
	}
	if len(static) > 0 {
		fmt.Fprintln(w, "-- static knobs: not settable at runtime, they need the option file and a server restart:")
		for _, k := range static {
			fmt.Fprintf(w, "--   %s = %s  -- %s%s\n", sel.option(k.Name), k.Render(k.Value), k.note(), inline("; ", sel.comment(k.Name)))
		}
		if persist {
			fmt.Fprintln(w, "-- (on MySQL 8.0+, SET PERSIST_ONLY name = value; records them for the next restart)")
		}
	}
	return nil
}

// SQLValue renders canonical, a canonical value of knob k, as an SQL
// literal: numbers, ON/OFF and numeric choices bare, other choices
// single-quoted with any quote in them doubled.
func SQLValue(k space.Knob, canonical string) string {
	switch k.Kind {
	case space.Int, space.Bytes, space.Float, space.Bool:
		return canonical
	}
	if _, err := strconv.ParseFloat(canonical, 64); err == nil {
		return canonical
	}
	return "'" + strings.ReplaceAll(canonical, "'", "''") + "'"
}

// writeExportJSON renders the best trial as an indented exportDoc.
func writeExportJSON(w io.Writer, st storage.StudyRecord, best, base search.Trial, trials []search.Trial, now time.Time, sel exportSelection) error {
	d := exportDoc{Study: st.Name, Params: space.Config{}, Knobs: []exportKnob{}, LeftOut: []string{}, Written: sel.summary(),
		Score: best.Score, MeanTPS: best.MeanTPS, StdTPS: best.StdTPS, P95MS: best.P95MS,
		ServerVersion: cmp.Or(best.ServerVersion, st.ServerVersion), Exported: now.UTC()}
	d.Trial.Number, d.Trial.Kind, d.Trial.State = best.Number, string(best.Kind), string(best.State)
	d.Trial.Started, d.Trial.Ended = best.Started.UTC(), best.Ended.UTC()
	for _, k := range sel.Knobs {
		d.Params[k.Name] = k.Value
		ek := exportKnob{Name: k.Name, Value: k.Render(k.Value), Default: k.Render(k.Default), Unit: k.Unit, About: k.Help,
			Changed: k.Value != k.Default, Dynamic: k.Dynamic, Pinned: k.Pinned, Contribution: sel.comment(k.Name)}
		if k.InFile != "" {
			ek.InFile = k.Render(k.InFile)
		}
		d.Knobs = append(d.Knobs, ek)
	}
	d.LeftOut = append(d.LeftOut, sel.LeftOut...)
	d.Durability = sel.Durability.doc()
	if base.Number >= 0 {
		d.Baseline = &exportBaseline{Number: base.Number, Score: base.Score, MeanTPS: base.MeanTPS}
		if g, ok := search.ABGain(st.Goal(), trials, best.Number); ok {
			d.Gain = newExportGain(g)
		}
		if r := search.WarmStartGain(st.Goal(), trials, best); r.Status == search.RulesMeasured || (r.Status == search.RulesAreBaseline && r.Rounds >= 2) {
			d.RulesGain = newExportGain(r.Gain)
		}
		d.Rules, _ = RulesText(st.Goal(), trials, best)
		for _, k := range skewChecks(st.Goal(), trials, best) {
			es := exportSkew{Variant: k.Label, Pairs: k.Pairs, Fragile: k.Fragile}
			if k.Measured {
				es.Gain = newExportGain(k.Gain)
			}
			d.SkewChecks = append(d.SkewChecks, es)
			d.WorkloadFragile = d.WorkloadFragile || k.Fragile
		}
	}
	if m := sel.Minimal; m != nil {
		d.Minimal = &exportMinimal{Trial: m.Best, Changes: m.Changes, Runs: m.Runs, Rule: search.MinimizeRule, Steps: []exportStep{}}
		for _, st := range m.Steps {
			es := exportStep{Knobs: st.Knobs, Status: string(st.Status), Pairs: st.Pairs}
			if st.Pairs > 0 {
				es.Pct, es.LoPct, es.HiPct = ptr(round1(st.Pct)), ptr(round1(st.LoPct)), ptr(round1(st.HiPct))
			}
			d.Minimal.Steps = append(d.Minimal.Steps, es)
		}
		if c := m.Check; c != nil {
			d.Minimal.Check = &exportStep{Status: "check", Pairs: c.Pairs, Pct: ptr(round1(c.Pct)), LoPct: ptr(round1(c.LoPct)), HiPct: ptr(round1(c.HiPct))}
		}
	}
	if fp, err := storage.StudyFingerprint(st); err == nil {
		d.Fingerprint = &exportFingerprint{Key: fp.Key(), Fields: map[string]string{}}
		for _, kv := range fp {
			if kv[1] != "" {
				d.Fingerprint.Fields[kv[0]] = kv[1]
			}
		}
	}
	if json.Valid([]byte(st.Settings)) {
		d.Settings = json.RawMessage(st.Settings)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// CompleteTrial returns trial number n of trials, or an error naming --trial
// when there is none or it is not complete (only measured configs export).
func CompleteTrial(trials []search.Trial, n int) (search.Trial, error) {
	for _, t := range trials {
		if t.Number != n {
			continue
		}
		if t.State != search.Complete {
			return search.Trial{}, fmt.Errorf("--trial %d: the trial is %s, only a complete trial can be exported", n, t.State)
		}
		return t, nil
	}
	return search.Trial{}, fmt.Errorf("--trial %d: no such trial among the study's %d under its current conditions (a resume under other conditions with --allow-changes starts them anew)", n, len(trials))
}

// writeCnf renders the selected knobs of the best trial as a my.cnf
// [mysqld] group, each option after a comment saying what it is.
func writeCnf(w io.Writer, sp *space.Space, st storage.StudyRecord, best, base search.Trial, trials []search.Trial, now time.Time, sel exportSelection) error {
	bs, _ := st.Manifest()
	fmt.Fprintf(w, "# autotune: %s configuration of study %q\n", sel.what(), st.Name)
	unit, value := ThroughputOf(best)
	fmt.Fprintf(w, "# %strial %d (%s), score %.1f, %.1f %s, p95 %.1f ms\n", sel.from(), best.Number, best.Kind, best.Score, value, unit, best.P95MS)
	for _, l := range sel.minimalHeader(best) {
		fmt.Fprintf(w, "# %s\n", l)
	}
	if base.Number >= 0 {
		what := "server defaults"
		if bs.Space != nil && bs.Space.Baseline != nil {
			what = "your my.cnf"
		}
		unit, value := ThroughputOf(base)
		fmt.Fprintf(w, "# baseline (%s): trial %d, %.1f %s\n", what, base.Number, value, unit)
	}
	writeGainComment(w, st.Goal(), trials, best)
	for _, l := range conditionLines(st, bs, best, sel) {
		fmt.Fprintf(w, "# %s\n", l)
	}
	for _, l := range environmentNotes(sp, best.Params) {
		fmt.Fprintf(w, "# %s\n", l)
	}
	fmt.Fprintf(w, "# exported: %s\n", now.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "# below: %s\n", sel.summary())
	if bs.Space != nil && bs.Space.Baseline != nil {
		fmt.Fprintf(w, "# read them after %s: the last setting of an option wins\n", bs.Space.Baseline.File)
	}
	opts := sel.options()
	if len(opts) == 0 {
		fmt.Fprintln(w, "# nothing to change: the trial's options are the baseline's")
	}
	fmt.Fprintln(w, "[mysqld]")
	for _, k := range opts {
		fmt.Fprintf(w, "# %s\n%s = %s%s\n", k.note(), sel.option(k.Name), space.FormatOptionValue(k.Render(k.Value)), inline("  # ", sel.comment(k.Name)))
	}
	return nil
}

// environmentNotes describes the trial's non-option knobs (runtime
// environment, builds) for the exported file's header: they are not
// my.cnf options, so they are comments saying how to reproduce them, one
// "not an option: name=value (how)" line each, which Parse reads back
// (Header.Runtime).
func environmentNotes(sp *space.Space, cfg space.Config) []string {
	var out []string
	for _, k := range sp.All() {
		v, ok := cfg[k.Name]
		if !ok || k.Layer == space.LayerServer || v == k.Default {
			continue
		}
		how := ""
		switch k.Name {
		case "allocator":
			how = " (start the server with LD_PRELOAD set to the " + v + " library)"
		case "cpu_placement":
			how = " (server and benchmark were pinned to separate cores with taskset)"
		case "numa_policy":
			how = " (start the server under numactl --interleave=all)"
		case "benchmark_connection":
			how = " (the benchmark connected this way; a client setting, not the server's)"
		case "server_build", "benchmark_build":
			how = " (the binary named in the study's --server-build/--benchmark-build list)"
		}
		out = append(out, notAnOption+k.Name+"="+v+how)
	}
	return out
}

// exportDoc is the JSON export: the trial, what it set and how it scored.
// newExportGain is g as the JSON export writes it, percentages to 0.1.
func newExportGain(g search.Gain) *exportGain {
	return &exportGain{Objective: string(g.Goal), Pct: round1(g.Pct), LoPct: round1(g.LoPct), HiPct: round1(g.HiPct),
		Pairs: g.Pairs, P: g.P, Significant: g.Significant}
}

type exportDoc struct {
	Study string `json:"study"`
	Trial struct {
		Number  int       `json:"number"`
		Kind    string    `json:"kind"`
		State   string    `json:"state"`
		Started time.Time `json:"started"`
		Ended   time.Time `json:"ended"`
	} `json:"trial"`
	// Params maps the knobs the export writes (those the trial sets to a
	// value other than the baseline's) to canonical values (bytes as
	// integers).
	Params space.Config `json:"params"`
	// Knobs details the same knobs, in catalogue order.
	Knobs []exportKnob `json:"knobs"`
	// LeftOut names the knobs the trial set to the baseline's value.
	LeftOut []string `json:"left_out"`
	// Written says what Params holds and what was left out, as the
	// header of the other formats does.
	Written string `json:"written"`
	// Score, MeanTPS, StdTPS (tps) and P95MS (ms) are the trial's outcome.
	Score   float64 `json:"score"`
	MeanTPS float64 `json:"mean_tps"`
	StdTPS  float64 `json:"sd_tps"`
	P95MS   float64 `json:"p95_ms"`
	// Baseline is the complete baseline trial, absent when there is none.
	Baseline *exportBaseline `json:"baseline,omitempty"`
	// Gain is the paired A/B gain over the baseline on the objective
	// (search.ABGain); absent when the study has fewer than 2 complete
	// A/B pairs.
	Gain *exportGain `json:"gain,omitempty"`
	// RulesGain is the paired gain over the expert warm start from the
	// final A/B phase's rounds (search.WarmStartGain); absent without 2
	// complete rounds of it. Rules says it in words, or why there is none
	// (RulesText: no warm start, the best is the warm start, ...).
	RulesGain *exportGain `json:"gain_over_warm_start,omitempty"`
	// SkewChecks are the best's gains over the baseline under the skew
	// checks' workload variants (search.SkewOf; absent without one);
	// WorkloadFragile is set when one of them found the configuration
	// workload-fragile.
	SkewChecks      []exportSkew `json:"skew_checks,omitempty"`
	WorkloadFragile bool         `json:"workload_fragile,omitempty"`
	// Durability is the crash safety of the written configuration, from
	// its own values: its tier, each knob that gives crash safety up and
	// what a crash can lose with it.
	Durability    *exportDurabilityDoc `json:"durability"`
	Rules         string               `json:"warm_start,omitempty"`
	ServerVersion string               `json:"server_version"`
	// Fingerprint is the conditions the gain was measured under
	// (storage.Fingerprint): its key and its fields that are set, by
	// name.
	Fingerprint *exportFingerprint `json:"fingerprint,omitempty"`
	// Minimal, present when the export is the minimal configuration,
	// holds the minimisation: every step with the knobs it reverted, its
	// verdict and its measured contribution (percent, 95 % interval).
	Minimal *exportMinimal `json:"minimal,omitempty"`
	// Settings is the study's benchmark settings as stored.
	Settings json.RawMessage `json:"settings,omitempty"`
	Exported time.Time       `json:"exported"`
}

// exportSkew is one skew check of the JSON export: the variant
// ("--rand-type=uniform"), the gain under it (absent with fewer than 2
// complete pairs), its pairs, and whether it found the configuration
// workload-fragile.
type exportSkew struct {
	Variant string      `json:"variant"`
	Gain    *exportGain `json:"gain,omitempty"`
	Pairs   int         `json:"pairs"`
	Fragile bool        `json:"workload_fragile"`
}

// exportFingerprint is the JSON export's fingerprint.
type exportFingerprint struct {
	Key    string            `json:"key"`
	Fields map[string]string `json:"fields"`
}

// exportKnob is one knob of the JSON export.
type exportKnob struct {
	Name    string `json:"name"`
	Value   string `json:"value"`   // as written to my.cnf (sizes with K/M/G)
	Default string `json:"default"` // server default (the catalogue's, MariaDB 10.11), same form
	// InFile is the --baseline-cnf's value, same form (absent when the
	// file does not set the knob, or without one).
	InFile  string `json:"baseline_cnf,omitempty"`
	Unit    string `json:"unit,omitempty"` // unit of numeric values
	About   string `json:"about"`          // what the knob is (the catalogue's one-line description)
	Changed bool   `json:"changed"`        // differs from the default
	Dynamic bool   `json:"dynamic"`        // settable with SET GLOBAL
	// Pinned reports that the baseline ran with the same value (a knob
	// held for every trial).
	Pinned bool `json:"pinned,omitempty"`
	// Contribution is, in a minimal export, the kept change's measured
	// contribution (KeptChange.Comment).
	Contribution string `json:"contribution,omitempty"`
}

// exportMinimal is the JSON form of a minimisation (search.Minimized).
type exportMinimal struct {
	Trial   int          `json:"trial"`
	Changes int          `json:"changes"`
	Runs    int          `json:"runs"`
	Rule    string       `json:"rule"`
	Steps   []exportStep `json:"steps"`
	Check   *exportStep  `json:"check,omitempty"`
}

// exportStep is one step (or the final check) of a minimisation:
// percentages rounded to 0.1, absent when not measured.
type exportStep struct {
	Knobs  []string `json:"knobs,omitempty"`
	Status string   `json:"status"`
	Pct    *float64 `json:"pct,omitempty"`
	LoPct  *float64 `json:"ci95_lo_pct,omitempty"`
	HiPct  *float64 `json:"ci95_hi_pct,omitempty"`
	Pairs  int      `json:"pairs"`
}

func ptr(f float64) *float64 { return &f }

// inline returns sep+text, or "" for an empty text.
func inline(sep, text string) string {
	if text == "" {
		return ""
	}
	return sep + text
}

type exportBaseline struct {
	Number  int     `json:"number"`
	Score   float64 `json:"score"`
	MeanTPS float64 `json:"mean_tps"`
}

// exportGain is the JSON form of search.Gain: percentages rounded to 0.1.
type exportGain struct {
	Objective   string  `json:"objective"`
	Pct         float64 `json:"pct"`
	LoPct       float64 `json:"ci95_lo_pct"`
	HiPct       float64 `json:"ci95_hi_pct"`
	Pairs       int     `json:"pairs"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
}

// hostProfileText describes a study's host profile for an export header:
// "the server ran under a memory limit of 512M, page cache counted".
func hostProfileText(hp storage.HostProfile) string {
	return fmt.Sprintf("the server ran under a memory limit of %s, page cache counted: the gains hold on a host of that size", space.FormatBytes(hp.MemoryLimitBytes))
}

// tunedWithLine is the header line naming the benchmark program, the
// workload and its access distribution as passed to it: "tuned with
// sysbench 1.0.20 oltp_read_write --rand-type=uniform"; "" when the
// study's definition has no distribution (not sysbench, or recorded
// before definitions were).
func tunedWithLine(bs storage.Manifest) string {
	d := bs.Definition
	if d == nil || d.Distribution() == "" {
		return ""
	}
	return fmt.Sprintf("tuned with %s %s %s", cmp.Or(d.Version, d.Driver), d.Options["workload"], d.Distribution())
}

// conditionLines are the header lines that say what the export was
// measured under, in the order every commented format writes them (each
// behind its comment marker): the server version (the trial's, else the
// study's), the workload, the benchmark and its access distribution
// (tunedWithLine), the host profile, the fingerprint line and the
// durability policy.
func conditionLines(st storage.StudyRecord, bs storage.Manifest, best search.Trial, sel exportSelection) []string {
	version := best.ServerVersion
	if version == "" {
		version = st.ServerVersion
	}
	lines := []string{"server: " + version}
	if bs.Workload != "" {
		lines = append(lines, fmt.Sprintf("workload: %s, %gs warm-up + %gs measured", storage.WorkloadText(bs), bs.WarmupS, bs.DurationS))
	}
	if l := tunedWithLine(bs); l != "" {
		lines = append(lines, l)
	}
	if hp := bs.HostProfile; hp != nil {
		lines = append(lines, "host profile: "+hostProfileText(*hp))
	}
	if l := fingerprintLine(st); l != "" {
		lines = append(lines, l)
	}
	return append(lines, sel.Durability.lines()...)
}
