package strategy

import (
	"context"
	"fmt"
	"io"
	"log"
	"sort"

	"github.com/c-bata/goptuna"
	"github.com/c-bata/goptuna/tpe"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Sampler is a goptuna-backed strategy: TPE or random search over a space,
// driven ask/tell. Categorical knobs are suggested by value from the knob's
// fixed Choices order; byte sizes and log-scale counts are suggested as
// log-uniform floats and rounded by the knob (goptuna v0.9.0 has no
// log-scale integer distribution).
type Sampler struct {
	space   *space.Space
	study   *goptuna.Study
	sampler goptuna.Sampler
	// hist is every observation told, for rebuilding the goptuna study
	// when its history is capped (see compact).
	hist []told
	// inStudy counts the observations in the goptuna study.
	inStudy int
}

// told is one observation a Sampler was told.
type told struct {
	cfg   space.Config
	value float64
}

// Capping the history goptuna's TPE sees: its cost grows linearly with the
// number of trials (about 150 ms per suggestion for 1000 trials of 12 knobs
// on the reference machine, over the 100 ms goal; BenchmarkSuggest), so
// once the goptuna study holds tpeCap+tpeCompactEvery trials it is rebuilt
// from the tpeKeepBest best observations and the most recent ones, tpeCap
// in all. The best are kept because TPE's "good" group (at most 25 points
// in goptuna) must not forget the best region; older mediocre points only
// shape the "bad" density, which recent points describe as well.
const (
	tpeCap          = 250
	tpeCompactEvery = 100
	tpeKeepBest     = 25
)

// NewTPE returns a TPE sampler over sp seeded with seed (goptuna samplers
// seed with 0 unless told).
func NewTPE(sp *space.Space, seed int64) (*Sampler, error) {
	return newSampler(sp, tpe.NewSampler(tpe.SamplerOptionSeed(seed)))
}

// NewRandom returns a uniform random sampler over sp seeded with seed.
func NewRandom(sp *space.Space, seed int64) (*Sampler, error) {
	return newSampler(sp, goptuna.NewRandomSampler(goptuna.RandomSamplerOptionSeed(seed)))
}

func newSampler(sp *space.Space, sampler goptuna.Sampler) (*Sampler, error) {
	st, err := createStudy(sampler)
	if err != nil {
		return nil, err
	}
	return &Sampler{space: sp, study: st, sampler: sampler}, nil
}

func createStudy(sampler goptuna.Sampler) (*goptuna.Study, error) {
	st, err := goptuna.CreateStudy("autotune",
		goptuna.StudyOptionDirection(goptuna.StudyDirectionMaximize),
		goptuna.StudyOptionSampler(sampler),
		goptuna.StudyOptionLogger(&goptuna.StdLogger{Logger: log.New(io.Discard, "", 0)}),
	)
	if err != nil {
		return nil, fmt.Errorf("create goptuna study: %w", err)
	}
	return st, nil
}

// compact rebuilds the goptuna study from the capped history (see tpeCap)
// once it has grown past tpeCap+tpeCompactEvery observations.
func (s *Sampler) compact() error {
	if s.inStudy < tpeCap+tpeCompactEvery {
		return nil
	}
	order := make([]int, len(s.hist))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s.hist[order[a]].value > s.hist[order[b]].value })
	keep := map[int]bool{}
	for _, i := range order[:tpeKeepBest] {
		keep[i] = true
	}
	for i := len(s.hist) - 1; i >= 0 && len(keep) < tpeCap; i-- {
		keep[i] = true
	}
	st, err := createStudy(s.sampler)
	if err != nil {
		return err
	}
	s.study, s.inStudy = st, 0
	for i, h := range s.hist {
		if keep[i] {
			if err := s.observe(h.cfg, h.value); err != nil {
				return err
			}
		}
	}
	return nil
}

// distribution returns the goptuna distribution of knob k.
func distribution(k space.Knob) interface{} {
	switch k.Kind {
	case space.Enum, space.Bool:
		return goptuna.CategoricalDistribution{Choices: k.Options()}
	}
	if k.Scale == space.Log {
		return goptuna.LogUniformDistribution{Low: k.Min, High: k.Max}
	}
	if k.Kind == space.Float {
		return goptuna.UniformDistribution{Low: k.Min, High: k.Max}
	}
	return goptuna.IntUniformDistribution{Low: int(k.Min), High: int(k.Max)}
}

// Ask samples one value per knob of the space.
func (s *Sampler) Ask(ctx context.Context) (search.Proposal, error) {
	if err := ctx.Err(); err != nil {
		return search.Proposal{}, err
	}
	id, err := s.study.Storage.CreateNewTrial(s.study.ID)
	if err != nil {
		return search.Proposal{}, fmt.Errorf("sampler: new trial: %w", err)
	}
	tr := goptuna.Trial{Study: s.study, ID: id}
	cfg := make(space.Config, len(s.space.Knobs()))
	for _, k := range s.space.Knobs() {
		var v string
		switch d := distribution(k).(type) {
		case goptuna.CategoricalDistribution:
			v, err = tr.SuggestCategorical(k.Name, k.Options())
		case goptuna.LogUniformDistribution:
			var f float64
			f, err = tr.SuggestLogFloat(k.Name, d.Low, d.High)
			if err == nil {
				v, err = k.FromFloat(search.ClampRound(k, f))
			}
		case goptuna.UniformDistribution:
			var f float64
			f, err = tr.SuggestFloat(k.Name, d.Low, d.High)
			if err == nil {
				v, err = k.FromFloat(f)
			}
		case goptuna.IntUniformDistribution:
			var n int
			n, err = tr.SuggestInt(k.Name, d.Low, d.High)
			if err == nil {
				v, err = k.FromFloat(float64(n))
			}
		}
		if err != nil {
			return search.Proposal{}, fmt.Errorf("sampler: suggest %s: %w", k.Name, err)
		}
		cfg[k.Name] = v
	}
	// Dependent knobs (io_capacity_max >= io_capacity, redo log <= buffer
	// pool): the repair is deterministic, so the sampler still sees a
	// well-defined objective over what it proposed.
	cfg, _ = s.space.Repair(cfg)
	return search.Proposal{Config: cfg, Kind: search.Sampled, Handle: id}, nil
}

// Tell records value for a proposal made by Ask, or, for a proposal the
// study queued itself (baseline, retry), records the config as an observed
// trial so the model learns from it too.
func (s *Sampler) Tell(ctx context.Context, p search.Proposal, value float64) error {
	if p.Kind != search.Sampled || p.Handle < 0 {
		return s.Observe(p.Config, value)
	}
	if err := s.study.Storage.SetTrialValue(p.Handle, value); err != nil {
		return fmt.Errorf("sampler: tell trial %d: %w", p.Handle, err)
	}
	if err := s.study.Storage.SetTrialState(p.Handle, goptuna.TrialStateComplete); err != nil {
		return err
	}
	s.hist = append(s.hist, told{p.Config.Clone(), value})
	s.inStudy++
	return s.compact()
}

// Observe adds a measured configuration to the model (history replay on
// resume, and trials the strategy did not propose). Knobs absent from cfg
// take their default; a config with a value outside the space (e.g. a
// default below a narrowed range) is not observed and not an error.
func (s *Sampler) Observe(cfg space.Config, value float64) error {
	if err := s.observe(cfg, value); err != nil {
		return err
	}
	s.hist = append(s.hist, told{cfg.Clone(), value})
	return s.compact()
}

// observe adds cfg to the goptuna study.
func (s *Sampler) observe(cfg space.Config, value float64) error {
	params := make(map[string]float64, len(s.space.Knobs()))
	for _, k := range s.space.Knobs() {
		v, ok := cfg[k.Name]
		if !ok {
			v = k.Default
		}
		f, err := k.Float(v)
		if err != nil {
			return nil
		}
		if (k.Kind == space.Int || k.Kind == space.Bytes || k.Kind == space.Float) && (f < k.Min || f > k.Max) {
			return nil
		}
		params[k.Name] = f
	}
	id, err := s.study.Storage.CreateNewTrial(s.study.ID)
	if err != nil {
		return fmt.Errorf("sampler: observe: %w", err)
	}
	for _, k := range s.space.Knobs() {
		if err := s.study.Storage.SetTrialParam(id, k.Name, params[k.Name], distribution(k)); err != nil {
			return fmt.Errorf("sampler: observe %s: %w", k.Name, err)
		}
	}
	if err := s.study.Storage.SetTrialValue(id, value); err != nil {
		return fmt.Errorf("sampler: observe: %w", err)
	}
	if err := s.study.Storage.SetTrialState(id, goptuna.TrialStateComplete); err != nil {
		return err
	}
	s.inStudy++
	return nil
}
