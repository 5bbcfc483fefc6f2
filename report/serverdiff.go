package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// WriteServerDiff prints d: a line naming the server and the other side,
// a table of the settings that differ (variable, running value, wanted
// value, how it can change and who says so), how many of how many differ
// and the equal ones, then what would apply the wanted values: SET
// GLOBAL statements for the dynamic ones (and, commented, the unknown
// ones), and the option lines for an option file (every setting that
// differs: SET GLOBAL does not survive a restart). Then the settings not
// compared and the notes.
func WriteServerDiff(w io.Writer, d result.ServerDiff) {
	fmt.Fprintf(w, "running server %s (%s) against %s\n", d.Server, d.Version, d.Against)
	var differ []result.ServerDiffRow
	var equal []string
	for _, r := range d.Rows {
		if r.Differs {
			differ = append(differ, r)
		} else {
			equal = append(equal, r.Variable+" = "+r.Running)
		}
	}
	if len(differ) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "variable\trunning\twanted\tchange")
		for _, r := range differ {
			ch := r.Change
			if r.Source != "" {
				ch += " (" + r.Source + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Variable, r.Running, r.Wanted, ch)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "%d of %d settings differ\n", len(differ), len(d.Rows))
	if len(equal) > 0 {
		fmt.Fprintf(w, "equal: %s\n", strings.Join(equal, ", "))
	}
	if len(differ) > 0 {
		fmt.Fprintln(w, "change: (server) as its information_schema.SYSTEM_VARIABLES.READ_ONLY says; (catalogue) as autotune's knob catalogue says, the server does not tell; unknown: neither tells")
		var set []string
		for _, r := range differ {
			stmt := "SET GLOBAL " + r.Variable + " = " + sqlLiteral(r.Knob, r.Value) + ";"
			switch r.Change {
			case result.ChangeDynamic:
				set = append(set, stmt)
			case result.ChangeUnknown:
				set = append(set, stmt+"  -- may be refused (ERROR 1238: read only): then only the option line below applies it")
			}
		}
		if len(set) > 0 {
			fmt.Fprintln(w, "to apply on the running server (lost at its next restart):")
			for _, s := range set {
				fmt.Fprintln(w, "  "+s)
			}
		}
		fmt.Fprintln(w, "to keep across restarts, option lines for the [mysqld] group (the restart ones take effect only after a restart):")
		for _, r := range differ {
			fmt.Fprintf(w, "  %s = %s\n", r.Option, space.FormatOptionValue(optionValue(r)))
		}
	}
	if len(d.NotCompared) > 0 {
		fmt.Fprintln(w, "not compared:")
		for _, n := range d.NotCompared {
			fmt.Fprintln(w, "  "+n)
		}
	}
	for _, n := range d.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
	fmt.Fprintln(w, "read-only: nothing was changed on the server")
}

// optionValue is the option-file form of a row's wanted value: a knob's
// rendering (sizes with K/M/G), else the value as given.
func optionValue(r result.ServerDiffRow) string {
	if r.Knob != nil {
		return r.Knob.Render(r.Value)
	}
	return r.Value
}

// sqlLiteral renders a wanted value for SET GLOBAL: a knob's as
// exportfile.SQLValue does; a value of a variable the catalogue does not
// know bare when it is a number or ON/OFF (a size with a K/M/G suffix as
// its number of bytes: SET takes no suffix), else single-quoted.
func sqlLiteral(k *space.Knob, v string) string {
	if k != nil {
		return exportfile.SQLValue(*k, v)
	}
	if n, err := space.ParseBytes(v); err == nil {
		return strconv.FormatInt(n, 10)
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return v
	}
	switch strings.ToUpper(v) {
	case "ON", "OFF":
		return strings.ToUpper(v)
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), "'", "''") + "'"
}
