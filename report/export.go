package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// ExportFormats are the values of `autotune export --format`.
var ExportFormats = []string{"cnf", "sql", "persist", "json"}

// WriteExport renders the best trial in format (one of ExportFormats).
func WriteExport(w io.Writer, format string, sp *space.Space, st storage.Study, best, base search.Trial, trials []search.Trial, now time.Time) error {
	switch format {
	case "cnf":
		return writeCnf(w, sp, st, best, base, trials, now)
	case "sql":
		return writeSQL(w, sp, st, best, base, trials, now, false)
	case "persist":
		return writeSQL(w, sp, st, best, base, trials, now, true)
	case "json":
		return writeExportJSON(w, sp, st, best, base, trials, now)
	}
	return fmt.Errorf("export format %q: want one of %s", format, strings.Join(ExportFormats, ", "))
}

// writeSQL renders the best trial as SQL: one SET GLOBAL (or, with
// persist, SET PERSIST: MySQL 8.0+, which also writes mysqld-auto.cnf) per
// dynamic knob the trial set, in space order; static knobs cannot change
// at runtime and are listed as comments that need the option file and a
// restart. Whether a knob is dynamic is taken from the knob catalogue
// (MariaDB 10.11).
func writeSQL(w io.Writer, sp *space.Space, st storage.Study, best, base search.Trial, trials []search.Trial, now time.Time, persist bool) error {
	for _, n := range best.Params.Names() {
		if _, ok := sp.Knob(n); !ok {
			return fmt.Errorf("trial %d: unknown knob %q", best.Number, n)
		}
	}
	verb := "SET GLOBAL"
	if persist {
		verb = "SET PERSIST"
	}
	bs, _ := st.Manifest()
	fmt.Fprintf(w, "-- autotune: best configuration of study %q as %s statements\n", st.Name, verb)
	fmt.Fprintf(w, "-- trial %d (%s), score %.1f, %.1f tps, p95 %.1f ms\n", best.Number, best.Kind, best.Score, best.MeanTPS, best.P95MS)
	if base.Number >= 0 {
		text, _ := GainText(GoalOf(st), trials, best)
		fmt.Fprintf(w, "-- baseline (server defaults): trial %d, %.1f tps\n-- gain over the baseline: %s\n", base.Number, base.MeanTPS, text)
	}
	version := best.ServerVersion
	if version == "" {
		version = st.ServerVersion
	}
	fmt.Fprintf(w, "-- server: %s\n", version)
	if bs.Workload != "" {
		fmt.Fprintf(w, "-- workload: sysbench %s, %d threads, %d tables x %d rows, %gs warm-up + %gs measured\n",
			bs.Workload, bs.Threads, bs.Tables, bs.TableSize, bs.WarmupS, bs.DurationS)
	}
	fmt.Fprintf(w, "-- exported: %s\n", now.UTC().Format(time.RFC3339))
	if persist {
		fmt.Fprintln(w, "-- SET PERSIST needs MySQL 8.0 or later (MariaDB has none: use --format sql and the option file).")
		fmt.Fprintln(w, "-- Dynamic or not is as on MariaDB 10.11; MySQL may refuse some at runtime.")
	} else {
		fmt.Fprintln(w, "-- SET GLOBAL changes the running server only: put the same values in the option file")
		fmt.Fprintln(w, "-- (autotune export --format cnf) to keep them after a restart.")
	}
	var static []space.Knob
	n := 0
	for _, k := range sp.All() {
		v, ok := best.Params[k.Name]
		if !ok {
			continue
		}
		if !k.Dynamic {
			static = append(static, k)
			continue
		}
		fmt.Fprintf(w, "%s %s = %s;\n", verb, k.Name, sqlValue(k, v))
		n++
	}
	if n == 0 && len(static) == 0 {
		fmt.Fprintln(w, "-- the server defaults measured best: nothing to change")
	}
	if len(static) > 0 {
		fmt.Fprintln(w, "-- static knobs: not settable at runtime, they need the option file and a server restart:")
		for _, k := range static {
			fmt.Fprintf(w, "--   %s = %s\n", k.Name, k.Render(best.Params[k.Name]))
		}
		if persist {
			fmt.Fprintln(w, "-- (on MySQL 8.0+, SET PERSIST_ONLY name = value; records them for the next restart)")
		}
	}
	return nil
}

// sqlValue renders a canonical knob value as an SQL literal: numbers,
// ON/OFF and numeric choices bare, other choices single-quoted.
func sqlValue(k space.Knob, canonical string) string {
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
func writeExportJSON(w io.Writer, sp *space.Space, st storage.Study, best, base search.Trial, trials []search.Trial, now time.Time) error {
	d := exportDoc{Study: st.Name, Params: best.Params, Knobs: []exportKnob{}, Score: best.Score, MeanTPS: best.MeanTPS,
		StdTPS: best.StdTPS, P95MS: best.P95MS, ServerVersion: cmp.Or(best.ServerVersion, st.ServerVersion),
		Exported: now.UTC()}
	if d.Params == nil {
		d.Params = space.Config{}
	}
	d.Trial.Number, d.Trial.Kind, d.Trial.State = best.Number, string(best.Kind), string(best.State)
	d.Trial.Started, d.Trial.Ended = best.Started.UTC(), best.Ended.UTC()
	for _, n := range best.Params.Names() {
		if _, ok := sp.Knob(n); !ok {
			return fmt.Errorf("trial %d: unknown knob %q", best.Number, n)
		}
	}
	for _, k := range sp.All() {
		if v, ok := best.Params[k.Name]; ok {
			d.Knobs = append(d.Knobs, exportKnob{Name: k.Name, Value: k.Render(v), Default: k.Render(k.Default),
				Changed: v != k.Default, Dynamic: k.Dynamic})
		}
	}
	if base.Number >= 0 {
		d.Baseline = &exportBaseline{Number: base.Number, Score: base.Score, MeanTPS: base.MeanTPS}
		if g, ok := search.ABGain(GoalOf(st), trials, best.Number); ok {
			d.Gain = &exportGain{Objective: string(g.Goal), Pct: round1(g.Pct), LoPct: round1(g.LoPct), HiPct: round1(g.HiPct),
				Pairs: g.Pairs, P: g.P, Significant: g.Significant}
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
	return search.Trial{}, fmt.Errorf("--trial %d: no such trial (the study has %d)", n, len(trials))
}

// writeCnf renders the best trial as a my.cnf [mysqld] group.
func writeCnf(w io.Writer, sp *space.Space, st storage.Study, best, base search.Trial, trials []search.Trial, now time.Time) error {
	bs, _ := st.Manifest()
	fmt.Fprintf(w, "# autotune: best configuration of study %q\n", st.Name)
	fmt.Fprintf(w, "# trial %d (%s), score %.1f, %.1f tps, p95 %.1f ms\n", best.Number, best.Kind, best.Score, best.MeanTPS, best.P95MS)
	if base.Number >= 0 {
		what := "server defaults"
		if bs.Space != nil && bs.Space.Baseline != nil {
			what = "your my.cnf"
		}
		fmt.Fprintf(w, "# baseline (%s): trial %d, %.1f tps\n", what, base.Number, base.MeanTPS)
	}
	WriteGainComment(w, GoalOf(st), trials, best)
	version := best.ServerVersion
	if version == "" {
		version = st.ServerVersion
	}
	fmt.Fprintf(w, "# server: %s\n", version)
	if bs.Workload != "" {
		fmt.Fprintf(w, "# workload: sysbench %s, %d threads, %d tables x %d rows, %gs warm-up + %gs measured\n",
			bs.Workload, bs.Threads, bs.Tables, bs.TableSize, bs.WarmupS, bs.DurationS)
	}
	if bs.Space != nil {
		fmt.Fprintf(w, "# durability: %s\n", durabilityNote(bs.Space.Durability))
		if bl := bs.Space.Baseline; bl != nil {
			diff := sp.Diff(bl.Config, best.Params)
			fmt.Fprintf(w, "# baseline: %s (trial 0); changes against it: %d\n", bl.File, len(diff))
			for _, d := range diff {
				fmt.Fprintf(w, "#   %s\n", d)
			}
		}
	}
	for _, l := range environmentNotes(sp, best.Params) {
		fmt.Fprintf(w, "# %s\n", l)
	}
	fmt.Fprintf(w, "# exported: %s\n", now.UTC().Format(time.RFC3339))
	if len(best.Params) == 0 {
		fmt.Fprintln(w, "# the server defaults measured best: nothing to change")
	}
	fmt.Fprintln(w, "[mysqld]")
	return sp.WriteOptions(w, best.Params)
}

// durabilityNote says in the exported my.cnf which policy held.
func durabilityNote(policy string) string {
	switch space.Durability(policy) {
	case space.Strict:
		return "strict (innodb_flush_log_at_trx_commit=1, innodb_doublewrite=ON and, where binary logging is on, sync_binlog=1 were pinned: as crash-safe as the defaults)"
	case space.Relaxed:
		return "relaxed (the search could trade crash safety for speed: check innodb_flush_log_at_trx_commit, innodb_doublewrite, sync_binlog below)"
	}
	return policy
}

// environmentNotes describes the trial's non-option knobs (runtime
// environment, builds) for the exported file's header: they are not
// my.cnf options, so they are comments saying how to reproduce them.
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
		out = append(out, "not an option: "+k.Name+"="+v+how)
	}
	return out
}

// exportDoc is the JSON export: the trial, what it set and how it scored.
type exportDoc struct {
	Study string `json:"study"`
	Trial struct {
		Number  int       `json:"number"`
		Kind    string    `json:"kind"`
		State   string    `json:"state"`
		Started time.Time `json:"started"`
		Ended   time.Time `json:"ended"`
	} `json:"trial"`
	// Params maps knob names to canonical values (bytes as integers).
	Params space.Config `json:"params"`
	// Knobs details every knob the trial set, in catalogue order.
	Knobs []exportKnob `json:"knobs"`
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
	Gain          *exportGain `json:"gain,omitempty"`
	ServerVersion string      `json:"server_version"`
	// Settings is the study's benchmark settings as stored.
	Settings json.RawMessage `json:"settings,omitempty"`
	Exported time.Time       `json:"exported"`
}

type exportKnob struct {
	Name    string `json:"name"`
	Value   string `json:"value"`   // as written to my.cnf (sizes with K/M/G)
	Default string `json:"default"` // server default, same form
	Changed bool   `json:"changed"` // differs from the default
	Dynamic bool   `json:"dynamic"` // settable with SET GLOBAL
}

type exportBaseline struct {
	Number  int     `json:"number"`
	Score   float64 `json:"score"`
	MeanTPS float64 `json:"mean_tps"`
}

// GoalOf returns the objective a study optimised (tps when its manifest
// does not say).
func GoalOf(st storage.Study) search.Goal {
	if m, err := st.Manifest(); err == nil && m.Measure.Objective != "" {
		return search.Goal(m.Measure.Objective)
	}
	return search.GoalTPS
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
