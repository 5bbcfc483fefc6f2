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
	"sync"
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
// is expected to add its own noise. TruthCmd, read and run the same way,
// prints a configuration's noise-free score: the harness then judges every
// recommendation by it. Without it the harness judges a configuration by
// the study's own estimate (the mean of its measurements), and says so.
// The best known score is BestKnown or, when 0, the best any run reached.
type Command struct {
	// Cmd is the shell command.
	Cmd string
	// TruthCmd is the shell command that prints a configuration's
	// noise-free score ("": none).
	TruthCmd string
	// Sp is the search space.
	Sp *space.Space
	// BestKnown is the best known score (0: unknown).
	BestKnown float64
	// ExpertCfg is the warm-start configuration.
	ExpertCfg space.Config

	mu       sync.Mutex
	truth    map[string]truthOf // TruthCmd's answers by configuration key
	truthErr error              // TruthCmd's first error
}

// truthOf is one answer of TruthCmd.
type truthOf struct {
	score float64
	ok    bool
}

// truthTimeout bounds one run of TruthCmd.
const truthTimeout = time.Minute

// Name implements Landscape.
func (c *Command) Name() string { return "command: " + c.Cmd }

// Space implements Landscape.
func (c *Command) Space() *space.Space { return c.Sp }

// Best implements Landscape.
func (c *Command) Best() float64 { return c.BestKnown }

// Expert implements Landscape.
func (c *Command) Expert() space.Config { return c.ExpertCfg.Clone() }

// True implements Landscape: TruthCmd's score of cfg (run once per
// configuration), ok false without TruthCmd, where it reports a crash, and
// after an error (which Err returns).
func (c *Command) True(cfg space.Config) (float64, bool) {
	if c.TruthCmd == "" {
		return 0, false
	}
	key := search.FullConfig(c.Sp, cfg).Key()
	c.mu.Lock()
	if a, ok := c.truth[key]; ok || c.truthErr != nil {
		c.mu.Unlock()
		return a.score, a.ok
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), truthTimeout)
	defer cancel()
	v, failed, err := c.run(ctx, c.TruthCmd, "--objective-truth-cmd", cfg)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if c.truthErr == nil {
			c.truthErr = err
		}
		return 0, false
	}
	if c.truth == nil {
		c.truth = map[string]truthOf{}
	}
	c.truth[key] = truthOf{v, !failed}
	return v, !failed
}

// Estimated reports whether the harness judges by the study's own
// estimates (no TruthCmd) rather than noise-free scores.
func (c *Command) Estimated() bool { return c.TruthCmd == "" }

// Err returns TruthCmd's first error (nil when none): a comparison judged
// with it is void.
func (c *Command) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.truthErr
}

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
	return c.run(ctx, c.Cmd, "--objective-cmd", cfg)
}

// run runs the shell command line (named by flag in errors) with cfg on
// its stdin and returns the number it printed, or failed for a crash.
func (c *Command) run(ctx context.Context, line, flag string, cfg space.Config) (float64, bool, error) {
	in, err := ConfigJSON(c.Sp, cfg)
	if err != nil {
		return 0, false, err
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
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
		return 0, false, fmt.Errorf("%s %q: %w", flag, line, err)
	}
	text := strings.TrimSpace(out.String())
	switch strings.ToLower(text) {
	case "nan", "fail", "failed":
		return 0, true, nil
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false, fmt.Errorf("%s %q printed %q: want one number (or nan for a crash)", flag, line, firstLine(text))
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
