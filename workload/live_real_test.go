package workload

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/space"
)

// TestCaptureLiveRealServer captures a sandboxed MariaDB for 2 s while a
// new connection runs statements, then checks the workload holds them in
// order and that every global variable is back as it was; a second
// capture, interrupted during its wait, must restore them too.
func TestCaptureLiveRealServer(t *testing.T) {
	srv := teststore.Start(t, "")
	dsn := fmt.Sprintf("root@unix(%s)/", srv.Socket)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	before, err := globals(ctx, db)
	if err != nil {
		t.Fatal(err)
	}

	started := make(chan struct{})
	var once bool
	logf := func(format string, a ...any) {
		t.Logf(format, a...)
		if strings.HasPrefix(format, "capturing") && !once {
			once = true
			close(started)
		}
	}
	done := make(chan error, 1)
	var w *Workload
	go func() {
		var err error
		w, err = CaptureLive(ctx, Live{DSN: dsn, For: 2 * time.Second, Logf: logf})
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("capture ended before it started: %v", err)
	}
	// A connection opened after the capture started, as the doc says.
	app, err := sql.Open("mysql", fmt.Sprintf("root@unix(%s)/", srv.Socket))
	if err != nil {
		t.Fatal(err)
	}
	app.SetMaxOpenConns(1)
	want := []string{"CREATE DATABASE cap", "CREATE TABLE cap.t (id INT PRIMARY KEY, v VARCHAR(10))",
		"INSERT INTO cap.t VALUES (1, 'one'), (2, 'two')", "SELECT v FROM cap.t WHERE id = 2"}
	for _, q := range want {
		if _, err := app.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	app.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if w.Source != SourceLive || w.Server.Version.Flavor != space.MariaDB {
		t.Errorf("source %q server %+v: want live, mariadb", w.Source, w.Server)
	}
	var got []string
	for _, c := range w.Connections {
		for _, s := range c.Statements {
			if strings.Contains(s.SQL, "cap") {
				got = append(got, s.SQL)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("captured %q, want %q", got, want)
	}
	after, err := globals(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Errorf("variables after the capture %v, want them restored to %v", after, before)
	}
	if _, err := os.Stat(w.Files[0]); err == nil {
		t.Errorf("the capture left its log file")
	}

	// Interrupted during the wait: restored all the same.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(500 * time.Millisecond); cancel() }()
	if _, err := CaptureLive(cctx, Live{DSN: dsn, For: time.Minute}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted capture: %v, want context.Canceled", err)
	}
	after, err = globals(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Errorf("variables after an interrupted capture %v, want %v", after, before)
	}

	// A log file autotune cannot read: refused before the wait, restored.
	if _, err := CaptureLive(ctx, Live{DSN: dsn, For: time.Minute, ServerLog: "relative.log"}); err == nil || !strings.Contains(err.Error(), "absolute path") {
		t.Errorf("relative server log: %v", err)
	}
}
