package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/study"
)

// compareOptions are the flags of `autotune compare`.
type compareOptions struct {
	db      string
	studies []string
	fs      *pflag.FlagSet // which flags were given
}

func (o *compareOptions) AddFlags(fs *pflag.FlagSet) {
	o.fs = fs
	fs.StringVar(&o.db, "db", "trials.db", "study database of the studies named without a FILE: prefix")
	fs.StringArrayVar(&o.studies, "study", nil, "a study to compare: STUDY (in --db) or TRIALS.DB:STUDY (repeatable; adds to the arguments)")
}

// refs are the studies named by the arguments and --study, in order.
// --db given while every study names its own store is refused: it would
// be ignored.
func (o *compareOptions) refs(args []string) ([]study.StudyRef, error) {
	var refs []study.StudyRef
	usesDB := false
	for _, a := range append(append([]string{}, o.studies...), args...) {
		r, err := study.ParseStudyRef(a, o.db)
		if err != nil {
			return nil, err
		}
		usesDB = usesDB || r.DB == o.db
		refs = append(refs, r)
	}
	if o.fs != nil && o.fs.Changed("db") && !usesDB && len(refs) > 0 {
		return nil, usagef("--db %s: every study names its own store (TRIALS.DB:STUDY), so --db would be ignored", o.db)
	}
	return refs, nil
}

func newCompareCmd() *cobra.Command {
	o := &compareOptions{}
	var refs []study.StudyRef
	cmd := &cobra.Command{
		Use:   "compare [STUDY | TRIALS.DB:STUDY]...",
		Short: "List two or more studies of one workload side by side: host, server, baseline, best, gains",
		Long: `compare lists two or more studies side by side: host (cores, RAM), server version,
trials and budget, baseline and best with their pooled estimates, the rank of
the bests, each best's paired gain over its own baseline with its interval, and
the best configurations knob by knob. Studies may come from several databases
(TRIALS.DB:STUDY, e.g. a trials.db copied from another host).

Studies of different workload definitions (benchmark, workload, tables, rows,
thread levels, objective) are refused with exit code 2: their scores do not rank
against each other.`,
		PreRunE: func(cmd *cobra.Command, args []string) (err error) {
			refs, err = o.refs(args)
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd.Context(), refs, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runCompare writes the comparison of refs to out.
func runCompare(ctx context.Context, refs []study.StudyRef, out io.Writer) error {
	cols, err := study.Compare(ctx, refs)
	if err != nil {
		return err
	}
	report.WriteCompare(out, cols)
	return nil
}
