package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/strategy"
)

// HostInput describes the host and policy a harness space stands for.
type HostInput struct {
	// Cores is the number of logical CPUs (cpu_placement needs 2 or more;
	// ≤ 0 means 2, the reference machine).
	Cores int
	// RAMBytes is the host's RAM; the buffer pool is limited to half of it
	// (≤ 0: 24 GiB, the reference machine).
	RAMBytes int64
	// Durability is the study's policy: Relaxed offers
	// innodb_flush_log_at_trx_commit and innodb_doublewrite ("": Strict).
	Durability space.Durability
}

// HostSpace returns the space a study on MariaDB 10.11 searches on a host
// like in: the catalogue resolved with both preloadable allocators
// (tcmalloc, jemalloc), taskset for CPU placement, the given cores and
// durability policy, the buffer pool limited to half the RAM. It is the
// space `autotune search` offers on the reference machine with
// libtcmalloc-minimal4 and libjemalloc2 installed (34 knobs under strict
// durability, 36 under relaxed), so a landscape over it can reach every
// optimum a study could.
func HostSpace(in HostInput) (*space.Space, error) {
	if in.Cores <= 0 {
		in.Cores = 2
	}
	if in.RAMBytes <= 0 {
		in.RAMBytes = synthRAM
	}
	if in.Durability == "" {
		in.Durability = space.Strict
	}
	sp, err := space.Resolve(space.Catalogue(), space.Env{
		Version:    space.Version{Flavor: space.MariaDB, Major: 10, Minor: 11},
		Allocators: map[string]string{"tcmalloc": "libtcmalloc_minimal.so.4", "jemalloc": "libjemalloc.so.2"},
		Cores:      in.Cores, Taskset: true, Durability: in.Durability,
	})
	if err != nil {
		return nil, err
	}
	if err := sp.Limit("innodb_buffer_pool_size", float64(in.RAMBytes/2)); err != nil {
		return nil, err
	}
	return sp, nil
}

// studyDurability returns the durability policy a study's settings JSON
// names (settings.space.durability), Strict when it names none.
func studyDurability(settings string) space.Durability {
	var s struct {
		Space struct {
			Durability string `json:"durability"`
		} `json:"space"`
	}
	if json.Unmarshal([]byte(settings), &s) != nil {
		return space.Strict
	}
	d, err := space.ParseDurability(s.Space.Durability)
	if err != nil {
		return space.Strict
	}
	return d
}

// Host is a landscape over the whole host space (HostSpace: 34 knobs under
// strict durability) shaped like this machine's MariaDB 10.11 + sysbench
// oltp_read_write measurements (docs/measurement.md), and deliberately
// unlike the Synthetic landscape the hybrid's defaults were chosen on:
//
//   - buffer pool: +60 %, saturating once the pool holds 1.6 × the data
//     (the expert warm start's 1.25 × gets 86 % of it);
//   - io_capacity × max_dirty_pages_pct: up to +6 % with io_capacity near
//     1500 and a high dirty-page limit, down to −8 % with io_capacity past
//     5000 and a low limit (both only with a big pool);
//   - purge threads: an interior optimum at 2 (+3 %), −4 % at 32;
//   - redo log: up to +5 % from 64M to 1G (with a big pool);
//   - flush method: O_DIRECT_NO_FSYNC +3 %, O_DSYNC −10 %, fsync +15 %
//     with a small pool and −4 % with a big one;
//   - environment: cpu_placement=split −38 % (pinning on 2 cores), TCP
//     −11 %, tcmalloc +3 %, jemalloc +2 %;
//   - thread pool: pool-of-threads with thread_pool_size 2–3 +3 %, −3 %
//     with a large pool;
//   - small effects: READ-COMMITTED +2 %, adaptive hash index −2 %, query
//     cache ON −5 % (DEMAND −2 %), performance_schema −3 %;
//   - crash: a memory limit: buffer pool + query cache + 4 × log buffer
//     over 6 GiB does not start;
//   - the other 14 knobs do nothing;
//   - noise: each measurement is the true score × (1 + 0.06·N(0,1)).
type Host struct {
	sp     *space.Space
	best   float64
	expert space.Config
	noise  float64
}

// NewHost returns the Host landscape.
func NewHost() (*Host, error) {
	sp, err := HostSpace(HostInput{})
	if err != nil {
		return nil, err
	}
	h := &Host{sp: sp, noise: 0.06}
	h.expert, _, err = strategy.ExpertConfig(sp, strategy.ExpertInput{RAMBytes: synthRAM, DataBytes: synthData, FsyncPerSec: synthFsync})
	if err != nil {
		return nil, err
	}
	_, h.best = optimum(sp, h.True, 20000, 1, h.expert)
	return h, nil
}

// Name implements Landscape.
func (h *Host) Name() string { return "host" }

// Space implements Landscape.
func (h *Host) Space() *space.Space { return h.sp }

// Best implements Landscape.
func (h *Host) Best() float64 { return h.best }

// Expert implements Landscape.
func (h *Host) Expert() space.Config { return h.expert.Clone() }

// Measure implements Landscape.
func (h *Host) Measure(ctx context.Context, cfg space.Config, rng *rand.Rand) (float64, bool, error) {
	return noisy(h.True, h.noise, cfg, rng)
}

// Noise implements Noisy.
func (h *Host) Noise() float64 { return h.noise }

// noisy measures f at cfg with relative Gaussian noise.
func noisy(f func(space.Config) (float64, bool), noise float64, cfg space.Config, rng *rand.Rand) (float64, bool, error) {
	v, ok := f(cfg)
	if !ok {
		return 0, true, nil
	}
	return math.Max(0, v*(1+noise*rng.NormFloat64())), false, nil
}

// reader returns accessors for cfg's numeric and string values (absent
// knobs at their default).
func reader(sp *space.Space, cfg space.Config) (num func(string) float64, str func(string) string) {
	str = func(name string) string {
		if v, ok := cfg[name]; ok {
			return v
		}
		k, _ := sp.Knob(name)
		return k.Default
	}
	num = func(name string) float64 {
		k, ok := sp.Knob(name)
		if !ok {
			return 0
		}
		f, _ := k.Float(str(name))
		return f
	}
	return num, str
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// True implements Landscape: the noise-free tps, ok false in the crashing
// region.
func (h *Host) True(cfg space.Config) (float64, bool) {
	num, str := reader(h.sp, cfg)
	bp, qc, lb := num("innodb_buffer_pool_size"), num("query_cache_size"), num("innodb_log_buffer_size")
	if bp+qc+4*lb > 6<<30 {
		return 0, false
	}
	g := math.Pow(clamp01(math.Log(bp/(128<<20))/math.Log(1.6*synthData/(128<<20))), 1.5)
	m := 1 + 0.6*g
	switch str("innodb_flush_method") {
	case "fsync":
		m *= 1 + 0.15*(1-g) - 0.04*g
	case "O_DSYNC":
		m *= 0.90
	case "O_DIRECT_NO_FSYNC":
		m *= 1.03
	}
	a := math.Log10(num("innodb_io_capacity") / 1500)
	d := (num("innodb_max_dirty_pages_pct") - 10) / 89
	m *= 1 + g*(0.06*math.Exp(-a*a/0.15)*d-0.08*clamp01((a-0.5)/0.6)*(1-d))
	p := math.Log2(num("innodb_purge_threads"))
	m *= 1 + 0.03*math.Exp(-(p-1)*(p-1)/0.5) - 0.04*clamp01((p-2)/3)
	m *= 1 + 0.05*g*clamp01(math.Log2(num("innodb_log_file_size")/(64<<20))/4)
	if str("cpu_placement") == "split" {
		m *= 0.62
	}
	if str("benchmark_connection") == "tcp" {
		m *= 0.89
	}
	switch str("allocator") {
	case "tcmalloc":
		m *= 1.03
	case "jemalloc":
		m *= 1.02
	}
	if str("thread_handling") == "pool-of-threads" {
		t := math.Log2(num("thread_pool_size") / 2.5)
		m *= 1 + 0.06*math.Exp(-t*t/0.6) - 0.03
	}
	if str("transaction_isolation") == "READ-COMMITTED" {
		m *= 1.02
	}
	if str("innodb_adaptive_hash_index") == "ON" {
		m *= 0.98
	}
	switch str("query_cache_type") {
	case "ON":
		m *= 0.95
	case "DEMAND":
		m *= 0.98
	}
	if str("performance_schema") == "ON" {
		m *= 0.97
	}
	return 450 * m, true
}

// Sparse is a landscape of many knobs of which few matter: the host space
// under relaxed durability (36 knobs), of which five move the score:
//
//   - buffer pool: +50 %, saturating once the pool holds 1.3 × the data;
//   - innodb_flush_log_at_trx_commit 2: +8 %, 0: +10 %; doublewrite OFF
//     +2 % alone and +6 % with a relaxed flush_log_at_trx_commit (the
//     interaction);
//   - innodb_lru_scan_depth: an interior optimum near 300 (+3 %; −2 % far
//     from it, the default 1536 included);
//   - innodb_old_blocks_pct: an interior optimum near 20 (+3 %, −1 % far
//     from it);
//   - no crash; 31 knobs do nothing;
//   - noise: each measurement is the true score × (1 + 0.08·N(0,1)).
type Sparse struct {
	sp     *space.Space
	best   float64
	expert space.Config
	noise  float64
}

// NewSparse returns the Sparse landscape.
func NewSparse() (*Sparse, error) {
	sp, expert, err := relaxedHost()
	if err != nil {
		return nil, err
	}
	s := &Sparse{sp: sp, noise: 0.08, expert: expert}
	_, s.best = optimum(sp, s.True, 20000, 1, s.expert)
	return s, nil
}

// relaxedHost returns the reference host's space under relaxed durability
// (HostSpace: 36 knobs) and its expert warm start (strategy.ExpertConfig
// for the reference host and dataset).
func relaxedHost() (*space.Space, space.Config, error) {
	sp, err := HostSpace(HostInput{Durability: space.Relaxed})
	if err != nil {
		return nil, nil, err
	}
	expert, _, err := strategy.ExpertConfig(sp, strategy.ExpertInput{RAMBytes: synthRAM, DataBytes: synthData, FsyncPerSec: synthFsync})
	if err != nil {
		return nil, nil, err
	}
	return sp, expert, nil
}

// Name implements Landscape.
func (s *Sparse) Name() string { return fmt.Sprintf("sparse (%d knobs, 5 matter)", len(s.sp.Knobs())) }

// Space implements Landscape.
func (s *Sparse) Space() *space.Space { return s.sp }

// Best implements Landscape.
func (s *Sparse) Best() float64 { return s.best }

// Expert implements Landscape.
func (s *Sparse) Expert() space.Config { return s.expert.Clone() }

// Measure implements Landscape.
func (s *Sparse) Measure(ctx context.Context, cfg space.Config, rng *rand.Rand) (float64, bool, error) {
	return noisy(s.True, s.noise, cfg, rng)
}

// Noise implements Noisy.
func (s *Sparse) Noise() float64 { return s.noise }

// True implements Landscape: the noise-free tps (it never crashes).
func (s *Sparse) True(cfg space.Config) (float64, bool) {
	num, str := reader(s.sp, cfg)
	g := math.Pow(clamp01(math.Log(num("innodb_buffer_pool_size")/(128<<20))/math.Log(1.3*synthData/(128<<20))), 1.3)
	m := 1 + 0.5*g
	relaxed := str("innodb_flush_log_at_trx_commit") != "1"
	switch str("innodb_flush_log_at_trx_commit") {
	case "2":
		m *= 1.08
	case "0":
		m *= 1.10
	}
	if str("innodb_doublewrite") == "OFF" {
		if relaxed {
			m *= 1.06
		} else {
			m *= 1.02
		}
	}
	l := math.Log2(num("innodb_lru_scan_depth") / 300)
	m *= 1 + 0.05*math.Exp(-l*l) - 0.02
	o := (num("innodb_old_blocks_pct") - 20) / 12
	m *= 1 + 0.04*math.Exp(-o*o) - 0.01
	return 500 * m, true
}
