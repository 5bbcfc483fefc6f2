package lab

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// TestDrawnFamily checks what Drawn's doc states of its draws: one
// landscape per seed, kept; every draw's best known score is drawnBest
// and no random configuration beats it; the baseline and the expert warm
// start never crash, while some draws have a crash region; the knobs that
// move the score from the warm start are the buffer pool, drawn ones and
// those of the crash region only (or knobs the server's rules tie to them), and which they are
// changes from draw to draw.
func TestDrawnFamily(t *testing.T) {
	f, err := NewDrawn()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Space().Knobs()); n != 36 {
		t.Fatalf("drawn space: %d knobs, want 36", n)
	}
	if _, _, err := f.Measure(context.Background(), space.Config{}, nil); err == nil {
		t.Error("the family itself must not be measured")
	}
	rng := rand.New(rand.NewPCG(99, 1))
	ks := f.Space().Knobs()
	crashing, draws := 0, 12
	sets := map[string]bool{}
	var warm []float64
	for seed := 1; seed <= draws; seed++ {
		d, err := f.Draw(seed)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := f.Draw(seed); again != d {
			t.Fatalf("seed %d: a second Draw made a new landscape", seed)
		}
		dl := d.(*drawnLandscape)
		if d.Best() != drawnBest {
			t.Fatalf("seed %d: best %v, want %v", seed, d.Best(), drawnBest)
		}
		exp, okE := d.True(d.Expert())
		_, okB := d.True(space.Config{})
		if !okE || !okB {
			t.Errorf("seed %d: the warm start (ok %v) and the baseline (ok %v) must not crash", seed, okE, okB)
		}
		warm = append(warm, exp)
		crashed := 0
		for i := 0; i < 3000; i++ {
			v, ok := d.True(search.Decode(f.Space(), randomPoint(rng, ks)))
			if !ok {
				crashed++
				continue
			}
			if v > drawnBest*1.001 {
				t.Errorf("seed %d: a random configuration scores %.1f, over the best known %v", seed, v, drawnBest)
				break
			}
		}
		if crashed > 0 {
			crashing++
			if dl.memLimit == 0 && dl.crashI < 0 {
				t.Errorf("seed %d: %d random configurations crashed in a draw without a crash region", seed, crashed)
			}
		}
		drawnKnobs := map[int]bool{slices.IndexFunc(ks, func(k space.Knob) bool { return k.Name == "innodb_buffer_pool_size" }): true}
		for _, e := range dl.effects {
			drawnKnobs[e.knob] = true
		}
		if dl.crashI >= 0 {
			drawnKnobs[dl.crashI], drawnKnobs[dl.crashJ] = true, true
		}
		if dl.memLimit > 0 {
			for i, k := range ks {
				if k.Name == "query_cache_size" || k.Name == "innodb_log_buffer_size" {
					drawnKnobs[i] = true
				}
			}
		}
		// A knob the server's rules tie to a drawn one (io_capacity
		// raises io_capacity_max: space.Repair) moves the score through it.
		asRun := func(c space.Config) []float64 {
			r, _ := f.Space().Repair(c)
			return search.Encode(f.Space(), f.Space().Essential(r))
		}
		ref := asRun(d.Expert())
		movesDrawn := func(c space.Config) bool {
			x := asRun(c)
			for i := range drawnKnobs {
				if x[i] != ref[i] {
					return true
				}
			}
			return false
		}
		var moved []string
		for i, k := range ks {
			for _, u := range []float64{0, 0.3, 0.7, 1} {
				x := search.Encode(f.Space(), d.Expert())
				if k.Kind == space.Enum || k.Kind == space.Bool {
					x[i] = math.Round(u * float64(len(k.Options())-1))
				} else {
					x[i] = u
				}
				cfg := search.Decode(f.Space(), x)
				if v, ok := d.True(cfg); !ok || math.Abs(v-exp) > 1e-9 {
					moved = append(moved, k.Name)
					if !drawnKnobs[i] && !movesDrawn(cfg) {
						t.Errorf("seed %d: %s moves the score but was not drawn", seed, k.Name)
					}
					break
				}
			}
		}
		// Every drawn knob moves it (but thread_pool_size, inactive
		// without the thread pool), and at most the crash region's knobs
		// and those tied to drawn ones by the server's rules besides.
		least := 1 + len(dl.effects)
		for _, e := range dl.effects {
			if ks[e.knob].Name == "thread_pool_size" {
				least--
			}
		}
		if len(moved) < least || len(moved) > least+4 {
			t.Errorf("seed %d: knobs that move the score %v: want %d to %d", seed, moved, least, least+4)
		}
		slices.Sort(moved)
		sets[strings.Join(moved, ",")] = true
	}
	if crashing == 0 || crashing == draws {
		t.Errorf("%d of %d draws crash somewhere: want some, not all", crashing, draws)
	}
	if len(sets) < draws/2 {
		t.Errorf("only %d different sets of knobs that matter in %d draws", len(sets), draws)
	}
	slices.Sort(warm)
	if warm[0] == warm[len(warm)-1] {
		t.Error("the warm start scores the same in every draw")
	}
}

// TestRunOneMeasuresTheSeedsDraw checks that a Family's run measures the
// seed's own draw: the same as running that draw directly, unlike another
// seed's draw; and that the warm-start line summarises the draws.
func TestRunOneMeasuresTheSeedsDraw(t *testing.T) {
	f, err := NewDrawn()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	viaFamily, err := RunOne(ctx, f, "hybrid", 3, 30, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	d3, _ := f.Draw(3)
	d4, _ := f.Draw(4)
	direct, err := RunOne(ctx, d3, "hybrid", 3, 30, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	other, err := RunOne(ctx, d4, "hybrid", 3, 30, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(viaFamily.Inc, direct.Inc) {
		t.Errorf("seed 3 through the family %v, on its draw %v: want the same", viaFamily.Inc, direct.Inc)
	}
	if slices.Equal(direct.Inc, other.Inc) {
		t.Error("seeds 3 and 4 measured the same landscape")
	}
	ws, ok, err := WarmStartShares(f, f.Best(), Options{Seeds: 4, FirstSeed: 2})
	if err != nil || !ok {
		t.Fatalf("WarmStartShares: ok %v, %v", ok, err)
	}
	var warm []float64
	for seed := 2; seed <= 5; seed++ {
		d, _ := f.Draw(seed)
		v, _ := d.True(d.Expert())
		warm = append(warm, v/drawnBest)
	}
	q1, m, q3 := Quartiles(warm)
	if ws.Draws != 4 || ws.Warm != [3]float64{q1, m, q3} {
		t.Errorf("warm start over draws 2-5: %+v; want 4 draws, quartiles %v %v %v", ws, q1, m, q3)
	}
	var b bytes.Buffer
	if err := WriteWarmStart(&b, ws); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("warm start alone: %.1f [%.1f, %.1f] %% of each draw's best (4 draws)", 100*m, 100*q1, 100*q3); !strings.Contains(b.String(), want) {
		t.Errorf("warm-start line %q: want %q", b.String(), want)
	}
}
