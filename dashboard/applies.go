package dashboard

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// applyRow is one apply in the studies page's applies table and at the
// head of its own page.
type applyRow struct {
	ID                     int64
	Server, DSN, Source    string
	Started, Ended         string // UTC, "-" while running
	Phase, Verdict, Reason string
	// Running: a pending phase (storage.PendingPhase) and no end; the
	// apply is in progress, or was interrupted and the next apply on the
	// server finishes it.
	Running bool
	// Last is the latest step of a running apply ("kind: detail"), "" when
	// none or not running.
	Last string
}

// applyRunning reports whether a shows as running: a pending phase while
// it has no end.
func applyRunning(a storage.ApplyRecord) bool {
	return storage.PendingPhase(a.Phase) && a.Ended.IsZero()
}

func newApplyRow(a storage.ApplyRecord) applyRow {
	row := applyRow{ID: a.ID, Server: cmp.Or(a.Server, "-"), DSN: cmp.Or(a.DSN, "-"), Source: cmp.Or(a.Source, "-"),
		Started: utcText(a.Started), Ended: utcText(a.Ended), Phase: a.Phase, Verdict: cmp.Or(a.Verdict, "-"), Reason: a.Reason,
		Running: applyRunning(a)}
	return row
}

// utcText is t in UTC to the second, "-" for the zero time.
func utcText(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.DateTime)
}

// addApply adds what the page shows of a to v.
func addApply(v *version, a storage.ApplyRecord) {
	v.add(a.ID, a.Server, a.DSN, a.Source, a.Started.UnixNano(), a.Ended.UnixNano(), a.Phase, a.Verdict, a.Reason, a.Changes)
}

// applyRows returns the store's applies, newest first, each running one
// with its latest step, and adds them to v.
func (h *Handler) applyRows(r *http.Request, v *version) ([]applyRow, error) {
	ctx := r.Context()
	as, err := h.db.Applies(ctx, "")
	if err != nil {
		return nil, err
	}
	rows := make([]applyRow, 0, len(as))
	for i := len(as) - 1; i >= 0; i-- {
		a := as[i]
		addApply(v, a)
		row := newApplyRow(a)
		if row.Running {
			evs, err := h.db.ApplyEvents(ctx, a.ID)
			if err != nil {
				return nil, err
			}
			v.add("events", len(evs))
			if n := len(evs); n > 0 {
				row.Last = evs[n-1].Kind + ": " + evs[n-1].Detail
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ---- one apply ----

type applyPage struct {
	Head    applyRow
	Changes []result.ApplyChange
	// ChangesRaw is the stored changes when they do not decode (shown as
	// is).
	ChangesRaw string
	Windows    []windowPair
	Events     []applyEventRow
}

// applyEventRow is one step of the trail, numbered from 1 in order.
type applyEventRow struct {
	N            int
	At           string // UTC, to the millisecond
	Kind, Detail string
}

// windowPair is one pair of the watch's windows: each arm's statements
// per second and mean latency (ms), "-" when not measured yet or the
// source has no time; Delta is the new arm's mean latency against the
// old's, in percent ("-" without both).
type windowPair struct {
	Pair                 int
	OldRate, NewRate     string
	OldMean, NewMean     string
	OldCalls, NewCalls   string
	Delta                string
	oldMeanMS, newMeanMS float64
}

// windowRe matches a "window" step's detail as study's apply writes it
// (report.ApplyWindowText's numbers): "pair 2 new: 1234 statements,
// 41.1/s, mean 2.345 ms".
var windowRe = regexp.MustCompile(`^pair (\d+) +(old|new) *: (\d+) statements, ([0-9.]+)/s(?:, mean ([0-9.]+) ms)?`)

// applyWindow parses a "window" step's detail into its pair, arm ("old"
// or "new"), statements, statements per second and mean latency (ms, 0
// when the detail has none); ok is false for a detail of another shape.
func applyWindow(detail string) (w result.ApplyWindow, ok bool) {
	m := windowRe.FindStringSubmatch(detail)
	if m == nil {
		return w, false
	}
	w.Pair, _ = strconv.Atoi(m[1])
	w.Arm = m[2]
	w.Calls, _ = strconv.ParseInt(m[3], 10, 64)
	w.PerSecond, _ = strconv.ParseFloat(m[4], 64)
	if m[5] != "" {
		w.MeanMS, _ = strconv.ParseFloat(m[5], 64)
	}
	return w, true
}

// windowPairs gathers the "window" steps of events by pair, in pair
// order.
func windowPairs(events []storage.ApplyEvent) []windowPair {
	byPair := map[int]*windowPair{}
	var order []int
	for _, e := range events {
		if e.Kind != "window" {
			continue
		}
		w, ok := applyWindow(e.Detail)
		if !ok {
			continue
		}
		p := byPair[w.Pair]
		if p == nil {
			p = &windowPair{Pair: w.Pair, OldRate: "-", NewRate: "-", OldMean: "-", NewMean: "-", OldCalls: "-", NewCalls: "-", Delta: "-"}
			byPair[w.Pair] = p
			order = append(order, w.Pair)
		}
		rate, calls, mean := f1(w.PerSecond), strconv.FormatInt(w.Calls, 10), "-"
		if w.MeanMS > 0 {
			mean = strconv.FormatFloat(w.MeanMS, 'f', 3, 64)
		}
		if w.Arm == "old" {
			p.OldRate, p.OldCalls, p.OldMean, p.oldMeanMS = rate, calls, mean, w.MeanMS
		} else {
			p.NewRate, p.NewCalls, p.NewMean, p.newMeanMS = rate, calls, mean, w.MeanMS
		}
		if p.oldMeanMS > 0 && p.newMeanMS > 0 {
			p.Delta = fmt.Sprintf("%+.1f %%", (p.newMeanMS/p.oldMeanMS-1)*100)
		}
	}
	slices.Sort(order)
	out := make([]windowPair, 0, len(order))
	for _, n := range order {
		out = append(out, *byPair[n])
	}
	return out
}

func (h *Handler) apply(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := strconv.ParseInt(r.URL.Query().Get("id"), 10, 64)
	if err != nil || id <= 0 {
		fail(w, fmt.Errorf("id=%q: want an apply number", r.URL.Query().Get("id")), http.StatusBadRequest)
		return
	}
	a, err := h.db.Apply(ctx, id)
	if errors.Is(err, sql.ErrNoRows) {
		fail(w, fmt.Errorf("no apply %d in %s", id, h.name), http.StatusNotFound)
		return
	}
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return
	}
	events, err := h.db.ApplyEvents(ctx, id)
	if err != nil {
		fail(w, err, http.StatusInternalServerError)
		return
	}
	v := newVersion()
	addApply(v, a)
	v.add("events", len(events))
	ver := v.String()
	if r.Header.Get(VersionHeader) == ver {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	p := applyPage{Head: newApplyRow(a), Windows: windowPairs(events)}
	if a.Changes != "" {
		if err := json.Unmarshal([]byte(a.Changes), &p.Changes); err != nil {
			p.ChangesRaw = a.Changes
		}
	}
	for i, e := range events {
		p.Events = append(p.Events, applyEventRow{N: i + 1, At: e.At.UTC().Format("15:04:05.000"), Kind: e.Kind, Detail: e.Detail})
	}
	title := fmt.Sprintf("autotune dashboard: apply %d", id)
	if p.Head.Running {
		title += " (running)"
	}
	h.respond(w, r, ver, "apply", page{Title: title, Back: []link{{"/", "studies and applies"}}, Body: p})
}
