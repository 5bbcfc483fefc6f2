package runner

import (
	"math"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     CPUTimes
		err      bool
	}{
		{"linux 6", "cpu  100 5 50 800 10 1 4 30 0 0\ncpu0 50 2 25 400 5 0 2 15 0 0\nintr 1\n",
			CPUTimes{User: 100, Nice: 5, System: 50, Idle: 800, IOWait: 10, IRQ: 1, SoftIRQ: 4, Steal: 30}, false},
		{"old kernel without steal", "cpu  100 5 50 800 10 1 4\n", CPUTimes{User: 100, Nice: 5, System: 50, Idle: 800, IOWait: 10, IRQ: 1, SoftIRQ: 4}, false},
		{"no cpu line", "intr 5\n", CPUTimes{}, true},
		{"garbage", "cpu  1 x 3 4 5\n", CPUTimes{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseProcStat(tc.in)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
}

func TestCPUShares(t *testing.T) {
	a := CPUTimes{User: 100, System: 50, Idle: 800, Steal: 30}
	b := CPUTimes{User: 150, Nice: 10, System: 70, IRQ: 5, SoftIRQ: 5, Idle: 800, IOWait: 0, Steal: 40}
	s := CPUShares(a, b) // deltas: user 60, sys 30, idle 0, steal 10: total 100
	if *s["cpu_user"] != 60 || *s["cpu_sys"] != 30 || *s["cpu_steal"] != 10 || *s["cpu_idle"] != 0 || *s["cpu_iowait"] != 0 {
		t.Fatalf("%v", s)
	}
	for k, v := range CPUShares(b, a) {
		if v != nil {
			t.Fatalf("%s = %v for counters going backwards, want nil", k, *v)
		}
	}
}

func poll(at int, cpu CPUTimes, hll *float64, kv ...string) Poll {
	st := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		st[kv[i]] = kv[i+1]
	}
	return Poll{At: time.Unix(int64(at), 0), Status: st, CPU: cpu, CPUOK: true, HLL: hll}
}

func TestWindowMetrics(t *testing.T) {
	h := func(v float64) *float64 { return &v }
	polls := []Poll{
		poll(0, CPUTimes{User: 0, Idle: 0}, h(10), "Uptime", "100", "Innodb_rows_read", "0", "Innodb_buffer_pool_reads", "0", "Innodb_buffer_pool_read_requests", "0", "Threads_running", "3", "Innodb_log_waits", "2"),
		poll(10, CPUTimes{User: 50, Idle: 50}, h(100), "Uptime", "110", "Innodb_rows_read", "1000", "Innodb_buffer_pool_reads", "10", "Innodb_buffer_pool_read_requests", "100", "Threads_running", "17", "Innodb_log_waits", "2"),
		poll(20, CPUTimes{User: 100, Idle: 100}, h(40), "Uptime", "120", "Innodb_rows_read", "3000", "Innodb_buffer_pool_reads", "20", "Innodb_buffer_pool_read_requests", "1000", "Threads_running", "1", "Innodb_log_waits", "5"),
	}
	m := WindowMetrics(polls, time.Unix(0, 300e6), time.Unix(19, 0))
	want := map[string]float64{
		"rows_read_ps": 150, "bp_reads_ps": 1, "bp_read_requests_ps": 50, "bp_hit_ratio": 0.98,
		"threads_running_mean": 7, "threads_running_max": 17, "log_waits": 3,
		"history_list_length_mean": 50, "history_list_length_max": 100,
		"cpu_user": 50, "cpu_idle": 50, "restarted": 0,
	}
	for k, v := range want {
		if m[k] == nil || math.Abs(*m[k]-v) > 1e-9 {
			t.Errorf("%s = %v, want %g", k, m[k], v)
		}
	}
	// Variables this server does not have are nil, not 0.
	for _, k := range []string{"rows_inserted_ps", "checkpoint_age_bytes_mean", "deadlocks"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want nil", k, v, ok)
		}
	}
	// MariaDB 10.11 has no Innodb_rows_read: Rows_read stands in.
	fb := []Poll{poll(0, CPUTimes{}, nil, "Uptime", "1", "Rows_read", "10"), poll(10, CPUTimes{}, nil, "Uptime", "11", "Rows_read", "110")}
	if m := WindowMetrics(fb, time.Unix(0, 0), time.Unix(10, 0)); m["rows_read_ps"] == nil || *m["rows_read_ps"] != 10 {
		t.Fatalf("fallback rows_read_ps %v", m["rows_read_ps"])
	}
	// A restart inside the window (Uptime went down): no server deltas.
	polls[2].Status["Uptime"] = "3"
	m = WindowMetrics(polls, time.Unix(0, 0), time.Unix(20, 0))
	if m["rows_read_ps"] != nil || m["restarted"] == nil || *m["restarted"] != 1 {
		t.Fatalf("after a restart: rows_read_ps %v restarted %v", m["rows_read_ps"], m["restarted"])
	}
	if m["cpu_user"] == nil {
		t.Fatal("CPU shares do not depend on the server")
	}
}
