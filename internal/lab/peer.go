package lab

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// optunaPeer is the script that drives Optuna for the harness (see its
// docstring for the protocol).
//
//go:embed optuna_peer.py
var optunaPeer []byte

// PeerPython is the interpreter the Optuna peer runs with: Debian's
// python3-optuna installs for /usr/bin/python3 (a pyenv python3 on PATH
// does not see it).
var PeerPython = "/usr/bin/python3"

// peerStrategies maps the harness's names of the Optuna peers to the
// script's sampler names.
var peerStrategies = map[string]string{"optuna-tpe": "tpe", "optuna-mtpe": "mtpe"}

// PeerStrategies returns the names of the Optuna peer strategies:
// "optuna-tpe" (Optuna's default TPE) and "optuna-mtpe" (its multivariate
// TPE), through autotune's study loop, and the same on their own, as an
// Optuna script runs them ("-alone": see runAlone). They need
// python3-optuna (Debian's package) for PeerPython.
func PeerStrategies() []string {
	return []string{"optuna-tpe", "optuna-mtpe", "optuna-tpe" + aloneSuffix, "optuna-mtpe" + aloneSuffix}
}

// aloneSuffix marks a peer run on its own, outside the study loop.
const aloneSuffix = "-alone"

var (
	peerOnce sync.Once
	peerPath string
	peerErr  error
)

// peerScript writes the embedded script to a temporary file once per
// process and returns its path.
func peerScript() (string, error) {
	peerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "autotune-optuna-peer-")
		if err != nil {
			peerErr = err
			return
		}
		peerPath = filepath.Join(dir, "optuna_peer.py")
		peerErr = os.WriteFile(peerPath, optunaPeer, 0o644)
	})
	return peerPath, peerErr
}

// Peer is a search.Strategy computed by another process through JSON
// lines on its stdin and stdout (the protocol of optuna_peer.py): it asks
// the process for proposals, tells it their values, and lets it observe
// the configurations the study measured without asking (the baseline and
// the warm start). Close ends the process.
type Peer struct {
	sp     *space.Space
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr strings.Builder
	// asked is true while the last proposal is not told yet.
	asked bool
}

// NewPeer starts the Optuna peer called name (PeerStrategies) over sp.
func NewPeer(ctx context.Context, name string, sp *space.Space, seed int64) (*Peer, error) {
	sampler, ok := peerStrategies[name]
	if !ok {
		return nil, fmt.Errorf("peer strategy %q: want optuna-tpe or optuna-mtpe", name)
	}
	script, err := peerScript()
	if err != nil {
		return nil, fmt.Errorf("optuna peer script: %w", err)
	}
	p := &Peer{sp: sp, cmd: exec.CommandContext(ctx, PeerPython, script)}
	p.cmd.Stderr = &p.stderr
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewReader(stdout)
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("optuna peer: start %s: %w", PeerPython, err)
	}
	type knob struct {
		Name    string   `json:"name"`
		Choices []string `json:"choices,omitempty"`
	}
	var ks []knob
	for _, k := range sp.Knobs() {
		kn := knob{Name: k.Name}
		if k.Kind == space.Enum || k.Kind == space.Bool {
			kn.Choices = k.Options()
		}
		ks = append(ks, kn)
	}
	if err := p.send(map[string]any{"knobs": ks, "sampler": sampler, "seed": seed % (1 << 31)}); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Peer) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return p.fail(err)
	}
	return nil
}

// fail wraps err with what the peer printed on stderr.
func (p *Peer) fail(err error) error {
	msg := strings.TrimSpace(p.stderr.String())
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	if msg == "" {
		return fmt.Errorf("optuna peer: %w", err)
	}
	return fmt.Errorf("optuna peer: %w (%s; is python3-optuna installed for %s?)", err, msg, PeerPython)
}

// params returns cfg as the peer sees it: numeric knobs as coordinates,
// choices as strings.
func (p *Peer) params(cfg space.Config) map[string]any {
	x := search.Encode(p.sp, cfg)
	out := map[string]any{}
	for i, k := range p.sp.Knobs() {
		if k.Kind == space.Enum || k.Kind == space.Bool {
			out[k.Name] = k.Options()[int(x[i])]
		} else {
			out[k.Name] = x[i]
		}
	}
	return out
}

// Ask implements search.Strategy.
func (p *Peer) Ask(ctx context.Context) (search.Proposal, error) {
	if err := p.send(map[string]string{"op": "ask"}); err != nil {
		return search.Proposal{}, err
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return search.Proposal{}, p.fail(err)
	}
	var reply struct {
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(line, &reply); err != nil {
		return search.Proposal{}, fmt.Errorf("optuna peer printed %q: %w", firstLine(string(line)), err)
	}
	x := make([]float64, len(p.sp.Knobs()))
	for i, k := range p.sp.Knobs() {
		v := reply.Params[k.Name]
		if k.Kind == space.Enum || k.Kind == space.Bool {
			s, _ := v.(string)
			x[i] = float64(max(0, slices.Index(k.Options(), s)))
			continue
		}
		f, _ := v.(float64)
		x[i] = f
	}
	cfg := search.Decode(p.sp, x)
	p.asked = true
	return search.Proposal{Config: cfg, Kind: search.Sampled}, nil
}

// Tell implements search.Strategy: the value of the last proposal, or an
// observation of a configuration the peer did not propose. A study tells
// each of its proposals once, after its trial and before the next Ask, with
// the configuration it measured (repaired, in canonical form: it need not
// be the one asked), so the first sampled Tell after an Ask is its answer.
func (p *Peer) Tell(ctx context.Context, pr search.Proposal, value float64) error {
	if pr.Kind == search.Sampled && p.asked {
		p.asked = false
		return p.send(map[string]any{"op": "tell", "value": value})
	}
	return p.send(map[string]any{"op": "observe", "params": p.params(pr.Config), "value": value})
}

// Close ends the peer process.
func (p *Peer) Close() error {
	p.in.Close()
	return p.cmd.Wait()
}
