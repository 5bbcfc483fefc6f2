package search

import (
	"context"
	"strconv"
	"testing"

	"github.com/autotune/autotune/space"
)

// telling wraps a strategy and records every value it is told, by
// configuration.
type telling struct {
	Strategy
	told map[string][]float64
}

func (s *telling) Tell(ctx context.Context, p Proposal, v float64) error {
	if s.told == nil {
		s.told = map[string][]float64{}
	}
	s.told[p.Config.Key()] = append(s.told[p.Config.Key()], v)
	return s.Strategy.Tell(ctx, p, v)
}

// Seeds are measured right after the baseline, in order and before the
// expert warm start, each recorded with its source; the strategy is told
// their measured values like any trial's; a resumed study (its seeds
// named again, one study seed's best since moved) measures none again.
func TestSeedsMeasuredAfterTheBaselineAndTold(t *testing.T) {
	store := newMemStore()
	cnf := space.Config{"innodb_buffer_pool_size": strconv.Itoa(1 << 30), "innodb_io_capacity": "1000"}
	old := space.Config{"innodb_buffer_pool_size": strconv.Itoa(768 << 20), "innodb_flush_log_at_trx_commit": "2"}
	expert := space.Config{"innodb_buffer_pool_size": strconv.Itoa(2 << 30)}
	run := func(n int, oldSeed space.Config) (Result, *telling) {
		t.Helper()
		s := newStudy(t, store, landscape(3), int64(n))
		tell := &telling{Strategy: s.Strategy}
		s.Strategy, s.MaxTrials = tell, n
		s.WarmStart = []Proposal{
			{Config: cnf, Kind: Seed, Source: "prod.cnf"},
			{Config: oldSeed, Kind: Seed, Source: "old.db:s1"},
			{Config: expert, Kind: Expert},
		}
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return res, tell
	}
	res, tell := run(5, old)
	want := []struct {
		kind   Kind
		source string
		cfg    space.Config
	}{{Baseline, "", space.Config{}}, {Seed, "prod.cnf", cnf}, {Seed, "old.db:s1", old}, {Expert, "", expert}, {Sampled, "", nil}}
	for i, w := range want {
		tr := res.Trials[i]
		if tr.Kind != w.kind || tr.Source != w.source || (w.cfg != nil && tr.Params.Key() != w.cfg.Key()) {
			t.Fatalf("trial %d: %s %q %v, want %s %q %v", i, tr.Kind, tr.Source, tr.Params, w.kind, w.source, w.cfg)
		}
		if w.cfg == nil {
			continue
		}
		got := tell.told[tr.Params.Key()]
		if len(got) != 1 || got[0] != tr.Score {
			t.Errorf("trial %d (%s): strategy told %v, want its score %.2f", i, tr.Kind, got, tr.Score)
		}
	}
	// Resumed with the same --seed-from values; the old study's best has
	// moved since: still the same seed, not measured again.
	moved := old.Clone()
	moved["innodb_io_capacity"] = "3000"
	res, _ = run(8, moved)
	seeds := 0
	for _, tr := range res.Trials {
		if tr.Kind == Seed {
			seeds++
		}
	}
	if seeds != 2 || len(res.Trials) != 8 {
		t.Fatalf("%d seed trials in %d, want the 2 seeds measured once", seeds, len(res.Trials))
	}
}

// Two seeds with one configuration are measured once.
func TestSeedQueuedOnce(t *testing.T) {
	c := space.Config{"innodb_io_capacity": "1000"}
	q := warmStart(nil, pending(nil), []Proposal{{Config: c, Kind: Seed, Source: "a.cnf"}, {Config: c, Kind: Seed, Source: "b.cnf"}}, nil)
	if len(q) != 2 || q[1].Source != "a.cnf" {
		t.Fatalf("queue %+v, want the baseline and a.cnf", q)
	}
}

// A seeded study reaches the seed's performance by its second trial: on a
// scripted landscape with 5 % noise where the seed (a buffer pool that
// holds the dataset) is worth +70 %, trial 1 is the seed and the best
// after two trials is at the seed's level, whatever the noise's draw.
func TestSeededStudyReachesTheSeedBySecondTrial(t *testing.T) {
	seed := space.Config{"innodb_buffer_pool_size": strconv.Itoa(2 << 30)}
	// The landscape's noise-free values: the baseline 500 tps, the seed
	// 500 + 350 (the pool holds the data).
	const seedTPS, baseTPS = 850.0, 500.0
	for rng := uint64(1); rng <= 5; rng++ {
		s := newStudy(t, newMemStore(), landscape(rng), int64(rng))
		s.MaxTrials = 2
		s.WarmStart = []Proposal{{Config: seed, Kind: Seed, Source: "old.db:s1"}}
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Trials[1].Kind != Seed || res.Trials[1].Params.Key() != seed.Key() {
			t.Fatalf("trial 1 = %s %v, want the seed", res.Trials[1].Kind, res.Trials[1].Params)
		}
		// 5 % noise: the band is four standard deviations either side.
		if b := res.Best.MeanTPS; b < seedTPS*0.8 || b > seedTPS*1.2 || res.Best.Number != 1 {
			t.Errorf("landscape %d: best after 2 trials is trial %d at %.0f tps, want the seed's %.0f (baseline %.0f)", rng, res.Best.Number, b, seedTPS, baseTPS)
		}
	}
}
