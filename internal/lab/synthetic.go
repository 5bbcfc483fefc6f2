package lab

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/strategy"
)

// Synthetic is a landscape shaped like tuning MariaDB 10.11 for
// oltp_read_write on the reference machine (2 cores, 24 GiB, a 1.1 GB
// dataset, ~3500 fsync/s), its effect sizes those measured on that
// machine (docs/measurement.md) where measured:
//
//   - buffer pool: +56 % once the data fits (smooth in log size below);
//   - flush method: fsync +23 % with a small pool (the OS page cache holds
//     the data), −3 % once the pool holds it; O_DSYNC −8 %;
//   - flush_log_at_trx_commit 2: +9 %, 0: +11 %; doublewrite OFF +3 %, and
//     +3 % more when both are relaxed (the measured "combo" beat the sum);
//   - redo log: up to +5 % from 96M to 1G, only with a pool that holds the
//     data; io_capacity: up to +4 % near half the fsync rate and −5 % past
//     10000, only with a big pool (dirty-page flushing; the default 200
//     is neutral, as the measured +56 % of a 4G pool alone says);
//   - small effects: dirty pages under 40 % (down to −10 %), purge threads
//     over 8 on 2 cores (−3 %), log buffer under 4M (−4 %), adaptive hash
//     index −2 %, change buffering ±1 %, flush neighbours ±1 %;
//   - crashes: O_DSYNC with a log buffer under 4M, and a pool over 6G with
//     a redo log over 1G (the memory overcommit of the region);
//   - noise: each measurement is the true score × (1 + 0.10·N(0,1)).
//
// With Extra > 0 the space gets that many extra knobs of every kind, of
// which every sixth moves the score by 1 % and the rest do nothing: the
// "many knobs that do not matter" of a 36-knob catalogue.
type Synthetic struct {
	name   string
	sp     *space.Space
	noise  float64
	best   float64
	expert space.Config
	extra  int
}

// Reference host and dataset of the synthetic landscapes.
const (
	synthRAM   = 24 << 30
	synthData  = 1100 << 20
	synthFsync = 3500.0
)

// NewSynthetic returns the synthetic landscape with extra inert knobs
// (0 for the first space's 12 knobs).
func NewSynthetic(extra int) (*Synthetic, error) {
	first, err := space.FirstSpace()
	if err != nil {
		return nil, err
	}
	ks := append([]space.Knob(nil), first.Knobs()...)
	for i := 0; i < extra; i++ {
		name := fmt.Sprintf("extra_%02d", i+1)
		var k space.Knob
		switch i % 4 {
		case 0:
			k = space.Knob{Name: name, Kind: space.Int, Min: 1, Max: 64, Step: 1, Default: "8"}
		case 1:
			k = space.Knob{Name: name, Kind: space.Bytes, Min: 1 << 20, Max: 1 << 30, Scale: space.Log, Step: 1 << 20, Default: "16777216"}
		case 2:
			k = space.Knob{Name: name, Kind: space.Enum, Choices: []string{"a", "b", "c"}, Default: "a"}
		case 3:
			k = space.Knob{Name: name, Kind: space.Bool, Default: "OFF"}
		}
		k.Group, k.Source, k.Help = "synthetic", "harness", "synthetic knob"
		ks = append(ks, k)
	}
	sp, err := space.New(ks)
	if err != nil {
		return nil, err
	}
	if err := sp.Limit("innodb_buffer_pool_size", synthRAM/2); err != nil {
		return nil, err
	}
	s := &Synthetic{name: "db", sp: sp, noise: 0.10, extra: extra}
	if extra > 0 {
		s.name = fmt.Sprintf("db+%d", extra)
	}
	s.expert, _, err = strategy.ExpertConfig(sp, strategy.ExpertInput{RAMBytes: synthRAM, DataBytes: synthData, FsyncPerSec: synthFsync})
	if err != nil {
		return nil, err
	}
	_, s.best = optimum(sp, s.True, 20000, 1, s.expert)
	return s, nil
}

// Name implements Landscape.
func (s *Synthetic) Name() string { return s.name }

// Space implements Landscape.
func (s *Synthetic) Space() *space.Space { return s.sp }

// Best implements Landscape.
func (s *Synthetic) Best() float64 { return s.best }

// Expert implements Landscape.
func (s *Synthetic) Expert() space.Config { return s.expert.Clone() }

// Measure implements Landscape.
func (s *Synthetic) Measure(ctx context.Context, cfg space.Config, rng *rand.Rand) (float64, bool, error) {
	v, ok := s.True(cfg)
	if !ok {
		return 0, true, nil
	}
	return math.Max(0, v*(1+s.noise*rng.NormFloat64())), false, nil
}

// Noise implements Noisy.
func (s *Synthetic) Noise() float64 { return s.noise }

// True implements Landscape: the noise-free tps, ok false in the crashing
// region.
func (s *Synthetic) True(cfg space.Config) (float64, bool) {
	num := func(name string) float64 {
		k, _ := s.sp.Knob(name)
		v, ok := cfg[name]
		if !ok {
			v = k.Default
		}
		f, _ := k.Float(v)
		return f
	}
	str := func(name string) string {
		if v, ok := cfg[name]; ok {
			return v
		}
		k, _ := s.sp.Knob(name)
		return k.Default
	}
	bp, logf, logb := num("innodb_buffer_pool_size"), num("innodb_log_file_size"), num("innodb_log_buffer_size")
	fm := str("innodb_flush_method")
	if (fm == "O_DSYNC" && logb < 4<<20) || (bp > 6<<30 && logf > 1<<30) {
		return 0, false
	}
	fit := math.Log(bp/(128<<20)) / math.Log(1.25*synthData/(128<<20))
	g := math.Pow(math.Min(1, math.Max(0, fit)), 1.3)
	m := 1 + 0.56*g
	switch fm {
	case "fsync":
		m *= 1 + 0.23*(1-g) - 0.03*g
	case "O_DSYNC":
		m *= 0.92
	case "O_DIRECT_NO_FSYNC":
		m *= 1.02
	}
	relaxed := str("innodb_flush_log_at_trx_commit") != "1"
	switch str("innodb_flush_log_at_trx_commit") {
	case "2":
		m *= 1.09
	case "0":
		m *= 1.11
	}
	if str("innodb_doublewrite") == "OFF" {
		m *= 1.03
		if relaxed {
			m *= 1.03
		}
	}
	logGain := math.Min(1, math.Max(0, math.Log2(logf/(96<<20))/math.Log2(1024.0/96)))
	m *= 1 + 0.05*g*logGain
	if logf < 64<<20 {
		m *= 1 - 0.06*g
	}
	io := num("innodb_io_capacity")
	m *= 1 + g*(0.04*math.Exp(-math.Pow(math.Log10(io/(synthFsync/2)), 2)/0.3)-0.05*math.Min(1, math.Max(0, math.Log2(io/10000))))
	if d := num("innodb_max_dirty_pages_pct"); d < 40 {
		m *= 1 - 0.10*(40-d)/30
	}
	if p := num("innodb_purge_threads"); p > 8 {
		m *= 1 - 0.03*(p-8)/24
	}
	if logb < 4<<20 {
		m *= 1 - 0.04*(1-math.Log2(logb/(2<<20)))
	}
	if str("innodb_adaptive_hash_index") == "ON" {
		m *= 0.98
	}
	switch str("innodb_change_buffering") {
	case "all", "changes", "inserts":
		m *= 1.01
	case "purges":
		m *= 0.99
	}
	switch str("innodb_flush_neighbors") {
	case "0":
		m *= 1.01
	case "2":
		m *= 0.99
	}
	for i := 0; i < s.extra; i += 6 {
		k := s.sp.Knobs()[len(space.FirstKnobs)+i]
		v, ok := cfg[k.Name]
		if !ok {
			v = k.Default
		}
		u := search.Encode(s.sp, space.Config{k.Name: v})[len(space.FirstKnobs)+i]
		m *= 1 + 0.01*u
	}
	return 500 * m, true
}
