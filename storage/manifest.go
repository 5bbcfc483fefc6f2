package storage

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// Manifest is what a study measures and under which settings: the
// benchmark, the measurement and score rules, the knob space and the
// target. It is stored as JSON in studies.settings; a resumed study must
// keep it (see Manifest.Diff). The JSON keys are stable: studies written
// by earlier versions read back into the same fields.
type Manifest struct {
	// Benchmark is the benchmark driver when it is neither sysbench, tpcc
	// nor a --bench-cmd command (those are told by Workload and BenchCmd).
	Benchmark string `json:"benchmark,omitempty"`
	// Workload is the benchmark workload (sysbench test name, or "tpcc").
	Workload string `json:"workload"`
	// Threads is the first benchmark thread level; ThreadLevels lists
	// every level when there are several.
	Threads      int   `json:"threads"`
	ThreadLevels []int `json:"thread_levels,omitempty"`
	// Tables and TableSize size the dataset (sysbench --tables and
	// --table-size, rows per table).
	Tables    int `json:"tables"`
	TableSize int `json:"table_size"`
	// Warehouses sizes a TPC-C dataset (0 for sysbench).
	Warehouses int `json:"warehouses,omitempty"`
	// WarmupS is the warm-up cap and DurationS the measurement window, in
	// seconds.
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	// Lambda is the weight of the variance penalty of the score.
	Lambda float64 `json:"lambda"`
	// Space holds the space settings (for an existing server: the
	// durability policy, the memory budget and apply mode dynamic).
	Space *SpaceManifest `json:"space,omitempty"`
	// Measure holds the measurement and re-measurement settings.
	Measure MeasureManifest `json:"measure"`
	// Target is "existing ADDRESS" for a study of a server autotune did
	// not start ("" for a sandbox); AllowRestart is --allow-restart there.
	Target       string `json:"target,omitempty"`
	AllowRestart bool   `json:"allow_restart,omitempty"`
	// Definition is the benchmark's full definition: its program's
	// version and every option that changes what it measures (for a
	// replay: the workload file's and the dump's SHA-256, the speed,
	// read-only); nil when not recorded.
	Definition *benchdef.Definition `json:"definition,omitempty"`
	// HostProfile is the limit the sandboxed server ran under (nil: the
	// whole host). Scores under different profiles never compare: a
	// resume with another one is refused, --allow-changes or not.
	HostProfile *HostProfile `json:"host_profile,omitempty"`
	// AIOBackend is the asynchronous I/O backend the study's servers use
	// (runner.AIOIOUring, runner.AIOLibaio, runner.AIOSimulated), as the
	// server reported it when the study's space was probed; "" for a
	// study made before backends were recorded, or an existing server.
	AIOBackend string `json:"aio_backend,omitempty"`
}

// HostProfile is a study's host profile: what the sandboxed server may use.
type HostProfile struct {
	// MemoryLimitBytes is the memory cgroup's limit, page cache counted.
	MemoryLimitBytes int64 `json:"memory_limit_bytes"`
}

// SpaceManifest are the space settings of a study.
type SpaceManifest struct {
	// Durability is the durability policy (strict or relaxed).
	Durability string `json:"durability"`
	// SpaceFile is the --space file and SpaceFileSHA256 its content's
	// SHA-256 (hex); empty without one.
	SpaceFile       string `json:"space_file,omitempty"`
	SpaceFileSHA256 string `json:"space_file_sha256,omitempty"`
	// ServerBuilds and BenchmarkBuilds are the --server-build and
	// --benchmark-build lists.
	ServerBuilds    []Build `json:"server_builds,omitempty"`
	BenchmarkBuilds []Build `json:"benchmark_builds,omitempty"`
	// MemoryBudget is the memory budget in bytes.
	MemoryBudget int64 `json:"memory_budget_bytes"`
	// Apply is the apply mode (restart or dynamic).
	Apply string `json:"apply"`
	// Baseline is the user's my.cnf as trial 0 (nil: server defaults).
	Baseline *Baseline `json:"baseline,omitempty"`
}

// Build is one NAME=PATH of --server-build or --benchmark-build.
type Build struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Version is a server build's version (the word after "Ver" in its
	// --version text); "" for a benchmark build. SHA256 is the binary's
	// digest (hex), so a binary replaced at the same path is a change of
	// the study's fingerprint; both "" when not recorded.
	Version string `json:"version,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
}

// Baseline is the user's my.cnf (--baseline-cnf) as trial 0 sees it.
type Baseline struct {
	// File is the path given.
	File string `json:"file"`
	// Config holds the knob values the file sets for the server, canonical.
	Config space.Config `json:"config"`
	// Notes say what was not carried over and why (not stored).
	Notes []string `json:"-"`
}

// MeasureManifest are the measurement settings of a study (the flags of
// the same names; see docs/measurement.md).
type MeasureManifest struct {
	// Objective is tps, qps or p95; MaxP95MS the p95 limit in ms (0:
	// none); DipShare the share of the median under which a second dips.
	Objective string  `json:"objective"`
	MaxP95MS  float64 `json:"max_p95_ms"`
	DipShare  float64 `json:"dip_share"`
	// Confirm, RecheckEvery, ABPairs and ABShare are the re-measurement
	// policy (0 everywhere: none; Confirm −1: search.ConfirmAuto).
	Confirm      int     `json:"confirm"`
	RecheckEvery int     `json:"recheck_every"`
	ABPairs      int     `json:"ab_pairs"`
	ABShare      float64 `json:"ab_share"`
	// BenchCmd is the --bench-cmd command line ("" for sysbench).
	BenchCmd string `json:"bench_cmd,omitempty"`
	// SteadyBlockS (seconds), SteadySpread and SteadyTrend tune warm-up
	// detection.
	SteadyBlockS int     `json:"steady_block_s"`
	SteadySpread float64 `json:"steady_spread"`
	SteadyTrend  float64 `json:"steady_trend"`
	// WarmupMaxS is the longest warm-up in seconds when the series still
	// moves at the cap (0 when not recorded).
	WarmupMaxS float64 `json:"warmup_max_s,omitempty"`
	// ColdStart is set when trials start with an empty buffer pool
	// (sandbox trials load the snapshot's page list otherwise).
	ColdStart bool `json:"cold_start,omitempty"`
	// ScoreRule names the score formula's version (measure.ScoreRuleVersion;
	// "" for studies scored with the per-second standard deviation).
	ScoreRule string `json:"score_rule,omitempty"`
}

// JSON returns the manifest as stored in studies.settings.
func (m Manifest) JSON() string {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return string(b)
}

// Manifest returns the study's manifest. Empty settings give the zero
// manifest; settings that are not a manifest are an error naming the
// study.
func (s StudyRecord) Manifest() (Manifest, error) {
	var m Manifest
	if s.Settings == "" {
		return m, nil
	}
	if err := json.Unmarshal([]byte(s.Settings), &m); err != nil {
		return m, fmt.Errorf("study %q: settings are not a manifest: %w", s.Name, err)
	}
	return m, nil
}

// Goal returns the objective the study optimised (its manifest's; tps
// when the manifest does not say or cannot be read).
func (s StudyRecord) Goal() measure.Goal {
	if m, err := s.Manifest(); err == nil && m.Measure.Objective != "" {
		return measure.Goal(m.Measure.Objective)
	}
	return measure.GoalTPS
}

// ManifestChange is one field of a manifest that differs between two runs.
type ManifestChange struct {
	// Field is the JSON key path ("measure.confirm").
	Field string
	// Old and New are the values as JSON text ("" when absent).
	Old, New string
}

// Diff returns the fields whose values differ from m to n, sorted by key.
// The benchmark definitions are compared by benchdef.Definition.Diff, one
// change per option ("definition --warehouses", "definition version"),
// unless m has none (a study made before definitions were recorded); an
// AIO backend is compared only when m has one, for the same reason.
func (m Manifest) Diff(n Manifest) []ManifestChange {
	var a, b map[string]any
	_ = json.Unmarshal([]byte(m.JSON()), &a)
	_ = json.Unmarshal([]byte(n.JSON()), &b)
	delete(a, "definition")
	delete(b, "definition")
	if m.AIOBackend == "" {
		// A study made before backends were recorded.
		delete(b, "aio_backend")
	}
	var out []ManifestChange
	diffMaps("", a, b, &out)
	if m.Definition != nil {
		var nd benchdef.Definition
		if n.Definition != nil {
			nd = *n.Definition
		}
		for _, c := range m.Definition.Diff(nd) {
			out = append(out, ManifestChange{Field: "definition " + c.What, Old: c.Old, New: c.New})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func diffMaps(prefix string, a, b map[string]any, out *[]ManifestChange) {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for k := range keys {
		va, vb := a[k], b[k]
		ma, okA := va.(map[string]any)
		mb, okB := vb.(map[string]any)
		if okA && okB {
			diffMaps(prefix+k+".", ma, mb, out)
			continue
		}
		if !reflect.DeepEqual(va, vb) {
			*out = append(*out, ManifestChange{Field: prefix + k, Old: jsonText(va), New: jsonText(vb)})
		}
	}
}

func jsonText(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
