package dashboard

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// get serves one request and returns the status, body and version.
func get(t *testing.T, h http.Handler, url, version string) (int, string) {
	t.Helper()
	req := httptest.NewRequest("GET", url, nil)
	if version != "" {
		req.Header.Set(VersionHeader, version)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

var versionRe = regexp.MustCompile(`<body data-version="([^"]+)">`)

func pageVersion(t *testing.T, body string) string {
	t.Helper()
	m := versionRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no data-version in the page:\n%.400s", body)
	}
	return m[1]
}

// rowOf returns the table row of trial n.
func rowOf(body string, n int) string {
	i := strings.Index(body, `<tr id="trial-`+itoa(n)+`"`)
	if i < 0 {
		return ""
	}
	j := strings.Index(body[i:], "</tr>")
	return body[i : i+j]
}

func itoa(n int) string { return strconv.Itoa(n) }

// esc escapes s as the page's templates do.
func esc(s string) string {
	var b bytes.Buffer
	if err := template.Must(template.New("").Parse("{{.}}")).Execute(&b, s); err != nil {
		panic(err)
	}
	return b.String()
}

// withRunning begins trial n of study as running with live samples of
// the given tps.
func withRunning(t testing.TB, db *storage.DB, name string, n int, tps ...float64) {
	t.Helper()
	tr := search.Trial{Study: name, Number: n, Kind: search.Sampled, Params: space.Config{}, Started: t0.Add(time.Hour)}
	if err := db.BeginTrial(ctx, tr); err != nil {
		t.Fatal(err)
	}
	var ss []measure.Sample
	for i, v := range tps {
		ss = append(ss, measure.Sample{T: float64(i + 1), Warmup: i == 0, TPS: v})
	}
	if err := db.AppendLiveSamples(ctx, name, n, ss); err != nil {
		t.Fatal(err)
	}
}

func TestDashboardPages(t *testing.T) {
	db, _ := openStore(t)
	trials := synthStudy(t, db, "demo", 40)
	withRunning(t, db, "demo", 40, 500, 900, 1100)
	h := New(db, "trials.db", time.Second)

	// The studies of the store.
	code, body := get(t, h, "/", "")
	if code != 200 {
		t.Fatalf("/: %d %s", code, body)
	}
	best, _ := search.Best(trials)
	gain, _ := exportfile.GainText(measure.GoalTPS, trials, best)
	for _, want := range []string{`<a href="/study?s=demo">demo</a>`, "oltp_read_write/16t/8x100000", "11.4.2-MariaDB", "8 cores, 16.0G RAM",
		"41 (38 complete, 1 running, 1 failed)", "3h40m0s", esc(gain), "#" + itoa(best.Number) + ", score"} {
		if !strings.Contains(body, want) {
			t.Errorf("studies page lacks %q", want)
		}
	}

	// One study.
	code, body = get(t, h, "/study?s=demo", "")
	if code != 200 {
		t.Fatalf("/study: %d %s", code, body)
	}
	if n := strings.Count(body, `<tr id="trial-`); n != 41 {
		t.Errorf("%d trial rows, want 41", n)
	}
	for _, want := range []string{`id="plot-score" src="data:image/png;base64,`, `id="plot-running-40" src="data:image/png;base64,`,
		"3 samples", "last 1100.0 tps at 3s (measuring)", `id="pairs"`, "None stored"} {
		if !strings.Contains(body, want) {
			t.Errorf("study page lacks %q", want)
		}
	}
	if n := strings.Count(body, "<tr><td class=\"num\">"); n != 3 {
		t.Errorf("%d A/B pair rows, want 3", n)
	}
	if !strings.Contains(rowOf(body, 5), "NOT STEADY") || strings.Contains(rowOf(body, 6), "NOT STEADY") {
		t.Errorf("NOT STEADY marks: row 5 %q, row 6 %q", rowOf(body, 5), rowOf(body, 6))
	}
	if !strings.Contains(rowOf(body, 4), "<td>pruned</td>") || !strings.Contains(rowOf(body, 3), "cannot allocate") {
		t.Errorf("pruned or failed rows: %q, %q", rowOf(body, 4), rowOf(body, 3))
	}
	// Changes are against the baseline: the baseline's own row against
	// the defaults, an A/B run of the baseline changes nothing.
	if !strings.Contains(rowOf(body, 35), "(none)") || strings.Contains(rowOf(body, 1), "(none)") {
		t.Errorf("changes: ab-base row %q, trial 1 %q", rowOf(body, 35), rowOf(body, 1))
	}
	imp, _, caveat, why, err := report.ImportanceFigure(space.Lookup(), trials)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case why != "" && !strings.Contains(body, esc(why)):
		t.Errorf("importance not shown, and the page does not say why (%s)", why)
	case why == "" && (len(imp) == 0 || !strings.Contains(body, `id="plot-importance"`)):
		t.Errorf("importance computed (%d knobs), not plotted", len(imp))
	case caveat != "" && !strings.Contains(body, esc(caveat)):
		t.Errorf("importance caveat %q not on the page", caveat)
	}
	// Newest first by default, then sorted as asked.
	order := func(body string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<tr id="trial-(\d+)"`).FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	if o := order(body); o[0] != "40" || o[40] != "0" {
		t.Errorf("default order starts %v … ends %v, want newest first", o[:3], o[38:])
	}
	top, topScore := -1, math.Inf(-1)
	for _, tr := range trials {
		if (tr.State == search.Complete || tr.State == search.Pruned) && tr.Score > topScore {
			top, topScore = tr.Number, tr.Score
		}
	}
	_, sorted := get(t, h, "/study?s=demo&sort=score&desc=1", "")
	if o := order(sorted); o[0] != itoa(top) {
		t.Errorf("sorted by score: first %s, want trial %d", o[0], top)
	}
	_, sorted = get(t, h, "/study?s=demo&sort=number&desc=0", "")
	if o := order(sorted); o[0] != "0" || o[1] != "1" {
		t.Errorf("sorted by number ascending: %v", o[:3])
	}

	// A poll with the current version is answered 204, until the store
	// changes.
	v := pageVersion(t, body)
	if code, _ := get(t, h, "/study?s=demo", v); code != http.StatusNoContent {
		t.Errorf("poll of an unchanged study: %d, want 204", code)
	}
	if err := db.AppendLiveSamples(ctx, "demo", 40, []measure.Sample{{T: 4, TPS: 1200}}); err != nil {
		t.Fatal(err)
	}
	code, body = get(t, h, "/study?s=demo", v)
	if code != 200 || !strings.Contains(body, "4 samples") || pageVersion(t, body) == v {
		t.Errorf("poll after a live sample: %d, 4 samples shown: %v", code, strings.Contains(body, "4 samples"))
	}

	// One trial: what autotune show prints.
	code, body = get(t, h, "/trial?s=demo&n=1", "")
	if code != 200 {
		t.Fatalf("/trial: %d %s", code, body)
	}
	all, err := db.Trials(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := db.Samples(ctx, "demo", 1)
	b, base := search.Best(all)
	var show bytes.Buffer
	report.WriteShow(&show, space.Lookup(), result.TrialDetail{Study: "demo", Trial: all[1], Baseline: base, Best: b, Trials: all, Samples: ss, WithSamples: true})
	if !strings.Contains(body, esc(show.String())) || !strings.Contains(body, `id="plot-trial"`) {
		t.Errorf("trial page does not hold autotune show's text:\n%.600s", body)
	}
	_, body = get(t, h, "/trial?s=demo&n=40", "")
	if !strings.Contains(body, "(running)") || !strings.Contains(body, "per-second samples (4)") {
		t.Errorf("running trial page lacks its live samples:\n%.600s", body)
	}

	// Errors.
	for url, want := range map[string]int{"/study?s=nope": 404, "/trial?s=demo&n=x": 400, "/trial?s=demo&n=99": 404, "/trial?s=nope&n=1": 404, "/nothing": 404} {
		if code, _ := get(t, h, url, ""); code != want {
			t.Errorf("%s: %d, want %d", url, code, want)
		}
	}
}

// TestDashboardEmptyStoreAndRedaction: a store without studies, and a
// store named by a URL holding a password, which no page shows.
func TestDashboardEmptyStoreAndRedaction(t *testing.T) {
	db, _ := openStore(t)
	h := New(db, "mysql://tuner:s3cret@db1/autotune", 0)
	_, body := get(t, h, "/", "")
	if strings.Contains(body, "s3cret") || !strings.Contains(body, "No study yet") || !strings.Contains(body, "tuner:xxx@db1") {
		t.Errorf("empty store page:\n%s", body)
	}
	if err := db.CreateStudy(ctx, storage.StudyRecord{Name: "fresh", Settings: `{}`}); err != nil {
		t.Fatal(err)
	}
	_, body = get(t, h, "/study?s=fresh", "")
	for _, want := range []string{"no complete trial", "No trial is running", "0 trials"} {
		if !strings.Contains(body, want) {
			t.Errorf("a study without trials: page lacks %q", want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve runs Serve on cfg until the test ends and returns its address
// and output.
func serve(t *testing.T, cfg Config) (string, *syncBuffer) {
	t.Helper()
	out := &syncBuffer{}
	ready := make(chan string, 1)
	cfg.Ready = func(a string) { ready <- a }
	cctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(cctx, cfg, out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	select {
	case a := <-ready:
		return a, out
	case err := <-done:
		t.Fatalf("Serve: %v\n%s", err, out.String())
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not listen within 10 s")
	}
	return "", nil
}

func TestServeListenAndWarning(t *testing.T) {
	db, path := openStore(t)
	synthStudy(t, db, "demo", 10)
	addr, out := serve(t, Config{DB: path, Listen: "127.0.0.1:0"})
	resp, err := http.Get("http://" + addr + "/study?s=demo")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `id="trials"`) {
		t.Errorf("served study page: %d\n%.300s", resp.StatusCode, b)
	}
	if strings.Contains(out.String(), "warning") || !strings.Contains(out.String(), "(read-only) on http://127.0.0.1:") {
		t.Errorf("output on loopback: %q", out.String())
	}
	_, out = serve(t, Config{DB: path, Listen: "0.0.0.0:0"})
	if !strings.HasPrefix(out.String(), "warning: --listen 0.0.0.0:0 serves the dashboard to every machine") {
		t.Errorf("output on every interface: %q", out.String())
	}
	if err := Serve(ctx, Config{DB: path, Listen: "8080"}, io.Discard); !errors.Is(err, ErrListen) {
		t.Errorf("--listen 8080: %v, want ErrListen", err)
	}
	if err := Serve(ctx, Config{DB: path + ".none", Listen: "127.0.0.1:0"}, io.Discard); err == nil {
		t.Error("Serve of a missing store: no error")
	}
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "127.0.0.2": true, "": false, "0.0.0.0": false, "192.168.1.4": false, "example.com": false} {
		if got := Loopback(host); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// A running trial still without a steady start past its study's warm-up
// limit says its window will be NOT STEADY; before the limit, that it is
// warming up.
func TestRunningTrialPastTheWarmupLimit(t *testing.T) {
	db, _ := openStore(t)
	man := storage.Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 100000, Measure: storage.MeasureManifest{WarmupMaxS: 2}}
	if err := db.CreateStudy(ctx, storage.StudyRecord{Name: "slow", Settings: man.JSON(), Created: t0}); err != nil {
		t.Fatal(err)
	}
	tr := search.Trial{Study: "slow", Number: 0, Kind: search.Baseline, Params: space.Config{}, Started: t0}
	if err := db.BeginTrial(ctx, tr); err != nil {
		t.Fatal(err)
	}
	h := New(db, "trials.db", time.Second)
	add := func(s measure.Sample) string {
		t.Helper()
		if err := db.AppendLiveSamples(ctx, "slow", 0, []measure.Sample{s}); err != nil {
			t.Fatal(err)
		}
		_, body := get(t, h, "/study?s=slow", "")
		return body
	}
	if body := add(measure.Sample{T: 1, Warmup: true, TPS: 300}); !strings.Contains(body, "last 300.0 tps at 1s (warming up)") {
		t.Errorf("before the limit: %s", body)
	}
	if body := add(measure.Sample{T: 3, Warmup: true, TPS: 500}); !strings.Contains(body, "last 500.0 tps at 3s (no steady start by the 2s warm-up limit: its window will be NOT STEADY)") {
		t.Errorf("past the limit: %s", body)
	}
}
