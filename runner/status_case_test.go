package runner

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// statusCase is case global-status-source-and-deltas (its version strings
// are tested in space, TestParseVersionFieldStrings).
const statusCase = "testdata/global-status-source-and-deltas"

// readStatusTSV reads a "Variable_name<TAB>Value" snapshot.
func readStatusTSV(t *testing.T, name string) GlobalStatus {
	t.Helper()
	st := GlobalStatus{}
	for _, row := range readCaseTSV(t, filepath.Join(statusCase, name)) {
		st[row["Variable_name"]] = row["Value"]
	}
	return st
}

// global-status-source-and-deltas: counters are read with SHOW GLOBAL
// STATUS, as exact unsigned 64-bit integers; a delta across a server
// restart (Uptime lower, or a start time that moved, or a counter lower)
// is invalid and never negative; a variable the server lacks is absent.
func TestGlobalStatusSourceAndDeltas(t *testing.T) {
	var want struct {
		Source        string   `json:"status_source"`
		NaiveQPS      float64  `json:"from_session_snapshot_naive_qps"`
		QPS           float64  `json:"correct_avg_qps_since_start"`
		Need64        []string `json:"counters_need_64bit"`
		DeltaExpected struct {
			Valid  bool   `json:"valid"`
			Reason string `json:"reason"`
			Naive  int64  `json:"naive_delta_questions"`
		} `json:"delta_before_to_after"`
		Missing *string `json:"missing_variable_query_cache_size_on_8.0"`
	}
	b, err := os.ReadFile(filepath.Join(statusCase, "expected.json"))
	if err != nil || json.Unmarshal(b, &want) != nil {
		t.Fatalf("expected.json: %v", err)
	}
	before, after := readStatusTSV(t, "show-global-status-before.tsv"), readStatusTSV(t, "show-global-status-after-restart.tsv")
	session := readStatusTSV(t, "show-status-session.tsv")

	// Rule 2: the source is global scope; the session's counters would
	// give the naive 0 qps.
	if !strings.HasPrefix(want.Source, StatusQuery+" ") || StatusQuery != "SHOW GLOBAL STATUS" {
		t.Errorf("status query %q, case says %q", StatusQuery, want.Source)
	}
	rate := func(s GlobalStatus) float64 {
		q, ok1 := s.Counter("Questions")
		up, ok2 := s.Counter("Uptime")
		if !ok1 || !ok2 {
			t.Fatal("Questions or Uptime missing")
		}
		return float64(q) / float64(up)
	}
	if got := rate(before); math.Abs(got-want.QPS) > 0.001 {
		t.Errorf("global qps since start %.3f, want %.3f", got, want.QPS)
	}
	if got := rate(session); math.Abs(got-want.NaiveQPS) > 1e-8 {
		t.Errorf("session qps %.8f, want the naive %.8f", got, want.NaiveQPS)
	}
	for _, name := range want.Need64 {
		n, ok := before.Counter(name)
		if !ok || n <= math.MaxUint32 || before[name] != strings.TrimSpace(before[name]) {
			t.Errorf("%s = %d (%v): want it read whole, beyond 32 bits", name, n, ok)
		}
	}
	// Exact where a float64 is not: two counters 2 apart just above 2^60.
	big := GlobalStatus{"Bytes_sent": "1152921504606846977"}
	bigger := GlobalStatus{"Bytes_sent": "1152921504606846979"}
	if d, err := CounterDelta(big, bigger, "Bytes_sent"); err != nil || d != 2 {
		t.Errorf("delta near 2^60 = %d, %v; want 2", d, err)
	}

	// Rule 3: the before/after snapshots straddle a restart.
	t0 := time.Unix(1_700_000_000, 0)
	a, z := Poll{At: t0, Status: before}, Poll{At: t0.Add(10 * time.Minute), Status: after}
	same, why := SameLifetime(a, z)
	if same || want.DeltaExpected.Valid || !strings.HasPrefix(want.DeltaExpected.Reason, why[:strings.Index(why, ":")]) {
		t.Errorf("SameLifetime = %v, %q; case: %q", same, why, want.DeltaExpected.Reason)
	}
	qa, _ := before.Counter("Questions")
	qz, _ := after.Counter("Questions")
	if int64(qz)-int64(qa) != want.DeltaExpected.Naive {
		t.Fatalf("naive delta %d, case %d", int64(qz)-int64(qa), want.DeltaExpected.Naive)
	}
	if d, err := CounterDelta(before, after, "Questions"); err == nil || !strings.Contains(err.Error(), "restarted") {
		t.Errorf("CounterDelta across the restart = %d, %v; want an error, never a negative", d, err)
	}
	m := WindowMetrics([]Poll{a, z}, a.At, z.At)
	if m["restarted"] == nil || *m["restarted"] != 1 || m["questions_ps"] != nil {
		t.Errorf("window metrics across the restart: restarted %v questions_ps %v", m["restarted"], m["questions_ps"])
	}
	// A restart that leaves Uptime higher than before: Uptime 100, then
	// 10 minutes later 185 (the server started again 415 s after a).
	young := GlobalStatus{"Uptime": "100", "Questions": "900000"}
	again := GlobalStatus{"Uptime": "185", "Questions": "815540"}
	if same, why := SameLifetime(Poll{At: t0, Status: young}, Poll{At: t0.Add(10 * time.Minute), Status: again}); same || !strings.Contains(why, "start time moved later") {
		t.Errorf("restart with a higher Uptime: %v %q", same, why)
	}
	// Same, but the new lifetime already counted more than the old one:
	// no counter went down, the moved start time alone tells.
	busier := GlobalStatus{"Uptime": "185", "Questions": "999999999"}
	m = WindowMetrics([]Poll{{At: t0, Status: young}, {At: t0.Add(10 * time.Minute), Status: busier}}, t0, t0.Add(10*time.Minute))
	if *m["restarted"] != 1 || m["questions_ps"] != nil {
		t.Errorf("restart with more questions: restarted %v questions_ps %v", *m["restarted"], m["questions_ps"])
	}
	// A counter lower with a plausible Uptime: still a restart, no rate.
	m = WindowMetrics([]Poll{{At: t0, Status: GlobalStatus{"Uptime": "100", "Questions": "50"}}, {At: t0.Add(10 * time.Second), Status: GlobalStatus{"Uptime": "110", "Questions": "40"}}}, t0, t0.Add(10*time.Second))
	if *m["restarted"] != 1 || m["questions_ps"] != nil {
		t.Errorf("counter went down: restarted %v questions_ps %v", *m["restarted"], m["questions_ps"])
	}
	// One lifetime: an exact, positive rate.
	m = WindowMetrics([]Poll{{At: t0, Status: GlobalStatus{"Uptime": "100", "Questions": "50"}}, {At: t0.Add(10 * time.Second), Status: GlobalStatus{"Uptime": "110", "Questions": "70"}}}, t0, t0.Add(10*time.Second))
	if *m["restarted"] != 0 || m["questions_ps"] == nil || *m["questions_ps"] != 2 {
		t.Errorf("one lifetime: restarted %v questions_ps %v", *m["restarted"], m["questions_ps"])
	}

	// Rule 5: a variable the server does not have (query_cache_size on
	// 8.0: "Empty set") is absent, not 0 and not an error.
	q, err := os.ReadFile(filepath.Join(statusCase, "query-results.txt"))
	if err != nil || !strings.Contains(string(q), "Empty set") || want.Missing != nil {
		t.Fatalf("query-results.txt: %v", err)
	}
	if _, ok := (GlobalStatus{}).Counter("Query_cache_size"); ok {
		t.Error("an absent variable read as present")
	}
	if m["rows_read_ps"] != nil || m["bp_hit_ratio"] != nil {
		t.Errorf("counters the server lacks: rows_read_ps %v bp_hit_ratio %v, want nil", m["rows_read_ps"], m["bp_hit_ratio"])
	}
}

// TestSameLifetimeClocks: a server start time (poll time − Uptime) that
// moved counts only when the wall clock and the monotonic clock agree and
// a slow status query does not explain it.
func TestSameLifetimeClocks(t *testing.T) {
	const s = time.Second
	for _, tc := range []struct {
		name         string
		ua, ub       uint64
		wall, mono   time.Duration
		tookA, tookB time.Duration
		same         bool
		why          string
	}{
		{"one second, Uptime +1", 100, 101, s, s, 0, 0, true, ""},
		{"restart 10 min later, Uptime 100 -> 185", 100, 185, 600 * s, 600 * s, 0, 0, false, "moved later by 8m35s"},
		// A CI machine read "Uptime 2 -> 10 in 1s": its wall clock was
		// stepped 7 s forward between the polls.
		{"wall clock stepped forward", 2, 10, 8 * s, s, 0, 0, true, ""},
		// The same reading from a reply that came late (a poll's query
		// times out after 3 s; a stall before it counts too).
		{"late reply", 2, 10, s, s, 0, 7 * s, true, ""},
		// A server elsewhere whose polls this host's stepped wall clock
		// stamped: the monotonic clock shows one lifetime.
		{"this host's wall clock stepped back", 100, 160, 40 * s, 60 * s, 0, 0, true, ""},
		{"this host's wall clock stepped forward", 100, 160, 80 * s, 60 * s, 0, 0, true, ""},
		{"restart, slow first poll", 100, 130, 60 * s, 60 * s, 3 * s, 0, false, "moved later by 30s"},
		{"a move a slow first poll explains", 100, 103, 10 * s, 10 * s, 4 * s, 0, true, ""},
		{"an older server answered", 100, 700, 60 * s, 60 * s, 0, 0, false, "moved earlier by 9m0s"},
		// Clocks that disagree hide no restart, and a slow second poll
		// explains no later move.
		{"restart, wall clock stepped forward", 100, 110, 80 * s, 60 * s, 0, 0, false, "moved later by 50s"},
		{"restart, slow second poll", 100, 103, 10 * s, 10 * s, 0, 3 * s, false, "moved later by 7s"},
	} {
		same, why := sameLifetime(tc.ua, tc.ub, tc.wall, tc.mono, tc.tookA, tc.tookB)
		if same != tc.same || !strings.Contains(why, tc.why) {
			t.Errorf("%s: %v %q; want %v %q", tc.name, same, why, tc.same, tc.why)
		}
	}
}
