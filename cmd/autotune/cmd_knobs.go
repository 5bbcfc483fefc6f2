package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/study"
)

// knobsOptions are the flags of `autotune knobs`.
type knobsOptions struct {
	spaceFlags
	verbose bool
}

func newKnobsCmd() *cobra.Command {
	o := &knobsOptions{}
	cmd := &cobra.Command{
		Use:   "knobs",
		Short: "Show the search space against the detected server: every knob with its status",
		Long: `knobs starts the server binary on a tiny fresh datadir in a temporary directory,
reads its variables (information_schema.SYSTEM_VARIABLES on MariaDB), stops it, and
prints every knob of the catalogue against it: the 36 knobs of the reference study
(seed 1.1 to 4.22) and the extras. For each: the range searched (clamped to what
the server accepts), the server's default, whether a change applies with SET GLOBAL
(dynamic) or needs a restart, and its status: tunable, pinned (durability policy or
space file, with the value), excluded (space file), via (searched through another
knob) or unsupported, with the reason (removed from this server, a compile-time or OS
setting, a dataset dimension, a tool or library missing on this host).`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			return o.applyResolve(&study.Config{})
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKnobs(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	o.addResolveFlags(cmd.Flags())
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "also print each knob's manual source and description")
	return cmd
}

func runKnobs(ctx context.Context, o *knobsOptions, out io.Writer) error {
	// A short path: the probe's unix socket must fit in ~107 bytes.
	dir, err := os.MkdirTemp("", "at-knobs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var c study.Config
	if err := o.applyResolve(&c); err != nil {
		return err
	}
	r, err := study.ResolveSpace(ctx, c.Space, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "server: %s (%s, %s)\n", r.Builds[0].Path, r.Info.Version, r.Info.VersionText)
	for _, b := range r.Builds[1:] {
		fmt.Fprintf(out, "server build %s: %s\n", b.Name, b.Path)
	}
	fmt.Fprintf(out, "durability: %s\n", r.Durability)
	if o.spaceFile != "" {
		fmt.Fprintf(out, "space file: %s\n", o.spaceFile)
	}
	fmt.Fprintln(out)
	report.WriteKnobs(out, r.Space.Entries(), o.verbose)
	return nil
}
