package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// WriteCompare prints studies of one workload definition side by side
// (the caller checks that they share it, storage.Fingerprint): the host,
// server, size and budget of each study, its baseline and best with
// their pooled estimates, the rank of the bests by estimate, each study's
// paired gain over its own baseline with its interval (GainText), and
// the best (and, when a study has one, minimal) configurations knob by
// knob, "·" where a study keeps the server default.
func WriteCompare(out io.Writer, studies []result.ComparedStudy) {
	if len(studies) == 0 {
		return
	}
	m, _ := studies[0].Study.Manifest()
	fmt.Fprintf(out, "%d studies of one workload: %s\n\n", len(studies), storage.WorkloadText(m))
	bests := make([]search.Trial, len(studies))
	bases := make([]search.Trial, len(studies))
	for i, s := range studies {
		bests[i], bases[i] = search.Best(s.Trials)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(name string, cell func(i int, s result.ComparedStudy) string) {
		cells := []string{name}
		for i, s := range studies {
			cells = append(cells, cell(i, s))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	row("", func(_ int, s result.ComparedStudy) string { return s.Label })
	row("host", func(_ int, s result.ComparedStudy) string { return HostText(s.Study) })
	row("server", func(_ int, s result.ComparedStudy) string { return serverText(s.Study.ServerVersion) })
	row("created", func(_ int, s result.ComparedStudy) string { return s.Study.Created.UTC().Format("2006-01-02 15:04") })
	row("trials", func(_ int, s result.ComparedStudy) string {
		n := 0
		for _, t := range s.Trials {
			if t.State == search.Complete {
				n++
			}
		}
		return fmt.Sprintf("%d (%d complete)", len(s.Trials), n)
	})
	row("budget used", func(_ int, s result.ComparedStudy) string { return s.Study.Spent.Round(time.Second).String() })
	row("baseline", func(i int, s result.ComparedStudy) string { return estimateText(s.Trials, bases[i]) })
	row("best", func(i int, s result.ComparedStudy) string { return estimateText(s.Trials, bests[i]) })
	rank := rankBests(bests)
	row("rank of the best", func(i int, _ result.ComparedStudy) string {
		if rank[i] == 0 {
			return "-"
		}
		return fmt.Sprintf("%d", rank[i])
	})
	if hasMinimal(studies) {
		row("minimal", func(_ int, s result.ComparedStudy) string { return minimalText(s) })
	}
	tw.Flush()

	fmt.Fprintln(out, "\ngain of the best over its own baseline (paired A/B runs):")
	for i, s := range studies {
		text, _ := exportfile.GainText(s.Study.Goal(), s.Trials, bests[i])
		fmt.Fprintf(out, "  %s: %s\n", s.Label, text)
	}
	fmt.Fprintln(out, "(the rank orders the bests' pooled estimates; across hosts it ranks host and configuration together)")

	writeConfigs(out, "best configuration", studies, bests)
	if hasMinimal(studies) {
		mins := make([]search.Trial, len(studies))
		for i, s := range studies {
			mins[i] = s.Minimal
		}
		writeConfigs(out, "minimal configuration", studies, mins)
	}
}

// estimateText is "#7: 740.1 tps, score 720.0 (3 runs)", "-" without a
// trial.
func estimateText(trials []search.Trial, t search.Trial) string {
	if t.Number < 0 {
		return "-"
	}
	runs := "runs"
	e := search.EstimateOf(trials, t)
	if e.N == 1 {
		runs = "run"
	}
	return fmt.Sprintf("#%d: %s tps, score %s (%d %s)", t.Number, f1(t.MeanTPS), f1(t.Score), e.N, runs)
}

// minimalText is "#31: keeps 3 of 21 changes, −1.2 % tps vs the full best
// (±6.0 %)", "-" without a minimal configuration.
func minimalText(s result.ComparedStudy) string {
	if s.Minimal.Number < 0 {
		return "-"
	}
	m := s.Minimized
	text := fmt.Sprintf("#%d: keeps %d of %d changes", s.Minimal.Number, len(m.KeptSteps()), m.Changes)
	if c := m.Check; c != nil {
		text += fmt.Sprintf(", %+.1f %% %s vs the full best (95 %% CI %+.1f .. %+.1f %%)", c.Pct, m.Goal, c.LoPct, c.HiPct)
	}
	return text
}

// rankBests returns each study's rank (1 = highest estimate, equal
// estimates share a rank; 0 without a best).
func rankBests(bests []search.Trial) []int {
	idx := []int{}
	for i, b := range bests {
		if b.Number >= 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return bests[idx[a]].Score > bests[idx[b]].Score })
	rank := make([]int, len(bests))
	for r, i := range idx {
		rank[i] = r + 1
		if r > 0 && bests[i].Score == bests[idx[r-1]].Score {
			rank[i] = rank[idx[r-1]]
		}
	}
	return rank
}

func hasMinimal(studies []result.ComparedStudy) bool {
	for _, s := range studies {
		if s.Minimal.Number >= 0 {
			return true
		}
	}
	return false
}

// writeConfigs prints the knobs any of the configurations changes from
// the server default, one row per knob in catalogue order, a column per
// study ("·": the default; "-": the study has no such configuration).
func writeConfigs(out io.Writer, title string, studies []result.ComparedStudy, ts []search.Trial) {
	sp := space.Lookup()
	changed := map[string]bool{}
	for _, t := range ts {
		if t.Number < 0 {
			continue
		}
		for _, k := range sp.All() {
			if v, ok := t.Params[k.Name]; ok && v != k.Default {
				changed[k.Name] = true
			}
		}
	}
	fmt.Fprintf(out, "\n%s (changes from the server defaults; · = default):\n", title)
	if len(changed) == 0 {
		fmt.Fprintln(out, "  (every study's is the server defaults)")
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	cells := []string{"  knob"}
	for _, s := range studies {
		cells = append(cells, s.Label)
	}
	fmt.Fprintln(tw, strings.Join(cells, "\t"))
	for _, k := range sp.All() {
		if !changed[k.Name] {
			continue
		}
		cells := []string{"  " + k.Name}
		for _, t := range ts {
			v, ok := t.Params[k.Name]
			switch {
			case t.Number < 0:
				cells = append(cells, "-")
			case !ok || v == k.Default:
				cells = append(cells, "·")
			default:
				cells = append(cells, k.Render(v))
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// serverText is the flavour and release of a stored server version
// ("mariadb 10.11.19" for `mariadbd --version` output), the text itself
// when it does not parse, "-" when empty.
func serverText(v string) string {
	if ver, err := space.ParseVersion(v, ""); err == nil {
		return ver.String()
	}
	return orDash(v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// HostText renders the host study st ran on: "2 cores, 7.8G RAM".
func HostText(st storage.StudyRecord) string {
	return fmt.Sprintf("%d cores, %s RAM", st.Cores, space.HumanBytes(st.RAMBytes))
}
