package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study"
	"github.com/autotune/autotune/study/result"
)

type applyOptions struct {
	dsn, passwordFile string
	study, db         string
	trial             int
	durability        string
	includeFile       string
	watch, window     time.Duration
	burnIn            time.Duration
	margin            float64
	maxMemory         string
	maxLag            time.Duration
	seed              uint64
	yes, recover      bool
	timeout           time.Duration
}

func (o *applyOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.dsn, "dsn", "", "the running server: USER@unix(/path/to/socket)/ or USER@tcp(HOST:PORT)/ (no password here: $"+study.PasswordEnv+" or --password-file); the user needs SYSTEM_VARIABLES_ADMIN (or SUPER) and, on MySQL, PERSIST_RO_VARIABLES_ADMIN for SET PERSIST")
	fs.StringVar(&o.passwordFile, "password-file", "", "MySQL option file with a [client] password= line for the --dsn user (mode 0600)")
	fs.StringVar(&o.study, "study", "", "apply the best trial of this study (instead of FILE)")
	fs.StringVar(&o.db, "db", "trials.db", "store: the study's, and where the apply's audit trail and the settings it saved go (the next apply on the server reads them back)")
	fs.IntVar(&o.trial, "trial", -1, "with --study: apply this complete trial instead of the best")
	fs.StringVar(&o.durability, "durability", "strict", "strict: a durability knob (innodb_flush_log_at_trx_commit, sync_binlog, innodb_doublewrite) is never made less safe; relaxed: it may be")
	fs.StringVar(&o.includeFile, "include-file", "", "MariaDB: the option file a pass is persisted in (the server's my.cnf must !include it after its own settings, e.g. a file of its !includedir); written whole and atomically, its previous content kept in FILE.autotune-backup")
	fs.DurationVar(&o.watch, "watch", 30*time.Minute, "how long old and new settings alternate on the server's own traffic before the verdict")
	fs.DurationVar(&o.window, "window", 2*time.Minute, "one measured window of the watch")
	fs.DurationVar(&o.burnIn, "burn-in", 20*time.Second, "the wait after each switch before a window is measured")
	fs.Float64Var(&o.margin, "margin", 5, "a pass tolerates the new settings this many percent slower (with 95 % confidence)")
	fs.StringVar(&o.maxMemory, "max-memory", "", "memory tripwire: the server's resident memory beyond this (such as 6G) puts the old settings back at once (default: 90 % of the host's RAM when the server runs on this host)")
	fs.DurationVar(&o.maxLag, "max-lag", time.Minute, "replication tripwire: a replica more than this behind its source (and 30 s more than before) puts the old settings back at once")
	fs.Uint64Var(&o.seed, "seed", 0, "seed of the order of the arms in each pair (default: from the clock)")
	fs.BoolVar(&o.yes, "yes", false, "apply the plan without asking (without it apply asks on a terminal, and changes nothing elsewhere)")
	fs.BoolVar(&o.recover, "recover", false, "only finish or undo earlier applies on this server that were interrupted (killed, or the server stopped answering), then exit")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "deadline of each statement on the server (SET GLOBAL: ten times it)")
}

func (o *applyOptions) config(fs *pflag.FlagSet, args []string, in io.Reader, out io.Writer) (study.ApplyConfig, error) {
	c := study.ApplyConfig{DSN: o.dsn, PasswordFile: o.passwordFile, DB: o.db, Study: o.study, Trial: o.trial, Durability: o.durability,
		IncludeFile: o.includeFile, Watch: o.watch, Window: o.window, BurnIn: o.burnIn, Margin: o.margin / 100, MaxLag: o.maxLag,
		Seed: o.seed, Yes: o.yes, RecoverOnly: o.recover, Timeout: o.timeout}
	if o.dsn == "" {
		return c, usagef("--dsn: the server to apply to is required")
	}
	if err := checkDSN(o.dsn, o.passwordFile); err != nil {
		return c, err
	}
	if _, err := space.ParseDurability(o.durability); err != nil {
		return c, usagef("--durability %q: %v", o.durability, err)
	}
	switch {
	case o.watch <= 0 || o.window <= 0 || o.burnIn < 0 || o.timeout <= 0 || o.maxLag <= 0:
		return c, usagef("--watch, --window, --timeout and --max-lag want durations > 0, --burn-in 0 or more")
	case o.window > o.watch:
		return c, usagef("--window %s is longer than --watch %s: the watch needs at least 2 pairs of windows", o.window, o.watch)
	case o.margin <= 0 || o.margin >= 100:
		return c, usagef("--margin %g: want a percentage between 0 and 100", o.margin)
	}
	if o.maxMemory != "" {
		n, err := space.ParseBytes(o.maxMemory)
		if err != nil || n <= 0 {
			return c, usagef("--max-memory %q: want a size such as 6G", o.maxMemory)
		}
		c.MaxMemory = n
	}
	if o.includeFile != "" && !strings.HasPrefix(o.includeFile, "/") {
		return c, usagef("--include-file %q: want an absolute path (the server reads it from its own directory)", o.includeFile)
	}
	if o.recover {
		if len(args) > 0 {
			return c, usagef("--recover applies nothing: leave out FILE")
		}
		return c, refuse(fs, "--recover applies nothing", "study", "trial", "watch", "window", "burn-in", "margin", "max-memory", "max-lag", "seed", "yes", "durability")
	}
	switch {
	case len(args) == 1 && o.study != "":
		return c, usagef("give FILE or --study, not both")
	case len(args) == 1:
		if err := refuse(fs, "with FILE, apply applies the file", "trial"); err != nil {
			return c, err
		}
		if err := regularFile("apply", args[0]); err != nil {
			return c, err
		}
		c.File = args[0]
	case o.study == "":
		return c, usagef("give FILE (an export, or any my.cnf) or --study STUDY to apply")
	}
	if !o.yes && isTerminal(in) {
		c.Confirm = func(p result.ApplyPlan) (bool, error) {
			fmt.Fprint(out, "apply this plan to the running server? [y/N] ")
			line, err := bufio.NewReader(in).ReadString('\n')
			if err != nil && line == "" {
				return false, nil
			}
			a := strings.ToLower(strings.TrimSpace(line))
			return a == "y" || a == "yes", nil
		}
	}
	return c, nil
}

// isTerminal reports whether r is a terminal (a prompt can be answered).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func newApplyCmd() *cobra.Command {
	o := &applyOptions{}
	var c study.ApplyConfig
	cmd := &cobra.Command{
		Use:   "apply --dsn DSN FILE | --study STUDY",
		Short: "Put a configuration on a running server, watch it on the server's own traffic, keep it only if it does not hurt",
		Long: `apply puts the settings of FILE (an export of autotune, or any my.cnf), or of the
best trial of --study, on a running server autotune did not start, and keeps them
only if the server's own traffic says they do not hurt (docs/apply.md).

First a plan: the diff against the running server (as diff --dsn), each setting
classified for that server (dynamic, restart-only, refused: a durability knob
under --durability strict), a memory check, where the watch reads its statistics
and how a pass is persisted. Nothing changes without --yes (or a yes on a
terminal). Restart-only settings are never applied: they are listed for the next
planned restart.

Then it saves the original values in the store (--db), sets the dynamic settings
with SET GLOBAL (waiting for a buffer pool or redo resize to end), and for --watch
alternates the old and the new settings in pairs of windows, each pair in a
random order, with a burn-in after each switch. It judges from the server's
statement statistics (performance_schema digests, else MariaDB's
query_response_time plugin, loaded for the watch, else global status), per
digest, weighted by its share of time: pass when the new settings are not slower
by more than --margin with 95 % confidence (they are persisted: SET PERSIST on
MySQL, --include-file on MariaDB), fail when slower with 95 % confidence,
inconclusive otherwise; on a fail or an inconclusive watch the original
settings go back. Tripwires put them back at once: the server stops answering,
aborted connections or threads running pile up, memory beyond --max-memory,
replication lag beyond --max-lag, a statement 20 times slower (and over 10 ms).

An apply killed at any point is finished or undone by the next apply on the
server (or apply --recover): the server ends on its original settings, or on the
new ones persisted after a pass, never a mix. Only one apply runs on a server at
a time (a lock on the server). autotune applies lists the trail.

Exit code 0 when the new settings pass and are persisted (or nothing differs),
4 when the original settings were put back (fail, inconclusive, tripwire), 1
for an error (the server unreachable, a privilege missing, a setting the server
refuses: nothing stays changed), 2 for bad flags or a refused plan.`,
		Args: cobra.RangeArgs(0, 1),
		PreRunE: func(cmd *cobra.Command, args []string) error {
			var err error
			c, err = o.config(cmd.Flags(), args, cmd.InOrStdin(), cmd.OutOrStdout())
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runApply(cmd.Context(), c, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runApply(ctx context.Context, c study.ApplyConfig, out io.Writer) error {
	a, err := study.Apply(ctx, c, &report.ApplyProgress{W: out})
	report.WriteApplied(out, a)
	return err
}

func newAppliesCmd() *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "applies [ID]",
		Short: "List the applies of a store, or one apply's steps",
		Long: `applies lists every autotune apply recorded in the store (--db): the server, what
was applied, when, its phase (a pending phase means it was interrupted: the next
apply on that server finishes or undoes it) and its verdict. With ID it prints
that apply's steps: the plan, each setting, switch and window, the verdict, the
persist or the revert.`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := mustExist(db); err != nil {
				return err
			}
			st, err := storage.Open(db)
			if err != nil {
				return err
			}
			defer st.Close()
			if len(args) == 0 {
				as, err := st.Applies(ctx, "")
				if err != nil {
					return err
				}
				report.WriteApplies(cmd.OutOrStdout(), as)
				return nil
			}
			var id int64
			if _, err := fmt.Sscan(args[0], &id); err != nil || id <= 0 {
				return usagef("ID %q: want an apply's number (autotune applies lists them)", args[0])
			}
			a, err := st.Apply(ctx, id)
			if err != nil {
				return usagef("apply %d: not in %s (autotune applies lists them)", id, db)
			}
			ev, err := st.ApplyEvents(ctx, id)
			if err != nil {
				return err
			}
			report.WriteApplyTrail(cmd.OutOrStdout(), a, ev)
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "trials.db", "store")
	return cmd
}

// mustExist refuses a store that does not exist (a read-only view must
// not create one).
func mustExist(path string) error {
	if strings.Contains(path, "://") {
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		return usagef("--db %s: %v", path, err)
	}
	return nil
}
