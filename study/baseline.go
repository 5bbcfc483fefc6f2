package study

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// loadBaseline reads path by the MySQL option-file rules (space.ReadOptionFile),
// keeps the options of the groups the server reads (noting values that
// look like mistakes, space.LintValue, and options in groups of other
// server versions, OptionFile.OtherVersionGroups), and turns the ones
// that are knobs of sp into a Config. Options the server would refuse
// (unknown names without loose-, checked against the server's variables
// and `mysqld --verbose --help`) are an error naming file and line, as is
// a malformed file or a value a knob cannot take. Knobs this server does
// not support, and options that are not knobs (paths, networking, other
// settings), are left out with a note: the sandbox runs its own datadir,
// socket and port.
func loadBaseline(ctx context.Context, path string, sp *space.Space, info space.ServerInfo, bin runner.Binary) (storage.Baseline, error) {
	return loadOptionFile(ctx, "--baseline-cnf", path, sp, info, bin)
}

// readOptionFileFor reads the option file at path as server version v
// reads it (space.ReadOptionFile; MySQL before 8.0 takes the first dot of
// an !includedir file name as its extension).
func readOptionFileFor(path string, v space.Version) (*space.OptionFile, error) {
	return space.ReadOptionFile(path, space.ReadOptions{FirstDotExtension: v.Flavor != space.MariaDB && v.Major < 8})
}

// loadOptionFile is loadBaseline for any option file; what names it in
// errors ("--baseline-cnf", "verify best.cnf").
func loadOptionFile(ctx context.Context, what, path string, sp *space.Space, info space.ServerInfo, bin runner.Binary) (storage.Baseline, error) {
	bl := storage.Baseline{File: path, Config: space.Config{}}
	of, err := readOptionFileFor(path, info.Version)
	if err != nil {
		return bl, Usagef("%s: %v", what, err)
	}
	bl.Notes = append(bl.Notes, of.Notes...)
	groups := space.ServerGroups(info.Version)
	opts := of.Effective(groups)
	read := map[string]bool{}
	for _, o := range opts {
		read[o.File+"\x00"+strconv.Itoa(o.Line)] = true
	}
	for _, l := range of.Lint {
		if read[l.File+"\x00"+strconv.Itoa(l.Line)] {
			bl.Notes = append(bl.Notes, "as the server reads it: "+l.String())
		}
	}
	bl.Notes = append(bl.Notes, of.OtherVersionGroups(info.Version)...)
	for _, r := range of.Redefined(groups) {
		bl.Notes = append(bl.Notes, "set in several files of one !includedir (the value depends on the read order, which MySQL does not promise): "+r)
	}
	help, err := runner.DefaultsFromHelp(ctx, bin)
	if err != nil {
		return bl, err
	}
	known := func(n string) bool {
		if _, ok := info.Vars[n]; ok {
			return true
		}
		if _, ok := help[n]; ok {
			return true
		}
		return space.ToleratedOption(n, info.Version)
	}
	fatal, notes := space.UnknownOptions(opts, known)
	if len(fatal) > 0 {
		return bl, Usagef("%s: the server would refuse this file: %s", what, strings.Join(fatal, "; "))
	}
	bl.Notes = append(bl.Notes, notes...)

	all := space.Lookup()
	var ignored []string
	for _, o := range opts {
		at := fmt.Sprintf("%s line %d", o.File, o.Line)
		k, ok := sp.Knob(o.Name)
		if !ok || k.Layer != space.LayerServer {
			if ck, inCat := all.Knob(o.Name); inCat && ck.Layer == space.LayerServer {
				reason := "not searched on this server"
				for _, e := range sp.Entries() {
					if e.Knob.Name == ck.Name {
						reason = e.Reason
					}
				}
				bl.Notes = append(bl.Notes, fmt.Sprintf("%s: %s left out: %s", at, o.RawName, reason))
				continue
			}
			ignored = append(ignored, o.RawName)
			continue
		}
		v := o.Setting()
		if !o.HasValue && k.Kind != space.Bool {
			return bl, Usagef("%s: %s: %s needs a value", what, at, o.RawName)
		}
		c, err := k.Canonical(v)
		if err != nil {
			return bl, Usagef("%s: %s: %v", what, at, err)
		}
		bl.Config[k.Name] = c
	}
	if len(ignored) > 0 {
		bl.Notes = append(bl.Notes, "not knobs, so not carried into the sandbox (it runs its own datadir, socket, port and logs): "+strings.Join(ignored, ", "))
	}
	for name, v := range sp.Fixed() {
		if b, ok := bl.Config[name]; ok && b != v {
			k, _ := sp.Knob(name)
			bl.Notes = append(bl.Notes, fmt.Sprintf("%s = %s in the baseline is pinned to %s (--durability / space file) in every trial, trial 0 included", name, k.Render(b), k.Render(v)))
		}
	}
	return bl, nil
}
