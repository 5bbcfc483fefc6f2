package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/autotune/autotune/space"
)

// knobsOptions are the flags of `autotune knobs`.
type knobsOptions struct {
	spaceOptions
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
			return o.validate()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKnobs(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	o.spaceOptions.AddFlags(cmd.Flags())
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
	r, err := o.resolveSpace(ctx, dir, func(string, ...any) {})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "server: %s (%s, %s)\n", r.servers.first().Path, r.info.Version, r.info.VersionText)
	for _, n := range r.servers.names[1:] {
		fmt.Fprintf(out, "server build %s: %s\n", n, r.servers.bins[n].Path)
	}
	fmt.Fprintf(out, "durability: %s\n", r.durability)
	if o.spaceFile != "" {
		fmt.Fprintf(out, "space file: %s\n", o.spaceFile)
	}
	fmt.Fprintln(out)
	writeKnobs(out, r.sp.Entries(), o.verbose)
	return nil
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

// writeKnobs prints the entries as a table, then a summary line per group
// of seed knobs and the list of unsupported knobs with their reasons.
func writeKnobs(out io.Writer, entries []space.Entry, verbose bool) {
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
