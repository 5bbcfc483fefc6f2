package strategy

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/testspace"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

const mib = 1 << 20

// levelsWith returns one thread level whose metrics are m (name: value).
func levelsWith(m map[string]float64) []measure.Level {
	ms := measure.Metrics{}
	for k, v := range m {
		ms[k] = &v
	}
	return []measure.Level{{Threads: 16, Metrics: ms}}
}

// spaceWith returns a space of the catalogue's knobs named, and of
// innodb_log_file_size renamed for each name in as (a knob the catalogue
// does not have: innodb_redo_log_capacity).
func spaceWith(t *testing.T, names []string, as ...string) *space.Space {
	t.Helper()
	var ks []space.Knob
	for _, k := range space.Lookup().All() {
		if slices.Contains(names, k.Name) {
			ks = append(ks, k)
		}
		if k.Name == "innodb_log_file_size" {
			for _, n := range as {
				k.Name = n
				ks = append(ks, k)
			}
		}
	}
	sp, err := space.New(ks)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestDiagnose(t *testing.T) {
	first := testspace.First(t)
	redo64 := space.Config{"innodb_log_file_size": strconv.Itoa(64 * mib)}
	for _, c := range []struct {
		name    string
		sp      *space.Space
		cfg     space.Config
		metrics map[string]float64
		want    string
	}{
		{"checkpoint age at 80 % of the redo log", first, redo64, map[string]float64{"checkpoint_age_bytes_max": 51 * mib},
			"innodb_log_file_size x2: the checkpoint age peaked at 51M, 80 % of the 64M redo log"},
		{"a peak in bytes, shown in whole MiB", first, redo64, map[string]float64{"checkpoint_age_bytes_max": 50645687},
			"innodb_log_file_size x2: the checkpoint age peaked at 48M, 75 % of the 64M redo log"},
		{"at two thirds", first, redo64, map[string]float64{"checkpoint_age_bytes_max": 43 * mib},
			"innodb_log_file_size x2: the checkpoint age peaked at 43M, 67 % of the 64M redo log"},
		{"below two thirds", first, redo64, map[string]float64{"checkpoint_age_bytes_max": 40 * mib}, ""},
		{"the default redo log (96M)", first, space.Config{}, map[string]float64{"checkpoint_age_bytes_max": 68 * mib},
			"innodb_log_file_size x2: the checkpoint age peaked at 68M, 71 % of the 96M redo log"},
		{"not reported", first, redo64, map[string]float64{"tps": 1000}, ""},
		{"log waits", first, redo64, map[string]float64{"checkpoint_age_bytes_max": 10 * mib, "log_waits": 3},
			"innodb_log_buffer_size x2: 3 waits for log buffer space"},
		{"no log waits", first, redo64, map[string]float64{"log_waits": 0}, ""},
		{"two log files (MySQL before 8.0.30)", spaceWith(t, []string{"innodb_log_file_size", "innodb_log_files_in_group"}),
			space.Config{"innodb_log_file_size": strconv.Itoa(64 * mib), "innodb_log_files_in_group": "2"},
			map[string]float64{"checkpoint_age_bytes_max": 51 * mib}, ""},
		{"innodb_redo_log_capacity (MySQL 8.0.30+)", spaceWith(t, []string{"innodb_log_file_size"}, "innodb_redo_log_capacity"),
			space.Config{"innodb_redo_log_capacity": strconv.Itoa(128 * mib), "innodb_log_file_size": strconv.Itoa(1024 * mib)},
			map[string]float64{"checkpoint_age_bytes_max": 100 * mib},
			"innodb_redo_log_capacity x2: the checkpoint age peaked at 100M, 78 % of the 128M redo log"},
		{"no redo knob searched", spaceWith(t, []string{"innodb_buffer_pool_size"}), space.Config{},
			map[string]float64{"checkpoint_age_bytes_max": 1024 * mib, "log_waits": 5}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, h := range Diagnose(c.sp, c.cfg, levelsWith(c.metrics)) {
				got = append(got, h.Knob+" x"+strconv.FormatFloat(h.Ratio, 'g', -1, 64)+": "+h.Why)
			}
			if s := strings.Join(got, "; "); s != c.want {
				t.Errorf("hints %q, want %q", s, c.want)
			}
		})
	}
	if hs := Diagnose(first, redo64, nil); hs != nil {
		t.Errorf("no levels: hints %v", hs)
	}
}

// TestHybridDoublesTheRedoLogWhileItsCheckpointAgeBinds: a warm start
// whose run shows the checkpoint age at the redo log's flushing mark has
// its redo log doubled before any other probe, and doubled again while
// the new incumbent's run says the same; without metrics the probes keep
// their order (the buffer pool first).
func TestHybridDoublesTheRedoLogWhileItsCheckpointAgeBinds(t *testing.T) {
	sp := testspace.First(t)
	m := func(n int) string { return strconv.Itoa(n * mib) }
	start := space.Config{"innodb_io_capacity": "3000", "innodb_log_file_size": m(64), "innodb_buffer_pool_size": m(256)}
	// The redo log pays up to 256M; everything else loses. The checkpoint
	// age peaks at 48M, or at the redo log's 75 % when smaller.
	value := func(cfg space.Config) (float64, []measure.Level) {
		full := search.FullConfig(sp, cfg)
		redo, _ := strconv.Atoi(full["innodb_log_file_size"])
		v := 1000.0
		switch full["innodb_log_file_size"] {
		case m(128):
			v = 1050
		case m(256):
			v = 1100
		}
		if full["innodb_buffer_pool_size"] != m(256) || full["innodb_io_capacity"] != "3000" {
			v *= 0.95
		}
		return v, levelsWith(map[string]float64{"checkpoint_age_bytes_max": min(0.75*float64(redo), 150*mib)})
	}
	run := func(metrics bool) []string {
		h := NewHybrid(sp, HybridOptions{Seed: 1, Horizon: 12, Starts: []space.Config{start}})
		var refines []string
		tell := func(cfg space.Config, v float64, ls []measure.Level) {
			if err := h.Observe(cfg, v); err != nil {
				t.Fatal(err)
			}
			if metrics {
				h.ObserveMetrics(cfg, ls)
			}
		}
		for _, cfg := range []space.Config{{}, start} {
			v, ls := value(cfg)
			tell(cfg, v, ls)
		}
		for range 14 {
			p, err := h.Ask(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			v, ls := value(p.Config)
			if p.Kind == search.Screen {
				v = 20 // far below: the screening is dropped
			}
			if p.Kind == search.Refine {
				full := search.FullConfig(sp, p.Config)
				refines = append(refines, full["innodb_buffer_pool_size"]+"/"+full["innodb_log_file_size"]+"/"+full["innodb_io_capacity"])
			}
			tell(p.Config, v, ls)
		}
		return refines
	}
	got := run(true)
	want := []string{m(256) + "/" + m(128) + "/3000", m(256) + "/" + m(256) + "/3000"}
	if len(got) < 3 || !slices.Equal(got[:2], want) {
		t.Fatalf("probes with metrics %v, want %v first", got, want)
	}
	// At 256M the peak (150M) is under two thirds: no more doubling; the
	// other probes follow from the new incumbent.
	if slices.Contains(got, m(256)+"/"+m(512)+"/3000") {
		t.Fatalf("probes %v: the redo log doubled past the point where its checkpoint age binds", got)
	}
	for _, w := range []string{m(320) + "/" + m(256) + "/3000", m(256) + "/" + m(256) + "/6000"} {
		if !slices.Contains(got[2:], w) {
			t.Fatalf("probes %v: want %s, a probe from the new incumbent, after the redo log", got, w)
		}
	}
	if plain := run(false); len(plain) == 0 || plain[0] != m(320)+"/"+m(64)+"/3000" {
		t.Fatalf("probes without metrics %v, want the pool first", plain)
	}
}

// metricsStrategy proposes io_capacity 1000 × seed + n on its n-th
// proposal and records the checkpoint ages it is given with their
// configurations.
type metricsStrategy struct {
	seed  int64
	asked int
	got   []string
}

func (m *metricsStrategy) Ask(context.Context) (search.Proposal, error) {
	m.asked++
	return search.Proposal{Config: space.Config{"innodb_io_capacity": strconv.FormatInt(1000*m.seed+int64(m.asked), 10)}, Kind: search.Sampled, Handle: -1}, nil
}
func (m *metricsStrategy) Tell(context.Context, search.Proposal, float64) error { return nil }
func (m *metricsStrategy) Observe(space.Config, float64) error                  { return nil }

func (m *metricsStrategy) ObserveMetrics(cfg space.Config, levels []measure.Level) {
	v, _ := levelMax(levels, "checkpoint_age_bytes_max")
	m.got = append(m.got, cfg.Key()+"="+strconv.FormatFloat(v, 'f', 0, 64))
}

// TestStudyGivesTheStrategyEachTrialsMetrics: a study gives a strategy that
// reads metrics those of every complete trial it tells, and a resumed
// study those of the history.
func TestStudyGivesTheStrategyEachTrialsMetrics(t *testing.T) {
	ctx := context.Background()
	store := &search.MemoryStore{}
	obj := func(ctx context.Context, tr search.Trial) (measure.Outcome, error) {
		var o measure.Outcome
		o.Score, o.MeanTPS = 100, 100
		o.Levels = levelsWith(map[string]float64{"checkpoint_age_bytes_max": float64(10 * (tr.Number + 1))})
		return o, nil
	}
	ms := &metricsStrategy{seed: 1}
	s := &search.Loop{Name: "m", Strategy: ms, Objective: obj, Store: store, MaxTrials: 3}
	if _, err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"=10", "innodb_io_capacity=1001=20", "innodb_io_capacity=1002=30"}
	if !slices.Equal(ms.got, want) {
		t.Fatalf("metrics given %v, want %v", ms.got, want)
	}
	resumed := &metricsStrategy{seed: 2}
	s = &search.Loop{Name: "m", Strategy: resumed, Objective: obj, Store: store, MaxTrials: 3}
	if _, err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resumed.got, want) {
		t.Fatalf("metrics replayed %v, want %v", resumed.got, want)
	}
}
