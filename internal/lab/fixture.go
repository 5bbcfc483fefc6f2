package lab

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// fits holds the real studies the built-in fitted landscapes are fitted
// to (FitFixture JSON, one file per landscape).
//
//go:embed fits/*.json
var fits embed.FS

// FitFixture is a real study's trials as far as NewFitted needs them,
// kept as JSON so a fitted landscape is reproducible without the study's
// trials.db (which holds samples, logs and paths besides).
type FitFixture struct {
	// About says where the trials come from: machine, server, workload,
	// strategy, when.
	About string `json:"about"`
	// Cores, RAMBytes and Settings are the study's host and settings
	// JSON (FitInput).
	Cores    int    `json:"cores"`
	RAMBytes int64  `json:"ram_bytes"`
	Settings string `json:"settings"`
	// Trials are the study's trials, in order.
	Trials []FixtureTrial `json:"trials"`
}

// FixtureTrial is one trial of a FitFixture.
type FixtureTrial struct {
	Number int          `json:"number"`
	Kind   search.Kind  `json:"kind"`
	State  search.State `json:"state"`
	Score  float64      `json:"score"`
	Params space.Config `json:"params"`
}

// NewFitFixture returns the fixture of a study's trials (see FitFixture).
func NewFitFixture(about string, cores int, ramBytes int64, settings string, trials []search.Trial) FitFixture {
	f := FitFixture{About: about, Cores: cores, RAMBytes: ramBytes, Settings: settings}
	for _, t := range trials {
		f.Trials = append(f.Trials, FixtureTrial{Number: t.Number, Kind: t.Kind, State: t.State, Score: t.Score, Params: t.Params})
	}
	return f
}

// Write writes the fixture as indented JSON, one trial per line.
func (f FitFixture) Write(w io.Writer) error {
	head, err := json.Marshal(struct {
		About    string `json:"about"`
		Cores    int    `json:"cores"`
		RAMBytes int64  `json:"ram_bytes"`
		Settings string `json:"settings"`
	}{f.About, f.Cores, f.RAMBytes, f.Settings})
	if err != nil {
		return err
	}
	// One trial per line keeps a diff of the fixture readable.
	if _, err := fmt.Fprintf(w, "%s,\n\"trials\": [\n", head[:len(head)-1]); err != nil {
		return err
	}
	for i, t := range f.Trials {
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		sep := ","
		if i == len(f.Trials)-1 {
			sep = ""
		}
		if _, err := fmt.Fprintf(w, "%s%s\n", b, sep); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "]}\n")
	return err
}

// fitFixtureLandscape fits the landscape name to the embedded fixture
// fits/file.
func fitFixtureLandscape(name, file string) (*Fitted, error) {
	b, err := fits.ReadFile("fits/" + file)
	if err != nil {
		return nil, err
	}
	var f FitFixture
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("landscape %s: fixture %s: %w", name, file, err)
	}
	return NewFitted(f.Input(name))
}

// Input returns what NewFitted fits the landscape name from.
func (f FitFixture) Input(name string) FitInput {
	trials := make([]search.Trial, len(f.Trials))
	for i, t := range f.Trials {
		trials[i] = search.Trial{Number: t.Number, Kind: t.Kind, State: t.State, Params: t.Params, Outcome: measure.Outcome{Score: t.Score}}
	}
	return FitInput{Name: name, Trials: trials, Settings: f.Settings, RAMBytes: f.RAMBytes, Cores: f.Cores}
}
