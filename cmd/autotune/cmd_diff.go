package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

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
	return study.Diff(ctx, o.db, o.study, o.trial, file, out)
}
