package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CPUTimes is the aggregate "cpu" line of /proc/stat, in USER_HZ ticks
// (proc(5)): user nice system idle iowait irq softirq steal.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
}

// ParseProcStat reads the aggregate "cpu " line of /proc/stat text. Fields
// a kernel does not print (steal before 2.6.11) stay 0. It returns an error
// when there is no cpu line or a field is not a number.
func ParseProcStat(text string) (CPUTimes, error) {
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != "cpu" {
			continue
		}
		var v [8]uint64
		for i := 0; i < 8 && i+1 < len(f); i++ {
			n, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return CPUTimes{}, fmt.Errorf("/proc/stat cpu field %d %q: %w", i+1, f[i+1], err)
			}
			v[i] = n
		}
		return CPUTimes{User: v[0], Nice: v[1], System: v[2], Idle: v[3], IOWait: v[4], IRQ: v[5], SoftIRQ: v[6], Steal: v[7]}, nil
	}
	return CPUTimes{}, errors.New("/proc/stat: no aggregate cpu line")
}

// ReadCPUTimes reads /proc/stat.
func ReadCPUTimes() (CPUTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUTimes{}, fmt.Errorf("read cpu times: %w", err)
	}
	return ParseProcStat(string(b))
}

// CPUShares returns how the host's CPU time was spent between two
// readings, in percent of all CPU time: cpu_user (user+nice), cpu_sys
// (system+irq+softirq), cpu_iowait, cpu_steal (taken by the hypervisor for
// other guests: a noise covariate on shared machines) and cpu_idle. All are
// nil when no time passed or the counters went backwards.
func CPUShares(a, b CPUTimes) map[string]*float64 {
	d := func(x, y uint64) float64 { return float64(y) - float64(x) }
	parts := map[string]float64{
		"cpu_user":   d(a.User, b.User) + d(a.Nice, b.Nice),
		"cpu_sys":    d(a.System, b.System) + d(a.IRQ, b.IRQ) + d(a.SoftIRQ, b.SoftIRQ),
		"cpu_iowait": d(a.IOWait, b.IOWait),
		"cpu_steal":  d(a.Steal, b.Steal),
		"cpu_idle":   d(a.Idle, b.Idle),
	}
	total := 0.0
	bad := false
	for _, v := range parts {
		total += v
		bad = bad || v < 0
	}
	out := map[string]*float64{}
	for k, v := range parts {
		if bad || total <= 0 {
			out[k] = nil
			continue
		}
		out[k] = ptr(100 * v / total)
	}
	return out
}

// ReadLoad1 returns the 1-minute load average from /proc/loadavg.
func ReadLoad1() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, errors.New("/proc/loadavg: empty")
	}
	return strconv.ParseFloat(f[0], 64)
}

func ptr(v float64) *float64 { return &v }

// StatusQuery reads the server's status counters: global scope. Plain
// SHOW STATUS is the session's since MySQL 5.0.2 (a tuner that used it
// saw 2 questions on a server doing 4937 per second: MySQLTuner-perl
// #197); SHOW GLOBAL STATUS works on every MySQL and MariaDB version,
// unlike information_schema.GLOBAL_STATUS (gone in MySQL 8.0) or
// performance_schema.global_status (5.7 and later).
const StatusQuery = "SHOW GLOBAL STATUS"

// GlobalStatus is one reading of StatusQuery: variable name → value as
// the server prints it. A variable the server does not have is absent,
// never 0.
type GlobalStatus map[string]string

// Counter returns a counter's value as the unsigned 64-bit integer the
// server keeps (a float64 holds 53 bits: counters such as Bytes_sent pass
// 2^53 on busy servers, and deltas near 2^60 would be rounded to 0); ok
// is false when the variable is absent or not an unsigned integer.
func (s GlobalStatus) Counter(name string) (uint64, bool) {
	v, ok := s[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	return n, err == nil
}

// Gauge returns a variable's value as a number (Threads_running,
// Innodb_checkpoint_age); ok is false when it is absent or not a number.
func (s GlobalStatus) Gauge(name string) (float64, bool) {
	v, ok := s[name]
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f, err == nil
}

// CounterDelta returns how much counter name grew from a to b, exactly.
// It returns an error naming the counter when either reading lacks it,
// and when it went down: counters only grow within one server lifetime,
// so a lower value means the server restarted in between (its counters
// reset) and there is no delta. A negative delta is never returned.
func CounterDelta(a, b GlobalStatus, name string) (uint64, error) {
	x, okA := a.Counter(name)
	y, okB := b.Counter(name)
	switch {
	case !okA || !okB:
		return 0, fmt.Errorf("status counter %s: not in both readings", name)
	case y < x:
		return 0, fmt.Errorf("status counter %s went down from %d to %d: the server restarted between the readings (its counters reset)", name, x, y)
	}
	return y - x, nil
}

// lifetimeSlack is how far the start time (At − Uptime) of one server
// lifetime may move between polls: Uptime counts whole seconds and a poll
// takes up to its 3 s timeout.
const lifetimeSlack = 5 * time.Second

// SameLifetime reports whether polls a and b (a first) read one server
// lifetime, so that their counter deltas mean something; when not, it
// says why: Uptime missing, Uptime lower in b (a restart, counters reset),
// or a server start time (At − Uptime) that moved by more than a few
// seconds: later (a restart that left Uptime higher than before: the new
// server's Uptime is then not b.At − a.At more than a's) or earlier (the
// polls reached another, older server, e.g. behind a failover address; a
// remote server whose own clock was stepped forward looks the same and
// voids the window too).
//
// The start time's move is read on both of this host's clocks, the wall
// clock and Go's monotonic one, counts only when both agree, and not the
// part a slow status query explains (Poll.Took: the Uptime was read some
// time after At). Uptime
// counts the server's wall-clock seconds: when this host's wall clock is
// stepped between the polls (NTP on a freshly booted machine), the
// monotonic clock sees a move the wall clock does not (a CI machine read
// "Uptime 2 -> 10 in 1s" on the monotonic clock and voided a trial), and
// when the server runs elsewhere, a step of this host's wall clock moves
// the wall-clock reading alone.
func SameLifetime(a, b Poll) (bool, string) {
	ua, okA := a.Status.Counter("Uptime")
	ub, okB := b.Status.Counter("Uptime")
	switch {
	case !okA || !okB:
		return false, "Uptime missing from a status reading"
	case ub < ua:
		return false, fmt.Sprintf("Uptime decreased (%d -> %d): the server restarted between the readings; counters reset", ua, ub)
	}
	return sameLifetime(ua, ub, b.At.Round(0).Sub(a.At.Round(0)), b.At.Sub(a.At), a.Took, b.Took)
}

// sameLifetime is SameLifetime's judgement from the Uptimes ua ≤ ub (s),
// the time between the polls on the wall clock and on the monotonic clock
// (equal when the readings carry no monotonic clock), and how long each
// poll's query took (the server read its Uptime somewhere in it: a reply
// that came late is no moved start time).
func sameLifetime(ua, ub uint64, wall, mono, tookA, tookB time.Duration) (bool, string) {
	up := time.Duration(ub-ua) * time.Second
	dWall, dMono := wall-up, mono-up // how far the start time moved
	switch {
	case min(dWall, dMono)-tookA > lifetimeSlack:
		return false, fmt.Sprintf("the server's start time moved later by %s (Uptime %d -> %d in %s): it restarted between the readings; counters reset", min(dWall, dMono).Round(time.Second), ua, ub, mono.Round(time.Second))
	case -max(dWall, dMono)-tookB > lifetimeSlack:
		return false, fmt.Sprintf("the server's start time moved earlier by %s (Uptime %d -> %d in %s): another, older server answered (or the server's own clock was stepped forward); counters are not comparable", (-max(dWall, dMono)).Round(time.Second), ua, ub, mono.Round(time.Second))
	}
	return true, ""
}

// Poll is one sample of server status and host CPU.
type Poll struct {
	// At is when the sample was taken: just before the status query.
	At time.Time
	// Took is how long the status query took from At (the server read
	// its Uptime within [At, At+Took]); 0 when it failed.
	Took time.Duration
	// Status is StatusQuery's result; nil when the query failed.
	Status GlobalStatus
	// HLL is the InnoDB history list length from the poller's source;
	// nil when unavailable.
	HLL *float64
	// CPU is /proc/stat at At; CPUOK is false when it could not be read.
	CPU   CPUTimes
	CPUOK bool
}

// HLL sources, in order of preference: structured sources before scraping
// SHOW ENGINE INNODB STATUS, whose text changes between versions (status
// parsers broke on it in the field). All three agree within a few entries
// on MariaDB 10.11 (measured on the reference 2-core machine,
// docs/measurement.md).
const (
	// HLLStatus: SHOW GLOBAL STATUS Innodb_history_list_length (MariaDB).
	HLLStatus = "status:Innodb_history_list_length"
	// HLLMetrics: information_schema.INNODB_METRICS trx_rseg_history_len.
	HLLMetrics = "innodb_metrics:trx_rseg_history_len"
	// HLLInnoDBStatus: "History list length" of SHOW ENGINE INNODB STATUS.
	HLLInnoDBStatus = "show_engine_innodb_status"
)

// Poller samples SHOW GLOBAL STATUS, the history list length and
// /proc/stat once per interval on its own connection while a benchmark
// runs. Failed polls (server busy or gone) are skipped, not recorded as
// zeros.
type Poller struct {
	// Source is the history list length source (HLL* constants), "" when
	// none works.
	Source string

	db      *sql.DB
	version string
	mu      sync.Mutex
	polls   []Poll
	cancel  context.CancelFunc
	done    chan struct{}
}

// StartPoller opens a connection to srv, picks the history list length
// source, takes a first poll and then polls every interval until Stop. It
// returns an error when the server does not answer.
func StartPoller(ctx context.Context, srv *Server, interval time.Duration) (*Poller, error) {
	db, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	p := &Poller{db: db, version: srv.Version, done: make(chan struct{})}
	first := p.poll(ctx)
	if first.Status == nil {
		db.Close()
		return nil, errors.New("metrics: SHOW GLOBAL STATUS failed")
	}
	p.Source = p.pickSource(ctx, first.Status)
	first.HLL = p.hll(ctx, first.Status)
	p.polls = append(p.polls, first)
	pctx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	go func() {
		defer close(p.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-pctx.Done():
				return
			case <-tick.C:
			}
			s := p.poll(pctx)
			if s.Status == nil {
				continue
			}
			s.HLL = p.hll(pctx, s.Status)
			p.mu.Lock()
			p.polls = append(p.polls, s)
			p.mu.Unlock()
		}
	}()
	return p, nil
}

// Latest returns the most recent poll (false before any).
func (p *Poller) Latest() (Poll, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.polls) == 0 {
		return Poll{}, false
	}
	return p.polls[len(p.polls)-1], true
}

// Stop ends polling, takes a last poll and returns all polls in time
// order.
func (p *Poller) Stop(ctx context.Context) []Poll {
	p.cancel()
	<-p.done
	if s := p.poll(ctx); s.Status != nil {
		s.HLL = p.hll(ctx, s.Status)
		p.polls = append(p.polls, s)
	}
	p.db.Close()
	return p.polls
}

func (p *Poller) poll(ctx context.Context) Poll {
	s := Poll{At: time.Now()}
	if c, err := ReadCPUTimes(); err == nil {
		s.CPU, s.CPUOK = c, true
	}
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	rows, err := p.db.QueryContext(qctx, StatusQuery)
	if err != nil {
		return s
	}
	defer rows.Close()
	st := GlobalStatus{}
	for rows.Next() {
		var k, v string
		if rows.Scan(&k, &v) == nil {
			st[k] = v
		}
	}
	if rows.Err() == nil {
		s.Status, s.Took = st, time.Since(s.At)
	}
	return s
}

func (p *Poller) pickSource(ctx context.Context, status GlobalStatus) string {
	if _, ok := status["Innodb_history_list_length"]; ok {
		return HLLStatus
	}
	if _, err := p.metricsHLL(ctx); err == nil {
		return HLLMetrics
	}
	if _, err := p.engineHLL(ctx); err == nil {
		return HLLInnoDBStatus
	}
	return ""
}

func (p *Poller) hll(ctx context.Context, status GlobalStatus) *float64 {
	var v float64
	var err error
	switch p.Source {
	case HLLStatus:
		v, err = strconv.ParseFloat(status["Innodb_history_list_length"], 64)
	case HLLMetrics:
		v, err = p.metricsHLL(ctx)
	case HLLInnoDBStatus:
		v, err = p.engineHLL(ctx)
	default:
		return nil
	}
	if err != nil {
		return nil
	}
	return &v
}

func (p *Poller) metricsHLL(ctx context.Context) (float64, error) {
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var v float64
	err := p.db.QueryRowContext(qctx, "SELECT `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'").Scan(&v)
	return v, err
}

func (p *Poller) engineHLL(ctx context.Context) (float64, error) {
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var typ, name, text string
	if err := p.db.QueryRowContext(qctx, "SHOW ENGINE INNODB STATUS").Scan(&typ, &name, &text); err != nil {
		return 0, err
	}
	st := ParseInnoDBStatus(text, p.version)
	if st.HistoryListLength == nil {
		return 0, errors.New("no History list length in SHOW ENGINE INNODB STATUS")
	}
	return float64(*st.HistoryListLength), nil
}

// Nearest returns the index of the poll closest in time to at (-1 when
// there are none).
func Nearest(polls []Poll, at time.Time) int {
	best, bestD := -1, time.Duration(math.MaxInt64)
	for i, p := range polls {
		d := p.At.Sub(at)
		if d < 0 {
			d = -d
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// Counter status variables reported as deltas over the window: metric name
// → (status variable, per second?). Rates are per second of wall time. A
// variable list separated by "|" takes the first the server has: MariaDB
// 10.11 has no Innodb_rows_* (MySQL and older MariaDB do), so the rows
// rates fall back to the server-level Rows_read and the handler counters
// Handler_write/update/delete (which also count temporary tables).
var statusCounters = []struct {
	metric, variable string
	rate             bool
}{
	{"rows_read_ps", "Innodb_rows_read|Rows_read", true},
	{"rows_inserted_ps", "Innodb_rows_inserted|Handler_write", true},
	{"rows_updated_ps", "Innodb_rows_updated|Handler_update", true},
	{"rows_deleted_ps", "Innodb_rows_deleted|Handler_delete", true},
	{"bp_reads_ps", "Innodb_buffer_pool_reads", true}, // reads that missed the pool (from disk)
	{"bp_read_requests_ps", "Innodb_buffer_pool_read_requests", true},
	{"bp_wait_free", "Innodb_buffer_pool_wait_free", false},
	{"log_waits", "Innodb_log_waits", false},
	{"row_lock_waits", "Innodb_row_lock_waits", false},
	{"row_lock_time_ms", "Innodb_row_lock_time", false},
	{"deadlocks", "Innodb_deadlocks", false},
	{"data_fsyncs_ps", "Innodb_data_fsyncs", true},
	{"os_log_written_bps", "Innodb_os_log_written", true},
	{"questions_ps", "Questions", true},
}

// Gauge status variables: mean and max over the polls in the window.
var statusGauges = []struct{ metric, variable string }{
	{"threads_running", "Threads_running"},
	{"checkpoint_age_bytes", "Innodb_checkpoint_age"},
	{"pages_dirty", "Innodb_buffer_pool_pages_dirty"},
}

// WindowMetrics computes the diagnostic metrics of a measurement window
// from polls: the polls nearest to start and end bound the counters, and
// the polls in between feed the gauges.
//
// Counters (statusCounters) become deltas (counts) or rates (per second);
// bp_hit_ratio is 1 − Δreads/Δread_requests; gauges give NAME_mean and
// NAME_max (threads_running, checkpoint_age_bytes, pages_dirty, and
// history_list_length from Poll.HLL); CPU shares come from CPUShares; load1 is read now. A variable
// the server does not have is nil, never 0. When the server restarted
// inside the window (Uptime went down) or the bounding polls are missing,
// every server metric is nil and "restarted" is 1: see SameLifetime (also
// a restart that leaves Uptime higher than before) and CounterDelta (a
// counter that went down). Counter deltas are exact (uint64) and never
// negative.
func WindowMetrics(polls []Poll, start, end time.Time) map[string]*float64 {
	out := map[string]*float64{}
	for _, c := range statusCounters {
		out[c.metric] = nil
	}
	for _, g := range statusGauges {
		out[g.metric+"_mean"], out[g.metric+"_max"] = nil, nil
	}
	out["bp_hit_ratio"] = nil
	out["restarted"] = nil
	out["history_list_length_mean"], out["history_list_length_max"] = nil, nil
	i, j := Nearest(polls, start), Nearest(polls, end)
	if l, err := ReadLoad1(); err == nil {
		out["load1"] = ptr(l)
	} else {
		out["load1"] = nil
	}
	if i < 0 || j <= i {
		for k, v := range CPUShares(CPUTimes{}, CPUTimes{}) {
			out[k] = v
		}
		return out
	}
	a, b := polls[i], polls[j]
	cpu := CPUShares(CPUTimes{}, CPUTimes{})
	if a.CPUOK && b.CPUOK {
		cpu = CPUShares(a.CPU, b.CPU)
	}
	for k, v := range cpu {
		out[k] = v
	}
	if same, _ := SameLifetime(a, b); !same {
		out["restarted"] = ptr(1)
		return out
	}
	secs := b.At.Sub(a.At).Seconds()
	deltas := map[string]float64{}
	for _, c := range statusCounters {
		for _, v := range strings.Split(c.variable, "|") {
			if _, ok := a.Status.Counter(v); !ok {
				continue
			}
			d, err := CounterDelta(a.Status, b.Status, v)
			if err != nil {
				if _, inB := b.Status.Counter(v); inB {
					// A counter went down: a restart the Uptime check
					// did not see. No delta of this window means anything.
					out["restarted"] = ptr(1)
					return out
				}
				continue
			}
			deltas[c.metric] = float64(d)
			break
		}
	}
	out["restarted"] = ptr(0)
	for _, c := range statusCounters {
		d, ok := deltas[c.metric]
		if !ok {
			continue
		}
		if c.rate {
			if secs <= 0 {
				continue
			}
			d /= secs
		}
		out[c.metric] = ptr(d)
	}
	if r, ok := out["bp_reads_ps"], out["bp_read_requests_ps"]; r != nil && ok != nil && *ok > 0 {
		out["bp_hit_ratio"] = ptr(1 - *r / *ok)
	}
	for _, g := range statusGauges {
		var sum, mx float64
		n := 0
		for _, p := range polls[i : j+1] {
			v, ok := p.Status.Gauge(g.variable)
			if !ok {
				continue
			}
			sum += v
			if n == 0 || v > mx {
				mx = v
			}
			n++
		}
		if n > 0 {
			out[g.metric+"_mean"], out[g.metric+"_max"] = ptr(sum/float64(n)), ptr(mx)
		}
	}
	// The history list length comes from the poller's source (Poll.HLL).
	var sum, mx float64
	n := 0
	for _, p := range polls[i : j+1] {
		if p.HLL == nil {
			continue
		}
		sum += *p.HLL
		if n == 0 || *p.HLL > mx {
			mx = *p.HLL
		}
		n++
	}
	if n > 0 {
		out["history_list_length_mean"], out["history_list_length_max"] = ptr(sum/float64(n)), ptr(mx)
	}
	return out
}
