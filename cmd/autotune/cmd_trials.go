package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

type trialsOptions struct {
	study string
	db    string
}

func newTrialsCmd() *cobra.Command {
	o := &trialsOptions{}
	cmd := &cobra.Command{
		Use:   "trials",
		Short: "List the trials of a study, best score first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrials(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.study, "study", "default", "study name")
	cmd.Flags().StringVar(&o.db, "db", "trials.db", "study database")
	return cmd
}

// stateRank orders states in the listing: complete first, then failed,
// interrupted, running.
func stateRank(s search.State) int {
	switch s {
	case search.Complete:
		return 0
	case search.Failed, search.Rejected:
		return 1
	case search.Interrupted:
		return 2
	}
	return 3
}

func runTrials(ctx context.Context, o *trialsOptions, out io.Writer) error {
	db, st, trials, err := loadStudy(ctx, o.db, o.study)
	if err != nil {
		return err
	}
	defer db.Close()
	writeTrials(out, space.Lookup(), st.Name, trials)
	return nil
}

// writeTrials prints the trials table: complete trials by score, then the
// others by number.
func writeTrials(out io.Writer, sp *space.Space, study string, trials []search.Trial) {
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
	_, base := search.Best(trials)
	fmt.Fprintf(out, "study %s: %d trials\n", study, len(trials))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tstate\tkind\tscore\ttps\tsd\tp95 ms\tvs base\ttime\tchanges")
	for _, t := range sorted {
		score, tps, sd, p95, vs := "-", "-", "-", "-", "-"
		if t.State == search.Complete {
			score, tps, sd, p95 = f1(t.Score), f1(t.MeanTPS), f1(t.StdTPS), f1(t.P95MS)
			if base.Number >= 0 {
				vs = fmt.Sprintf("%+.1f%%", gain(t.MeanTPS, base.MeanTPS))
			}
		}
		ch := strings.Join(sp.Changes(t.Params), " ")
		if ch == "" {
			ch = "(defaults)"
		}
		if t.State == search.Failed || t.State == search.Rejected {
			ch += "  [" + t.Failure + "]"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Number, t.State, t.Kind, score, tps, sd, p95, vs, t.Duration().Round(time.Second), ch)
	}
	tw.Flush()
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
