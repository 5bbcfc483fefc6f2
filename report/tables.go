package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// stateRank orders states in the listing: complete first, then failed,
// interrupted, running.
func stateRank(s search.State) int {
	switch s {
	case search.Complete:
		return 0
	case search.Pruned, search.Failed, search.Rejected:
		return 1
	case search.Interrupted:
		return 2
	}
	return 3
}

// WriteTrials prints the trials table: complete trials by score, then the
// others by number. Each complete trial shows the estimate of its
// configuration (the pooled measurements, search.EstimateOf) and how many
// runs it pools; the header lines are the study's headline gains, the
// paired A/B comparisons of the best with the baseline (GainText) and with
// the expert warm start (RulesText).
func WriteTrials(out io.Writer, sp *space.Space, study string, goal measure.Goal, trials []search.Trial) {
	sorted := append([]search.Trial(nil), trials...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if ra, rb := stateRank(a.State), stateRank(b.State); ra != rb {
			return ra < rb
		}
		if a.State == search.Complete {
			return a.Score > b.Score
		}
		return a.Number < b.Number
	})
	best, _ := search.Best(trials)
	fmt.Fprintf(out, "study %s: %d trials\n", study, len(trials))
	if best.Number >= 0 {
		text, _ := exportfile.GainText(goal, trials, best)
		fmt.Fprintf(out, "best: trial %d; gain over the baseline: %s\n", best.Number, text)
		text, _ = exportfile.RulesText(goal, trials, best)
		fmt.Fprintf(out, "gain over the expert warm start: %s\n", text)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	// A TPC-C study shows tpmC (60 × New-Order per second) for tps.
	unit, scale := "tps", 1.0
	for _, t := range trials {
		if u, _ := exportfile.ThroughputOf(t); u == "tpmC" {
			unit, scale = u, 60
		}
	}
	fmt.Fprintf(tw, "#\tstate\tkind\tscore\t%s\tsd\tp95 ms\tconfig est (runs)\ttime\tchanges\n", unit)
	for _, t := range sorted {
		score, tps, sd, p95, est := "-", "-", "-", "-", "-"
		if t.State == search.Complete || t.State == search.Pruned {
			score, tps, sd, p95 = f1(t.Score), f1(scale*t.MeanTPS), f1(scale*t.StdTPS), f1(t.P95MS)
		}
		if t.State == search.Complete {
			if e := search.EstimateOf(trials, t); e.N > 0 {
				est = fmt.Sprintf("%s (%d)", f1(e.Score), e.N)
			}
		}
		ch := strings.Join(sp.Changes(t.Params), " ")
		if ch == "" {
			ch = "(defaults)"
		}
		if t.State == search.Complete && t.WarmupCapped {
			ch += "  [not steady: no steady start by --warmup-max]"
		}
		if strings.HasPrefix(t.PoolLoad, "cold") {
			ch += "  [ran cold: the buffer pool did not load its page list (" + strings.TrimPrefix(strings.TrimPrefix(t.PoolLoad, "cold"), ": ") + ")]"
		}
		if t.State == search.Failed || t.State == search.Rejected {
			ch += "  [" + t.Failure + "]"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Number, t.State, KindText(t), score, tps, sd, p95, est, t.Duration().Round(time.Second), ch)
	}
	tw.Flush()
}

// WriteStudies prints one line per study: trial counts by state, the best
// configuration's estimate and its paired A/B gain over the baseline with
// the 95 % interval ("-" without one), budget used, workload and creation
// date (UTC).
func WriteStudies(out io.Writer, dbPath string, studies []storage.StudyRecord, trials [][]search.Trial) {
	fmt.Fprintf(out, "%s: %d studies\n", dbPath, len(studies))
	if len(studies) == 0 {
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "study\ttrials\tcomplete\tpruned\tfailed\tinterrupted\tbest\tscore\ttps\tpaired gain [95% CI]\tbudget used\tworkload\tcreated")
	for i, st := range studies {
		var complete, pruned, failed, interrupted int
		for _, t := range trials[i] {
			switch t.State {
			case search.Complete:
				complete++
			case search.Pruned:
				pruned++
			case search.Failed, search.Rejected:
				failed++
			case search.Interrupted:
				interrupted++
			}
		}
		best, _ := search.Best(trials[i])
		bn, score, tps, vs := "-", "-", "-", "-"
		if best.Number >= 0 {
			bn, score, tps = fmt.Sprintf("#%d", best.Number), f1(best.Score), f1(best.MeanTPS)
			if g, ok := search.ABGain(st.Goal(), trials[i], best.Number); ok {
				vs = fmt.Sprintf("%+.1f%% [%+.1f, %+.1f]", g.Pct, g.LoPct, g.HiPct)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.Name, len(trials[i]), complete, pruned, failed, interrupted,
			bn, score, tps, vs, st.Spent.Round(time.Second), WorkloadOf(st), st.Created.UTC().Format("2006-01-02 15:04"))
	}
	tw.Flush()
}

// WorkloadOf summarises a study's settings as "oltp_read_write/16t/8x500000",
// or "-" when they cannot be read.
func WorkloadOf(st storage.StudyRecord) string {
	bs, err := st.Manifest()
	if err != nil || bs.Workload == "" {
		return "-"
	}
	if bs.Warehouses > 0 {
		return fmt.Sprintf("%s/%dt/%dw", bs.Workload, bs.Threads, bs.Warehouses)
	}
	return fmt.Sprintf("%s/%dt/%dx%d", bs.Workload, bs.Threads, bs.Tables, bs.TableSize)
}

// applyText says how a knob's change reaches the server.
func applyText(e space.Entry) string {
	k := e.Knob
	if e.Status == space.Unsupported && k.Layer == space.LayerServer && e.Variable == "" && !k.FreshDatadir {
		return "-"
	}
	switch k.Layer {
	case space.LayerEnvironment:
		return "launcher"
	case space.LayerBuild:
		return "binary"
	case space.LayerDataset:
		return "new datadir"
	}
	if k.FreshDatadir {
		return "new datadir"
	}
	if k.Dynamic {
		return "dynamic"
	}
	return "restart"
}

// knobStatusText renders an entry's status column.
func knobStatusText(e space.Entry) string {
	switch e.Status {
	case space.Pinned:
		return "pinned=" + e.Knob.Render(e.Value)
	case space.Via:
		return "via " + e.Knob.Via
	}
	return string(e.Status)
}

// WriteKnobs prints the entries as a table, then a summary line per group
// of seed knobs and the list of unsupported knobs with their reasons.
func WriteKnobs(out io.Writer, entries []space.Entry, verbose bool) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "seed\tknob\tstatus\trange searched\tdefault\tapply\tnote")
	for _, e := range entries {
		k := e.Knob
		seed := k.Seed
		if seed == "" {
			seed = "+"
		}
		rng, def := "-", "-"
		if e.Status == space.Tunable || e.Status == space.Excluded || e.Status == space.Pinned {
			if !(k.Kind == space.Enum && len(k.Choices) == 0) {
				rng = k.Range()
			}
			if k.Default != "" {
				def = k.Render(k.Default)
			}
		}
		note := e.Reason
		if e.Status == space.Tunable {
			note = ""
			if e.ServerRange != "" {
				note = "server: " + e.ServerRange
			}
			if e.Variable != "" && e.Variable != k.Name {
				note = strings.TrimSpace("variable " + e.Variable + "; " + note)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", seed, k.Name, knobStatusText(e), rng, def, applyText(e), note)
		if verbose {
			fmt.Fprintf(tw, "\t\t\t%s\t\t\t%s\n", k.Help, k.Source)
		}
	}
	tw.Flush()

	count := map[space.Status]int{}
	seeds := map[string]bool{}
	for _, e := range entries {
		count[e.Status]++
		if e.Knob.Seed != "" {
			seeds[e.Knob.Seed] = true
		}
	}
	fmt.Fprintf(out, "\n%d knobs (%d seed knobs of the reference study in %d rows, %d extras): %d tunable, %d pinned, %d excluded, %d via another knob, %d unsupported\n",
		len(entries), len(seeds), countSeedRows(entries), len(entries)-countSeedRows(entries),
		count[space.Tunable], count[space.Pinned], count[space.Excluded], count[space.Via], count[space.Unsupported])
	var unsup []string
	for _, e := range entries {
		if e.Status == space.Unsupported {
			unsup = append(unsup, e.Knob.Name)
		}
	}
	sort.Strings(unsup)
	if len(unsup) > 0 {
		fmt.Fprintf(out, "unsupported here: %s\n", strings.Join(unsup, ", "))
	}
}

func countSeedRows(entries []space.Entry) int {
	n := 0
	for _, e := range entries {
		if e.Knob.Seed != "" {
			n++
		}
	}
	return n
}

// DiffRow is one knob of the comparison.
type DiffRow struct {
	Knob, File, Trial, Status string
}

// WriteDiff prints `autotune diff`: a line naming file and the trial (its
// number and kind) of study name, the rows (from DiffRows) as a table of
// knob, the file's value, the trial's and whether they differ, how many
// differ, the file's options that are not knobs (others: how many, the
// first as an example) and notes (the option-file reader's) as "note:"
// lines.
func WriteDiff(out io.Writer, file string, t search.Trial, name string, rows []DiffRow, others, notes []string) {
	fmt.Fprintf(out, "%s against trial %d of study %q (%s)\n", file, t.Number, name, t.Kind)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "knob\tfile\ttrial\t")
	differ := 0
	for _, r := range rows {
		if r.Status != "" {
			differ++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Knob, r.File, r.Trial, r.Status)
	}
	tw.Flush()
	fmt.Fprintf(out, "%d of %d knobs differ\n", differ, len(rows))
	if len(others) > 0 {
		fmt.Fprintf(out, "not knobs (left alone): %d options, e.g. %s\n", len(others), others[0])
	}
	for _, n := range notes {
		fmt.Fprintln(out, "note: "+n)
	}
}

// DiffRows compares the effective options of a file with a trial's
// params, knob by knob in catalogue order. Values are compared in the
// knob's canonical form (4G equals 4096M); a knob the file does not set
// reads as the server default. It also returns the file's options that are
// not knobs ("name=value").
func DiffRows(sp *space.Space, opts []space.Option, params space.Config) ([]DiffRow, []string) {
	file := map[string]string{}
	var others []string
	for _, o := range opts {
		k, ok := sp.Knob(o.Name)
		if !ok {
			others = append(others, o.RawName+"="+o.Setting())
			continue
		}
		v, err := k.Normalize(o.Setting())
		if err != nil {
			v = o.Setting() + " (invalid: " + err.Error() + ")"
		}
		file[k.Name] = v
	}
	var rows []DiffRow
	for _, k := range sp.All() {
		fv, inFile := file[k.Name]
		tv, inTrial := params[k.Name]
		if !inFile && !inTrial {
			continue
		}
		r := DiffRow{Knob: k.Name, File: "(default " + k.Render(k.Default) + ")", Trial: "(default " + k.Render(k.Default) + ")"}
		if inFile {
			r.File = k.Render(fv)
		} else {
			fv = k.Default
		}
		if inTrial {
			r.Trial = k.Render(tv)
		} else {
			tv = k.Default
		}
		if fv != tv {
			r.Status = "differs"
		}
		rows = append(rows, r)
	}
	return rows, others
}
