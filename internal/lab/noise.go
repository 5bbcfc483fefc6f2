package lab

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/autotune/autotune/space"
)

// WithNoise returns l measured at another noise: each measurement is the
// noise-free score × (1 + noise·N(0, 1)), at least 0, a crash where l's
// noise-free score has none (True's ok false). A Family's draws are
// measured so too. Errors: noise outside (0, 1), or a landscape without
// noise-free scores (a Command).
func WithNoise(l Landscape, noise float64) (Landscape, error) {
	if !(noise > 0 && noise < 1) {
		return nil, fmt.Errorf("noise %g: want a share between 0 and 1, e.g. 0.03", noise)
	}
	n := &renoised{Landscape: l, noise: noise}
	if f, ok := l.(Family); ok {
		return &renoisedFamily{renoised: n, f: f}, nil
	}
	if _, ok := l.(Noisy); !ok {
		return nil, fmt.Errorf("landscape %s: no noise-free scores to add noise to", l.Name())
	}
	return n, nil
}

// renoised is a landscape measured at its own noise (WithNoise).
type renoised struct {
	Landscape
	noise float64
}

// Name implements Landscape.
func (r *renoised) Name() string {
	return fmt.Sprintf("%s at %.0f %% noise", r.Landscape.Name(), 100*r.noise)
}

// Measure implements Landscape.
func (r *renoised) Measure(_ context.Context, cfg space.Config, rng *rand.Rand) (float64, bool, error) {
	return noisy(r.Landscape.True, r.noise, cfg, rng)
}

// Noise implements Noisy.
func (r *renoised) Noise() float64 { return r.noise }

// renoisedFamily is a Family whose draws are renoised.
type renoisedFamily struct {
	*renoised
	f Family
}

// Draw implements Family.
func (r *renoisedFamily) Draw(seed int) (Landscape, error) {
	d, err := r.f.Draw(seed)
	if err != nil {
		return nil, err
	}
	return &renoised{Landscape: d, noise: r.noise}, nil
}
