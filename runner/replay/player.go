package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/autotune/autotune/runner"
)

// conn is one database connection of a replay (a *sql.Conn in Run, a
// fake in tests).
type conn interface {
	// Exec runs one statement with its arguments and discards its rows.
	Exec(ctx context.Context, sql string, args ...any) error
	// Use makes schema the default schema.
	Use(ctx context.Context, schema string) error
}

// player replays sessions on conns and counts what happens.
type player struct {
	sessions []session
	// speed is the pace factor (0: back to back).
	speed float64
	// period is the captured workload's length: at the captured pace,
	// every session starts again at each multiple of period/speed.
	period time.Duration
	// timeout bounds each statement.
	timeout time.Duration
	// now and sleep are the clock (tests replace them).
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu  sync.Mutex
	sec second  // the current second
	sum Summary // the whole run
}

// second is what the statements that ended in one second did.
type second struct {
	ok, errs           int
	reads, writes, oth int
	latMS              []float64
}

// Summary is a replay run's final report (runner.BenchResult.Summary):
// counts over the whole run, warm-up included.
type Summary struct {
	// Connections is the number of captured connections replayed at once;
	// Speed the pace factor (0: as fast as possible).
	Connections int     `json:"connections"`
	Speed       float64 `json:"speed"`
	// Statements and Errors count the statements that ended (errors
	// included in Statements).
	Statements int64 `json:"statements"`
	Errors     int64 `json:"errors"`
	// Kinds counts statements and errors by kind (Kinds).
	Kinds map[string]*KindCount `json:"kinds"`
	// Errnos counts errors by MySQL error number ("client" for errors
	// without one: a lost connection, a timeout).
	Errnos map[string]int64 `json:"errnos,omitempty"`
	// SourceErrors counts errors of statements that failed on the
	// captured server too (their captured errno was not 0).
	SourceErrors int64 `json:"source_errors,omitempty"`
	// FirstErrors holds the first message of each error number.
	FirstErrors map[string]string `json:"first_errors,omitempty"`
	// Loops is the most times a connection went back to its first
	// statement (a workload shorter than the run is replayed again).
	Loops int `json:"loops"`
	// LateMS is, at the captured pace, the mean lateness of a statement's
	// start behind its scheduled time (ms): large when the server cannot
	// keep the captured pace.
	LateMS float64 `json:"late_ms,omitempty"`
	// Skipped counts captured statements left out of the replay, by
	// reason (see skipReason).
	Skipped map[string]int `json:"skipped,omitempty"`
	// Prepared counts the statements run as server-side prepared
	// statements (Options.Prepared) that ended within their time; the
	// others of such a replay ran as text (the server would not prepare
	// them) or timed out.
	Prepared int64 `json:"prepared,omitempty"`

	lateSum float64
	lateN   int64
}

// KindCount is the statement and error count of one kind.
type KindCount struct {
	Statements int64 `json:"statements"`
	Errors     int64 `json:"errors"`
}

// record counts one ended statement: its kind, latency, lateness behind
// its schedule, and error.
func (p *player) record(st step, lat time.Duration, late time.Duration, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kc := p.sum.Kinds[st.kind]
	if kc == nil {
		kc = &KindCount{}
		p.sum.Kinds[st.kind] = kc
	}
	kc.Statements++
	p.sum.Statements++
	if p.speed > 0 {
		p.sum.lateSum += float64(late) / float64(time.Millisecond)
		p.sum.lateN++
	}
	if err != nil {
		p.sec.errs++
		kc.Errors++
		p.sum.Errors++
		if st.errno != 0 {
			p.sum.SourceErrors++
		}
		code, msg := "client", err.Error()
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			code, msg = strconv.Itoa(int(me.Number)), me.Message
		}
		p.sum.Errnos[code]++
		if _, ok := p.sum.FirstErrors[code]; !ok {
			p.sum.FirstErrors[code] = maskQuoted(msg)
		}
		return
	}
	p.sec.ok++
	switch st.kind {
	case KindSelect:
		p.sec.reads++
	case KindInsert, KindUpdate, KindDelete:
		p.sec.writes++
	default:
		p.sec.oth++
	}
	p.sec.latMS = append(p.sec.latMS, float64(lat)/float64(time.Millisecond))
}

// take returns the interval of the second that ends at t seconds and
// starts the next one: statements/s as TPS and QPS (successful ones),
// errors/s, the 95th percentile of the second's latencies.
func (p *player) take(t float64, threads int) runner.Interval {
	p.mu.Lock()
	s := p.sec
	p.sec = second{}
	p.mu.Unlock()
	iv := runner.Interval{Time: t, Threads: threads, TPS: float64(s.ok), QPS: float64(s.ok),
		Reads: float64(s.reads), Writes: float64(s.writes), Other: float64(s.oth), ErrPS: float64(s.errs), LatPct: 95}
	if len(s.latMS) > 0 {
		v := percentile(s.latMS, 0.95)
		iv.LatMS = &v
	}
	return iv
}

// percentile returns the q-quantile of v (nearest rank; v is sorted in
// place).
func percentile(v []float64, q float64) float64 {
	sort.Float64s(v)
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return v[max(0, min(i, len(v)-1))]
}

// play replays session s on c from start until ctx ends. At the captured
// pace each statement waits for start + (loop×period + at)/speed, or for
// the previous statement's end when that is later (a connection runs one
// statement at a time, as the application did); back to back, each
// follows the previous one. A statement's latency is its own, from its
// start to its end; how late it started behind its schedule is counted
// apart (Summary.LateMS). A connection that reaches its last
// statement goes back to its first (a new loop). It returns nil when ctx
// ends, or the error that made the session stop: its first USE failed or
// its connection was lost (runner.StaleConnection).
func (p *player) play(ctx context.Context, c conn, s session, start time.Time) error {
	schema := ""
	use := func(sc string) error {
		if sc == schema || sc == "" {
			return nil
		}
		if err := c.Use(ctx, sc); err != nil {
			return err
		}
		schema = sc
		return nil
	}
	if err := use(s.schema); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("connection %d: USE %s: %w", s.id, s.schema, err)
	}
	for loop := 0; ; loop++ {
		if loop > 0 {
			p.mu.Lock()
			p.sum.Loops = max(p.sum.Loops, loop)
			p.mu.Unlock()
		}
		for _, st := range s.steps {
			sched := p.now()
			if p.speed > 0 {
				off := time.Duration(float64(time.Duration(loop)*p.period+st.at) / p.speed)
				sched = start.Add(off)
				if d := sched.Sub(p.now()); d > 0 {
					if err := p.sleep(ctx, d); err != nil {
						return nil
					}
				}
			}
			if ctx.Err() != nil {
				return nil
			}
			if err := use(st.schema); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				p.record(st, 0, 0, err)
				if runner.ClassifyClientError(err) == runner.StaleConnection {
					return fmt.Errorf("connection %d lost: %w", s.id, err)
				}
				continue
			}
			if ctx.Err() != nil {
				return nil
			}
			t0 := p.now()
			sctx, cancel := context.WithTimeout(ctx, p.timeout)
			err := c.Exec(sctx, st.sql, st.args...)
			cancel()
			if ctx.Err() != nil {
				// The run ended while it ran: not counted.
				return nil
			}
			end := p.now()
			p.record(st, end.Sub(t0), max(0, t0.Sub(sched)), err)
			if runner.ClassifyClientError(err) == runner.StaleConnection {
				return fmt.Errorf("connection %d lost: %w", s.id, err)
			}
		}
		if p.speed == 0 && ctx.Err() != nil {
			return nil
		}
	}
}

// newPlayer returns a player of sessions at speed with the given
// statement timeout on the real clock.
func newPlayer(sessions []session, speed float64, period, timeout time.Duration) *player {
	return &player{sessions: sessions, speed: speed, period: period, timeout: timeout,
		now: time.Now, sleep: sleepCtx,
		sum: Summary{Connections: len(sessions), Speed: speed, Kinds: map[string]*KindCount{},
			Errnos: map[string]int64{}, FirstErrors: map[string]string{}}}
}

// sleepCtx sleeps d or until ctx ends (then its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// summary returns the run's summary.
func (p *player) summary() Summary {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sum
	if s.lateN > 0 {
		s.LateMS = s.lateSum / float64(s.lateN)
	}
	return s
}

// quoted matches a quoted value in a server message ('alice@example.com'
// in "Duplicate entry 'alice@example.com' for key 'email'").
var quoted = regexp.MustCompile(`'(?:[^'\\]|\\.)*'`)

// maskQuoted replaces the quoted values of a server error message by '?',
// so the trial summary in trials.db (a file users copy between hosts)
// keeps the kind of error and not the rows of the dump it names.
func maskQuoted(msg string) string { return quoted.ReplaceAllString(msg, "'?'") }
