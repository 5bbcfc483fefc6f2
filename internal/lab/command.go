package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Command is a landscape computed by an external command, run once per
// measurement as `sh -c CMD`. It gets one configuration on stdin as a JSON
// object holding every knob of the space, numeric knobs as JSON numbers
// (bytes as integers) and Enum and Bool knobs as strings, e.g.
//
//	{"innodb_buffer_pool_size": 134217728, "innodb_doublewrite": "ON", ...}
//
// and prints one number, the score (higher is better), on stdout. An exit
// status other than 0, or a printed "nan"/"fail", is a crashed trial; output
// that is not a number is an error that stops the comparison. The command
// is expected to add its own noise; it has no noise-free score, so the
// harness judges a configuration by the mean of its measurements, and the
// best known score is BestKnown or, when 0, the best such mean of any run.
type Command struct {
	// Cmd is the shell command.
	Cmd string
	// Sp is the search space.
	Sp *space.Space
	// BestKnown is the best known score (0: unknown).
	BestKnown float64
	// ExpertCfg is the warm-start configuration.
	ExpertCfg space.Config
}

// Name implements Landscape.
func (c *Command) Name() string { return "command: " + c.Cmd }

// Space implements Landscape.
func (c *Command) Space() *space.Space { return c.Sp }

// Best implements Landscape.
func (c *Command) Best() float64 { return c.BestKnown }

// Expert implements Landscape.
func (c *Command) Expert() space.Config { return c.ExpertCfg.Clone() }

// True implements Landscape: unknown.
func (c *Command) True(space.Config) (float64, bool) { return 0, false }

// ConfigJSON returns cfg (absent knobs at their default) as the JSON
// object the command reads.
func ConfigJSON(sp *space.Space, cfg space.Config) ([]byte, error) {
	full := search.Decode(sp, search.Encode(sp, cfg))
	for n, v := range cfg {
		if _, ok := sp.Knob(n); ok {
			full[n] = v
		}
	}
	obj := make(map[string]any, len(full))
	for _, k := range sp.Knobs() {
		v := full[k.Name]
		if k.Kind == space.Enum || k.Kind == space.Bool {
			obj[k.Name] = v
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("knob %s: value %q is not a number", k.Name, v)
		}
		obj[k.Name] = f
	}
	return json.Marshal(obj)
}

// Measure implements Landscape: it runs the command.
func (c *Command) Measure(ctx context.Context, cfg space.Config, _ *rand.Rand) (float64, bool, error) {
	in, err := ConfigJSON(c.Sp, cfg)
	if err != nil {
		return 0, false, err
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", c.Cmd)
	// In its own process group, all of which a cancel kills: a command
	// that leaves a child behind holding its output must not keep
	// bench-search waiting after Ctrl-C (nor after it ends: WaitDelay).
	// What is left of the group once it has ended is killed too.
	cmd.SysProcAttr = commandAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		return 0, false, ctx.Err()
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited 0; a child it left held the output
	}
	if _, ok := err.(*exec.ExitError); ok {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("--objective-cmd %q: %w", c.Cmd, err)
	}
	text := strings.TrimSpace(out.String())
	switch strings.ToLower(text) {
	case "nan", "fail", "failed":
		return 0, true, nil
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false, fmt.Errorf("--objective-cmd %q printed %q: want one number (or nan for a crash)", c.Cmd, firstLine(text))
	}
	return v, false, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}
