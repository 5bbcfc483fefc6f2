package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study"
)

type diffOptions struct {
	study string
	db    string
	trial int
}

func newDiffCmd() *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff FILE",
		Short: "Compare a my.cnf against the best trial of a study",
		Long: `diff reads FILE by the MySQL option-file rules (groups, !include/!includedir,
loose- prefixes, dashes equal underscores, size suffixes) and compares the server
options it sets with the knobs of the best trial (or --trial N): one row per knob
either side sets, with the file's value (or the server default it leaves in
place), the trial's value, and whether they differ. Exit code 0 whether or not
they differ; 1 when the file cannot be read, naming file and line.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd.Context(), o, args[0], cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.study, "study", "default", "study name")
	cmd.Flags().StringVar(&o.db, "db", "trials.db", "study database")
	cmd.Flags().IntVar(&o.trial, "trial", -1, "compare with this complete trial instead of the best")
	return cmd
}

func runDiff(ctx context.Context, o *diffOptions, file string, out io.Writer) error {
	db, st, trials, err := study.LoadStudy(ctx, o.db, o.study)
	if err != nil {
		return err
	}
	defer db.Close()
	best, _, err := study.ChosenTrial(trials, o.study, o.trial)
	if err != nil {
		return err
	}
	v, err := space.ParseVersion(cmp.Or(best.ServerVersion, st.ServerVersion), "")
	if err != nil {
		v = space.Version{Flavor: space.MariaDB, Major: 10, Minor: 11}
	}
	of, err := space.ReadOptionFile(file, space.ReadOptions{FirstDotExtension: v.Flavor != space.MariaDB && v.Major < 8})
	if err != nil {
		return err
	}
	rows, others := report.DiffRows(space.Lookup(), of.Effective(space.ServerGroups(v)), best.Params)
	fmt.Fprintf(out, "%s against trial %d of study %q (%s)\n", file, best.Number, st.Name, best.Kind)
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
	for _, n := range of.Notes {
		fmt.Fprintln(out, "note: "+n)
	}
	return nil
}
