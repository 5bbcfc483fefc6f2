package dashboard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// browser is a headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: it reads commands on fd 3 and writes
// answers and events on fd 4, each a JSON message ended by a NUL byte).
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      *os.File
	mu      sync.Mutex
	next    int
	waiting map[int]chan json.RawMessage
	errs    []string // console errors, exceptions, failed loads
	session string
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	chromium := realtest.Chromium(t)
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium, append(realtest.ChromiumArgs(t.TempDir()), "--remote-debugging-pipe", "about:blank")...)
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	outW.Close()
	b := &browser{t: t, cmd: cmd, in: cmdW, waiting: map[int]chan json.RawMessage{}}
	t.Cleanup(func() {
		cmdW.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		outR.Close()
	})
	go b.read(outR)
	return b
}

// read dispatches Chromium's messages: answers to their callers, events
// that report an error to errs.
func (b *browser) read(r *os.File) {
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		switch {
		case m.ID != 0:
			if ch := b.waiting[m.ID]; ch != nil {
				if m.Error != nil {
					ch <- json.RawMessage(`{"error":` + string(m.Error) + `}`)
				} else {
					ch <- m.Result
				}
			}
		case m.Method == "Runtime.exceptionThrown":
			b.errs = append(b.errs, "exception: "+string(m.Params))
		case m.Method == "Runtime.consoleAPICalled" && strings.Contains(string(m.Params), `"type":"error"`):
			b.errs = append(b.errs, "console.error: "+string(m.Params))
		case m.Method == "Log.entryAdded" && strings.Contains(string(m.Params), `"level":"error"`):
			b.errs = append(b.errs, "log: "+string(m.Params))
		}
		b.mu.Unlock()
	}
}

// call sends a command (to the attached page when session is set) and
// returns its result.
func (b *browser) call(method string, params any) json.RawMessage {
	b.t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan json.RawMessage, 1)
	b.waiting[id] = ch
	msg := map[string]any{"id": id, "method": method, "params": params}
	if b.session != "" {
		msg["sessionId"] = b.session
	}
	b.mu.Unlock()
	data, _ := json.Marshal(msg)
	if _, err := b.in.Write(append(data, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case res := <-ch:
		if bytes.HasPrefix(res, []byte(`{"error":`)) {
			b.t.Fatalf("%s: %s", method, res)
		}
		return res
	case <-time.After(30 * time.Second):
		b.t.Fatalf("%s: no answer within 30 s", method)
	}
	return nil
}

// open makes a page, attaches to it and loads url.
func (b *browser) open(url string) {
	b.t.Helper()
	var target struct{ TargetID string }
	json.Unmarshal(b.call("Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var att struct{ SessionID string }
	json.Unmarshal(b.call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	b.session = att.SessionID
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		b.call(m, map[string]any{})
	}
	b.call("Page.navigate", map[string]any{"url": url})
	b.waitFor(`document.readyState === "complete" && document.getElementById("live") !== null`, 15*time.Second, "the page loads")
}

// eval returns the value of a JavaScript expression as JSON text.
func (b *browser) eval(expr string) string {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
	}
	json.Unmarshal(b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r)
	return string(r.Result.Value)
}

// waitFor polls a JavaScript condition until it is true or d passes.
func (b *browser) waitFor(cond string, d time.Duration, what string) {
	b.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if b.eval("!!("+cond+")") == "true" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatalf("within %s: %s did not happen (%s)\npage text:\n%.1500s", d, what, cond, b.eval("document.body.innerText"))
}

func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// TestDashboardLiveInChromiumSQLite and ...MySQL open the dashboard in
// headless Chromium while another connection writes the store as a study
// does, and check that a trial that finishes and the running trial's
// samples appear without a reload, that the trial page opens, and that
// the page logs no error.
func TestDashboardLiveInChromiumSQLite(t *testing.T) {
	realtest.Chromium(t)
	_, path := openStore(t)
	liveInBrowser(t, path)
}

func TestDashboardLiveInChromiumMySQL(t *testing.T) {
	realtest.Chromium(t)
	srv := teststore.Start(t, "")
	liveInBrowser(t, srv.URL("dash"))
}

// writerEnv names the store TestDashboardStudyWriterProcess writes.
const writerEnv = "AUTOTUNE_DASHBOARD_WRITER"

// TestDashboardStudyWriterProcess is the study process of liveInBrowser,
// not a test of its own: run in a process of its own with writerEnv set
// to a store whose study "demo" has trial 12 running, it writes as a
// running study does: trial 12's samples second by second (here every
// 200 ms), its end, then trial 13's start and its samples until it is
// killed (30 s at most).
func TestDashboardStudyWriterProcess(t *testing.T) {
	store := os.Getenv(writerEnv)
	if store == "" {
		t.Skip("the study process of the dashboard's browser tests; run by them")
	}
	w, err := storage.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	running, found, err := w.Trial(ctx, "demo", 12)
	if err != nil || !found {
		t.Fatalf("trial 12: found %v, %v", found, err)
	}
	var ss []measure.Sample
	for i := 1; i <= 3; i++ {
		s := measure.Sample{T: float64(i), TPS: 900 + float64(i)}
		ss = append(ss, s)
		if err := w.AppendLiveSamples(ctx, "demo", 12, []measure.Sample{s}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	running.State, running.Ended, running.Samples = search.Complete, time.Now(), ss
	running.MeanTPS, running.Score = 902, 1777.7
	if err := w.FinishTrial(ctx, running, time.Second); err != nil {
		t.Fatal(err)
	}
	next := search.Trial{Study: "demo", Number: 13, Kind: search.Sampled, Params: space.Config{}, Started: time.Now()}
	if err := w.BeginTrial(ctx, next); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 120; i++ {
		if err := w.AppendLiveSamples(ctx, "demo", 13, []measure.Sample{{T: float64(i), Warmup: i < 3, TPS: 1000 + 10*float64(i)}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func liveInBrowser(t *testing.T, store string) {
	// The study so far: trials 0 .. 11, trial 12 running.
	w, err := storage.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	synthStudy(t, w, "demo", 12)
	running := search.Trial{Study: "demo", Number: 12, Kind: search.Sampled, Params: space.Config{"innodb_io_capacity": "800"}, Started: time.Now()}
	if err := w.BeginTrial(ctx, running); err != nil {
		t.Fatal(err)
	}
	w.Close()

	addr, _ := serve(t, Config{DB: store, Listen: "127.0.0.1:0", Poll: 300 * time.Millisecond})
	b := startBrowser(t)
	b.open("http://" + addr + "/study?s=demo")
	if got := b.eval(`document.querySelectorAll("#trials tr[id^=trial-]").length`); got != "13" {
		t.Fatalf("%s trial rows at first, want 13", got)
	}
	b.eval(`window.__sameLoad = 1`) // gone if the page reloads

	// The study goes on in another process: trial 12 measures and
	// finishes, trial 13 starts and its samples arrive second by second.
	var out bytes.Buffer
	study := exec.Command(os.Args[0], "-test.run=^TestDashboardStudyWriterProcess$", "-test.v")
	study.Env = append(os.Environ(), writerEnv+"="+store)
	study.Stdout, study.Stderr = &out, &out
	if err := study.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- study.Wait() }()
	defer func() {
		select {
		case err := <-exited:
			t.Errorf("the study process ended before the checks did (%v):\n%s", err, out.String())
		default:
			study.Process.Kill()
			<-exited
		}
	}()

	b.waitFor(`(document.querySelector("#trial-12") || {}).textContent.includes("1777.7")`, 8*time.Second, "trial 12 shows as finished with its score")
	b.waitFor(`document.getElementById("plot-running-13") !== null && /([3-9]|\d\d+) samples/.test(document.getElementById("running-13").textContent)`,
		8*time.Second, "the running trial 13 shows its samples as they arrive")
	if got := b.eval(`window.__sameLoad`); got != "1" {
		t.Fatalf("the page reloaded (window.__sameLoad = %s)", got)
	}
	if got := b.eval(`document.querySelectorAll("#trials tr[id^=trial-]").length`); got != "14" {
		t.Errorf("%s trial rows, want 14", got)
	}
	if e := b.errors(); len(e) > 0 {
		t.Errorf("the study page logged errors:\n%s", strings.Join(e, "\n"))
	}

	// The trial page opens from the table.
	b.eval(`document.querySelector("#trial-12 a").click()`)
	b.waitFor(`location.pathname === "/trial" && document.readyState === "complete" && (document.getElementById("show") || {}).textContent.includes("study demo, trial 12 (sampled")`,
		8*time.Second, "the trial page of trial 12 opens")
	if !strings.Contains(b.eval(`document.getElementById("show").textContent`), "per-second samples (3)") {
		t.Errorf("trial page: %s", b.eval(`document.getElementById("show").textContent`))
	}
	time.Sleep(700 * time.Millisecond) // a poll or two on the trial page
	if e := b.errors(); len(e) > 0 {
		t.Errorf("the pages logged errors:\n%s", strings.Join(e, "\n"))
	}
}
