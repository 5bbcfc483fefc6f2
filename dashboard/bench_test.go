package dashboard

import (
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkDashboardFirstPage serves the first pages of a study of 2,000
// trials (synthesised in an SQLite store, one trial running): the studies
// list and the study page, as a browser opening the dashboard asks for
// them. It reports the heap in use after serving (MB) and the process's
// peak resident set (MB), beside the allocations.
func BenchmarkDashboardFirstPage(b *testing.B) {
	db, _ := openStore(b)
	synthStudy(b, db, "big", 2000)
	withRunning(b, db, "big", 2000, 800, 900, 1000)
	h := New(db, "trials.db", 0)
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		for _, url := range []string{"/", "/study?s=big"} {
			rec := newDiscard()
			h.ServeHTTP(rec, mustRequest(b, url))
			if rec.code != 0 && rec.code != http.StatusOK {
				b.Fatalf("%s: %d", url, rec.code)
			}
			if url != "/" && !strings.Contains(rec.head, "<!DOCTYPE html>") {
				b.Fatalf("%s: not a page", url)
			}
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	b.StopTimer()
	b.ReportMetric(float64(peak)/(1<<20), "heap-inuse-MB")
	if kb := peakRSSKB(); kb > 0 {
		// The whole test process's peak, the store's synthesis included:
		// an upper bound of what the dashboard needs.
		b.ReportMetric(float64(kb)/1024, "process-peak-RSS-MB")
	}
	if peak > 100<<20 {
		b.Errorf("heap in use reached %.0f MB serving the first page, over the 100 MB goal", float64(peak)/(1<<20))
	}
}

// peakRSSKB returns the process's peak resident set (VmHWM of
// /proc/self/status) in KiB, 0 where there is none.
func peakRSSKB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// discard is a ResponseWriter that keeps the status and the first bytes.
type discard struct {
	h    http.Header
	code int
	head string
}

func newDiscard() *discard { return &discard{h: http.Header{}} }

func (d *discard) Header() http.Header { return d.h }
func (d *discard) WriteHeader(c int)   { d.code = c }
func (d *discard) Write(p []byte) (int, error) {
	if d.head == "" {
		d.head = string(p[:min(len(p), 64)])
	}
	return len(p), nil
}

func mustRequest(b *testing.B, url string) *http.Request {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		b.Fatal(err)
	}
	return req
}
