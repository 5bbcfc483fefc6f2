package dashboard

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/storage"
)

// eventsOf returns the steps column of an apply page's events table, in
// the page's order.
func eventsOf(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<tr id="event-\d+"><td class="num">\d+</td><td>[^<]*</td><td>(?:<span class="warn">)?([a-z]+)`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// applyRowOf returns the applies table's row of apply id.
func applyRowOf(body string, id int64) string {
	i := strings.Index(body, `<tr id="apply-`+itoa(int(id))+`"`)
	if i < 0 {
		return ""
	}
	j := strings.Index(body[i:], "</tr>")
	return body[i : i+j]
}

func TestDashboardApplies(t *testing.T) {
	db, _ := openStore(t)
	synthStudy(t, db, "demo", 10)
	passed, running := synthApplies(t, db)
	h := New(db, "trials.db", time.Second)

	// The first page lists both, newest first, the running one as such.
	code, body := get(t, h, "/", "")
	if code != 200 {
		t.Fatalf("/: %d %s", code, body)
	}
	if !strings.Contains(body, `<a href="/study?s=demo">demo</a>`) {
		t.Error("the first page lost its studies")
	}
	p, r := applyRowOf(body, passed), applyRowOf(body, running)
	if p == "" || r == "" || strings.Index(body, r) > strings.Index(body, p) {
		t.Fatalf("applies rows (newest first): passed %q, running %q", p, r)
	}
	for _, want := range []string{`<a href="/apply?id=1">1</a>`, esc("tuner@tcp(db1:3306)/ (db1:3306, uuid 1111)"), "trial 7 of study demo",
		"2025-03-01 22:00:00", "<td>passed</td>", "<td>pass</td>", "new settings 16.0 % faster"} {
		if !strings.Contains(p, want) {
			t.Errorf("passed apply's row lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "<b>running</b>") || strings.Contains(p, `class="running"`) {
		t.Errorf("a passed apply shows as running: %s", p)
	}
	for _, want := range []string{`class="running"`, "<b>running</b>", "tuned.cnf", "<td>watching</td>", "<td>-</td>",
		"last step window: pair 1 old: 900 statements, 30.0/s, mean 3.000 ms"} {
		if !strings.Contains(r, want) {
			t.Errorf("running apply's row lacks %q:\n%s", want, r)
		}
	}
	// A step of the running apply changes the first page.
	v := pageVersion(t, body)
	if code, _ := get(t, h, "/", v); code != http.StatusNoContent {
		t.Errorf("poll of an unchanged first page: %d, want 204", code)
	}

	// The passed apply: its changes, its windows per pair, its steps in
	// order.
	code, body = get(t, h, "/apply?id=1", "")
	if code != 200 {
		t.Fatalf("/apply?id=1: %d %s", code, body)
	}
	for _, want := range []string{"<h1>Apply 1</h1>", `id="changes"`, "<td>innodb_io_capacity</td><td>dynamic</td><td>200</td><td>2000</td>",
		`<tr id="pair-1"><td class="num">1</td><td class="num">40.0</td><td class="num">42.0</td><td class="num">2.500</td><td class="num">2.000</td><td class="num">-20.0 %</td>`,
		`<tr id="pair-2"><td class="num">2</td><td class="num">41.0</td><td class="num">43.0</td><td class="num">2.400</td><td class="num">2.100</td><td class="num">-12.5 %</td>`,
		"persisted: innodb_io_capacity"} {
		if !strings.Contains(body, want) {
			t.Errorf("passed apply's page lacks %q", want)
		}
	}
	want := []string{"phase", "statistics", "set", "phase", "window", "window", "window", "window", "phase", "persist", "phase"}
	if got := eventsOf(body); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("passed apply's steps:\n got %v\nwant %v", got, want)
	}

	// The running apply: live, a poll sees the steps appended since.
	code, body = get(t, h, "/apply?id=2", "")
	if code != 200 || !strings.Contains(body, "<h1>Apply 2 (running)</h1>") || !strings.Contains(body, `<tr id="pair-1"><td class="num">1</td><td class="num">30.0</td><td class="num">-</td><td class="num">3.000</td><td class="num">-</td><td class="num">-</td>`) {
		t.Fatalf("running apply's page: %d\n%s", code, body)
	}
	if n := len(eventsOf(body)); n != 5 {
		t.Errorf("running apply: %d steps, want 5", n)
	}
	v = pageVersion(t, body)
	if code, _ := get(t, h, "/apply?id=2", v); code != http.StatusNoContent {
		t.Errorf("poll of an unchanged apply: %d, want 204", code)
	}
	_, first := get(t, h, "/", "")
	if err := db.AddApplyEvent(ctx, storage.ApplyEvent{Apply: running, At: t0.Add(time.Hour + 64*time.Second), Kind: "switch", Detail: "pair 1: new settings"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddApplyEvent(ctx, storage.ApplyEvent{Apply: running, At: t0.Add(time.Hour + 124*time.Second), Kind: "window", Detail: "pair 1 new: 960 statements, 32.0/s, mean 2.700 ms"}); err != nil {
		t.Fatal(err)
	}
	code, body = get(t, h, "/apply?id=2", v)
	if code != 200 || pageVersion(t, body) == v {
		t.Fatalf("poll after new steps: %d, version unchanged: %v", code, code == 200 && pageVersion(t, body) == v)
	}
	if got := eventsOf(body); len(got) != 7 || got[5] != "switch" || got[6] != "window" {
		t.Errorf("steps after the poll: %v, want the 2 new ones appended", got)
	}
	if !strings.Contains(body, `<td class="num">3.000</td><td class="num">2.700</td><td class="num">-10.0 %</td>`) {
		t.Errorf("pair 1 after its new window:\n%s", body)
	}
	if code, body := get(t, h, "/", pageVersion(t, first)); code != 200 || !strings.Contains(applyRowOf(body, running), "last step window: pair 1 new") {
		t.Errorf("first page after new steps: %d, row %q", code, applyRowOf(body, running))
	}

	// It ends: no longer running, anywhere.
	if err := db.SetApplyPhase(ctx, running, storage.ApplyReverted, "tripwire", "threads_running 300 (limit 200)"); err != nil {
		t.Fatal(err)
	}
	_, body = get(t, h, "/apply?id=2", pageVersion(t, body))
	if strings.Contains(body, "(running)") || !strings.Contains(body, "<td id=\"phase\">reverted</td>") || !strings.Contains(body, "threads_running 300 (limit 200)") {
		t.Errorf("ended apply's page:\n%s", body)
	}
	_, body = get(t, h, "/", "")
	if r := applyRowOf(body, running); strings.Contains(r, "<b>running</b>") || !strings.Contains(r, "<td>tripwire</td>") {
		t.Errorf("ended apply's row: %s", r)
	}

	// Errors.
	for url, want := range map[string]int{"/apply?id=x": 400, "/apply": 400, "/apply?id=0": 400, "/apply?id=99": 404} {
		if code, _ := get(t, h, url, ""); code != want {
			t.Errorf("%s: %d, want %d", url, code, want)
		}
	}
}

func TestApplyWindowDetail(t *testing.T) {
	for detail, want := range map[string]string{
		"pair 2 new: 1234 statements, 41.1/s, mean 2.345 ms": "2 new 1234 41.1 2.345",
		"pair 1 old: 10 statements, 0.5/s, mean 0.000 ms":    "1 old 10 0.5 0",
		"pair 3 old: 10 statements, 0.5/s":                   "3 old 10 0.5 0",
		"pair 3 new : 7 statements, 1.0/s":                   "3 new 7 1 0",
		"pair 1: old settings":                               "",
	} {
		w, ok := applyWindow(detail)
		got := ""
		if ok {
			got = strings.Join([]string{itoa(w.Pair), w.Arm, itoa(int(w.Calls)), f(w.PerSecond), f(w.MeanMS)}, " ")
		}
		if got != want {
			t.Errorf("applyWindow(%q) = %q, want %q", detail, got, want)
		}
	}
}

func f(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
