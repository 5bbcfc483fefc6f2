package storage

// Columns of migration 00003 (measurement): the re-measurement
// links, the detected warm-up, the score's components and the thread
// levels with their metrics. They are written and read here, next to the
// main trial row, so that storage.go only calls saveMeasurement and
// loadMeasurements.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
)

// levelJSON is one element of the trials.levels column. Numbers that were
// not measured are null.
type levelJSON struct {
	Threads      int                 `json:"threads"`
	WarmupS      *float64            `json:"warmup_s"`
	WarmupCapped bool                `json:"warmup_capped"`
	Seconds      int                 `json:"window_s"`
	Score        *float64            `json:"score"`
	Base         *float64            `json:"base"`
	MeanTPS      *float64            `json:"mean_tps"`
	StdTPS       *float64            `json:"std_tps"`
	MeanQPS      *float64            `json:"mean_qps"`
	P95MS        *float64            `json:"p95_ms"`
	Penalties    measure.Penalties   `json:"penalties"`
	HLLGrowthPS  *float64            `json:"hll_growth_ps"`
	Infeasible   bool                `json:"infeasible"`
	Metrics      map[string]*float64 `json:"metrics"`
	HLLSource    string              `json:"hll_source"`
}

// fp returns nil for NaN and ±Inf (JSON and SQLite have neither).
func fp(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func unfp(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func encodeLevels(ls []measure.Level) (any, error) {
	if ls == nil {
		return nil, nil
	}
	out := make([]levelJSON, len(ls))
	for i, l := range ls {
		out[i] = levelJSON{Threads: l.Threads, WarmupS: fp(l.WarmupS), WarmupCapped: l.WarmupCapped, Seconds: l.Seconds,
			Score: fp(l.Score), Base: fp(l.Base), MeanTPS: fp(l.MeanTPS), StdTPS: fp(l.StdTPS), MeanQPS: fp(l.MeanQPS),
			P95MS: fp(l.P95MS), Penalties: l.Penalties, HLLGrowthPS: fp(l.HLLGrowthPS), Infeasible: l.Infeasible,
			Metrics: l.Metrics, HLLSource: l.HLLSource}
		for k, v := range out[i].Metrics {
			if v != nil {
				out[i].Metrics[k] = fp(*v)
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func decodeLevels(s sql.NullString) ([]measure.Level, error) {
	if !s.Valid {
		return nil, nil
	}
	var in []levelJSON
	if err := json.Unmarshal([]byte(s.String), &in); err != nil {
		return nil, err
	}
	out := make([]measure.Level, len(in))
	for i, l := range in {
		out[i] = measure.Level{Threads: l.Threads, WarmupS: unfp(l.WarmupS), WarmupCapped: l.WarmupCapped,
			Eval: measure.Eval{Score: unfp(l.Score), Base: unfp(l.Base), MeanTPS: unfp(l.MeanTPS), StdTPS: unfp(l.StdTPS),
				MeanQPS: unfp(l.MeanQPS), P95MS: unfp(l.P95MS), Seconds: l.Seconds, Penalties: l.Penalties, Infeasible: l.Infeasible},
			Metrics: l.Metrics, HLLSource: l.HLLSource}
		out[i].HLLGrowthPS = unfp(l.HLLGrowthPS)
	}
	return out, nil
}

// saveMeasurement writes t's 00003 columns to its (existing) trial row.
func saveMeasurement(ctx context.Context, tx *sql.Tx, t search.Trial) error {
	var repeatOf any
	if t.Kind.Extra() {
		repeatOf = t.RepeatOf
	}
	levels, err := encodeLevels(t.Levels)
	if err != nil {
		return fmt.Errorf("levels: %w", err)
	}
	// Components are NULL unless the trial was measured (has levels).
	comp := make([]any, 11)
	if len(t.Levels) > 0 {
		p := t.Penalties
		comp = []any{nullFloat(t.WarmupS), nullFloat(p.Variance), nullFloat(p.Dips), nullFloat(p.Stalls), nullFloat(p.Errors),
			nullFloat(p.Purge), p.DipSeconds, p.StallSeconds, nullFloat(p.ErrPS), nullFloat(p.ReconnPS), nullFloat(p.HLLGrowthPS)}
	}
	args := append([]any{repeatOf, t.ConfirmNeeded, t.Infeasible, t.WarmupCapped, levels}, comp...)
	args = append(args, t.Study, t.Number)
	_, err = tx.ExecContext(ctx, `UPDATE trials SET repeat_of = ?, confirm_needed = ?, infeasible = ?, warmup_capped = ?, levels = ?,
		warmup_s = ?, pen_variance = ?, pen_dips = ?, pen_stalls = ?, pen_errors = ?, pen_purge = ?,
		dip_s = ?, stall_s = ?, err_ps = ?, reconn_ps = ?, hll_growth_ps = ?
		WHERE study = ? AND number = ?`, args...)
	if err != nil {
		return fmt.Errorf("measurement: %w", err)
	}
	return nil
}

// loadMeasurements fills the 00003 fields of trials (as returned by
// queryTrials with the same where clause and args).
func loadMeasurements(ctx context.Context, q querier, trials []search.Trial, where string, args ...any) error {
	if len(trials) == 0 {
		return nil
	}
	byNumber := make(map[int]*search.Trial, len(trials))
	for i := range trials {
		byNumber[trials[i].Number] = &trials[i]
	}
	rows, err := q.QueryContext(ctx, `SELECT number, repeat_of, confirm_needed, infeasible, warmup_capped, levels,
		warmup_s, pen_variance, pen_dips, pen_stalls, pen_errors, pen_purge, dip_s, stall_s, err_ps, reconn_ps, hll_growth_ps
		FROM trials `+where, args...)
	if err != nil {
		return fmt.Errorf("measurement: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			number       int
			repeatOf     sql.NullInt64
			need         int
			inf, capped  bool
			levels       sql.NullString
			f            [10]sql.NullFloat64
			dipS, stallS sql.NullInt64
		)
		if err := rows.Scan(&number, &repeatOf, &need, &inf, &capped, &levels,
			&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &dipS, &stallS, &f[6], &f[7], &f[8]); err != nil {
			return fmt.Errorf("measurement: %w", err)
		}
		t := byNumber[number]
		if t == nil {
			continue
		}
		t.RepeatOf = int(repeatOf.Int64)
		t.ConfirmNeeded, t.Infeasible, t.WarmupCapped = need, inf, capped
		if t.Levels, err = decodeLevels(levels); err != nil {
			return fmt.Errorf("trial %d: levels: %w", number, err)
		}
		if !levels.Valid {
			continue // not measured: the Measurement stays zero
		}
		t.WarmupS = floatOf(f[0])
		t.Penalties = measure.Penalties{Variance: floatOf(f[1]), Dips: floatOf(f[2]), Stalls: floatOf(f[3]), Errors: floatOf(f[4]),
			Purge: floatOf(f[5]), DipSeconds: int(dipS.Int64), StallSeconds: int(stallS.Int64),
			ErrPS: floatOf(f[6]), ReconnPS: floatOf(f[7]), HLLGrowthPS: floatOf(f[8])}
	}
	return rows.Err()
}

// nullInt stores 0 (unknown) as NULL.
func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

// nullPtr stores nil as NULL.
func nullPtr(p *float64) any {
	if p == nil {
		return nil
	}
	return nullFloat(*p)
}
