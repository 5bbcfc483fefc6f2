package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
)

// studiesOptions are the flags of `autotune studies`.
type studiesOptions struct {
	db string
}

func (o *studiesOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "trials.db", "study database")
}

func newStudiesCmd() *cobra.Command {
	o := &studiesOptions{}
	cmd := &cobra.Command{
		Use:   "studies",
		Short: "List the studies of a database with trial counts, best trial and budget used",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStudies(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runStudies(ctx context.Context, o *studiesOptions, out io.Writer) error {
	db, err := openExisting(o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	studies, err := db.Studies(ctx)
	if err != nil {
		return err
	}
	trials := make([][]search.Trial, len(studies))
	for i, st := range studies {
		if trials[i], err = db.Trials(ctx, st.Name); err != nil {
			return err
		}
	}
	writeStudies(out, o.db, studies, trials)
	return nil
}

// writeStudies prints one line per study: trial counts by state, the best
// complete trial and its tps gain over the baseline, budget used, workload
// and creation date (UTC).
func writeStudies(out io.Writer, dbPath string, studies []storage.Study, trials [][]search.Trial) {
	fmt.Fprintf(out, "%s: %d studies\n", dbPath, len(studies))
	if len(studies) == 0 {
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "study\ttrials\tcomplete\tfailed\tinterrupted\tbest\tscore\ttps\tvs base\tbudget used\tworkload\tcreated")
	for i, st := range studies {
		var complete, failed, interrupted int
		for _, t := range trials[i] {
			switch t.State {
			case search.Complete:
				complete++
			case search.Failed:
				failed++
			case search.Interrupted:
				interrupted++
			}
		}
		best, base := search.Best(trials[i])
		bn, score, tps, vs := "-", "-", "-", "-"
		if best.Number >= 0 {
			bn, score, tps = fmt.Sprintf("#%d", best.Number), f1(best.Score), f1(best.MeanTPS)
			if base.Number >= 0 {
				vs = fmt.Sprintf("%+.1f%%", gain(best.MeanTPS, base.MeanTPS))
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.Name, len(trials[i]), complete, failed, interrupted,
			bn, score, tps, vs, st.Spent.Round(time.Second), workloadOf(st.Settings), st.Created.UTC().Format("2006-01-02 15:04"))
	}
	tw.Flush()
}

// workloadOf summarises a study's settings as "oltp_read_write/16t/8x500000",
// or "-" when they cannot be read.
func workloadOf(settings string) string {
	var bs benchSettings
	if json.Unmarshal([]byte(settings), &bs) != nil || bs.Workload == "" {
		return "-"
	}
	return fmt.Sprintf("%s/%dt/%dx%d", bs.Workload, bs.Threads, bs.Tables, bs.TableSize)
}
