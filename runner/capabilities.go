package runner

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// optionRE matches a long option where a help text lists one: at the
// start of a line, after an optional short form ("-H, --host strings",
// "  --tables=N  Number of tables [1]").
var optionRE = regexp.MustCompile(`(?m)^\s*(?:-[A-Za-z], )?--([A-Za-z0-9][A-Za-z0-9_-]*)`)

// optionName is an option's name in the form options are compared in:
// no leading dashes, no value, '_' written '-' (sysbench accepts both).
func optionName(s string) string {
	s = strings.TrimLeft(s, "-")
	s, _, _ = strings.Cut(s, "=")
	return strings.ReplaceAll(s, "_", "-")
}

// LongOptions returns the long options a program's help text lists
// (optionName form).
func LongOptions(help string) map[string]bool {
	out := map[string]bool{}
	for _, m := range optionRE.FindAllStringSubmatch(help, -1) {
		out[optionName(m[1])] = true
	}
	return out
}

// OptionNames returns the long options in args ("--name=value" or
// "--name", optionName form), once each, in order.
func OptionNames(args []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			continue
		}
		if n := optionName(a); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// helpTimeout bounds one help command of CheckOptions.
const helpTimeout = 20 * time.Second

// CheckOptions checks that the program at path accepts every long option
// in want (OptionNames form): it runs each help command (the program's
// arguments that print its options, e.g. {"--help"} and {"oltp_read_write",
// "help"}), and returns an error naming the program, what (its version
// text) and every option no help output lists, so that a definition the
// binary cannot honour is refused before any work starts. It returns an
// error naming the help command when one does not run within 20 s or
// prints no option at all.
func CheckOptions(ctx context.Context, path, what string, want []string, help ...[]string) error {
	accepted := map[string]bool{}
	for _, h := range help {
		hctx, cancel := context.WithTimeout(ctx, helpTimeout)
		out, err := exec.CommandContext(hctx, path, h...).CombinedOutput()
		cancel()
		got := LongOptions(string(out))
		if len(got) == 0 {
			return fmt.Errorf("%s %s: lists no options (%v): cannot tell what %s accepts", path, strings.Join(h, " "), err, what)
		}
		for k := range got {
			accepted[k] = true
		}
	}
	var missing []string
	for _, w := range want {
		if !accepted[w] {
			missing = append(missing, "--"+w)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s (%s) does not accept %s, which this benchmark definition passes: use a build that has them (its help: %s %s)",
			path, what, strings.Join(missing, ", "), path, strings.Join(help[0], " "))
	}
	return nil
}
