package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

func TestParseMySQLURL(t *testing.T) {
	pwFile := filepath.Join(t.TempDir(), "pw.cnf")
	if err := os.WriteFile(pwFile, []byte("[client]\npassword=fromfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		url, env                 string
		net, addr, db, user, pwd string
		err                      string
	}{
		{url: "mysql://tuner@db1:3307/autotune", net: "tcp", addr: "db1:3307", db: "autotune", user: "tuner"},
		{url: "mysql://tuner@db1/autotune", net: "tcp", addr: "db1:3306", db: "autotune", user: "tuner"},
		{url: "mysql://tuner@localhost/at?socket=/run/mysqld/mysqld.sock", net: "unix", addr: "/run/mysqld/mysqld.sock", db: "at", user: "tuner"},
		{url: "mysql://tuner@db1/at?password_file=" + pwFile, net: "tcp", addr: "db1:3306", db: "at", user: "tuner", pwd: "fromfile"},
		{url: "mysql://tuner@db1/at?password_file=" + pwFile, env: "fromenv", net: "tcp", addr: "db1:3306", db: "at", user: "tuner", pwd: "fromenv"},
		{url: "mysql://tuner:hunter2@db1/at", err: "holds a password"},
		{url: "mysql://db1/at", err: "no user"},
		{url: "mysql://tuner@db1/", err: "database name"},
		{url: "mysql://tuner@db1/at?sslmode=x", err: "unknown parameter"},
		{url: "postgres://tuner@db1/at", err: "want mysql://"},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			if c.env != "" {
				t.Setenv(PasswordEnv, c.env)
			} else {
				os.Unsetenv(PasswordEnv)
			}
			cfg, err := ParseMySQLURL(c.url)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("error leaks the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Net != c.net || cfg.Addr != c.addr || cfg.DBName != c.db || cfg.User != c.user || cfg.Passwd != c.pwd {
				t.Fatalf("got %s %s %s %s %q", cfg.Net, cfg.Addr, cfg.DBName, cfg.User, cfg.Passwd)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"mysql://u:secret@h:1/db":    "mysql://u:xxx@h:1/db",
		"mysql://u@h:1/db":           "mysql://u@h:1/db",
		"u:secret@unix(/s.sock)/":    "u:xxx@unix(/s.sock)/",
		"u@tcp(127.0.0.1:3306)/db":   "u@tcp(127.0.0.1:3306)/db",
		"u:p@ss@tcp(127.0.0.1:1)/db": "u:xxx@tcp(127.0.0.1:1)/db",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMigrationsMirror: every SQLite migration has a MySQL twin of the same
// version, so both kinds of store hold the same tables.
func TestMigrationsMirror(t *testing.T) {
	versions := func(dir string) map[int64]string {
		out := map[int64]string{}
		entries, err := fs.ReadDir(migrationFiles, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			v, err := goose.NumericComponent(e.Name())
			if err != nil {
				t.Fatalf("%s/%s: %v", dir, e.Name(), err)
			}
			out[v] = e.Name()
		}
		return out
	}
	my := versions("migrations_mysql")
	for v, name := range versions("migrations") {
		if _, ok := my[v]; !ok {
			t.Errorf("migrations/%s has no MySQL twin in migrations_mysql/ (same version number, MySQL types)", name)
		}
	}
}

func openMySQLStore(t *testing.T) *DB {
	t.Helper()
	srv := teststore.Start(t, "")
	db, err := Open(srv.URL("autotune"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMySQLStore checks what only a MariaDB store has: its schema version
// from migrations_mysql, a path without the password, and a reopen that
// applies nothing new. What every store does is in storeSuite.
func TestMySQLStore(t *testing.T) {
	db := openMySQLStore(t)
	if !db.IsMySQL() || strings.Contains(db.Path(), ":@") {
		t.Fatalf("path %q", db.Path())
	}
	v, err := db.SchemaVersion(ctx)
	if err != nil || v != latestVersion("migrations_mysql") {
		t.Fatalf("schema version %d, %v", v, err)
	}
	// Reopening applies nothing new.
	db2, err := Open(strings.Replace(db.Path(), "xxx", "", 1))
	if err != nil {
		t.Fatal(err)
	}
	db2.Close()
}

// TestWorkersClaimAtomically: workers claiming at the same time never get
// the same trial number, and a trial whose worker stops heartbeating is
// handed back as stale, after which its worker can neither heartbeat nor
// record it.
func TestWorkersClaimAtomically(t *testing.T) {
	db := openMySQLStore(t)
	if err := db.CreateStudy(ctx, StudyRecord{Name: "w", Settings: `{}`}); err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 5
	var mu sync.Mutex
	seen := map[int]string{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for i := 0; i < workers; i++ {
		ws, err := db.Workers(WorkerInfo{ID: fmt.Sprintf("w%d", i), Host: "h", Cores: 2, RAMBytes: 1}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				tr, c, _, err := ws.Claim(ctx, "w", func(trials []search.Trial, next int) (search.Trial, search.Choice, error) {
					return search.Trial{Params: space.Config{"n": fmt.Sprint(next)}, Kind: search.Sampled}, search.Run, nil
				})
				if err != nil || c != search.Run {
					errs <- fmt.Errorf("claim: %v %v", c, err)
					return
				}
				mu.Lock()
				if prev, dup := seen[tr.Number]; dup {
					errs <- fmt.Errorf("trial %d claimed by %s and %s", tr.Number, prev, ws.w.ID)
				}
				seen[tr.Number] = ws.w.ID
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(seen) != workers*each {
		t.Fatalf("%d distinct trials, want %d", len(seen), workers*each)
	}
	claims, err := db.Claims(ctx, "w")
	if err != nil || len(claims) != workers*each {
		t.Fatalf("%d claims, %v", len(claims), err)
	}

	// Staleness.
	if err := db.CreateStudy(ctx, StudyRecord{Name: "s", Settings: `{}`}); err != nil {
		t.Fatal(err)
	}
	a, _ := db.Workers(WorkerInfo{ID: "a", Host: "h"}, 1500*time.Millisecond)
	b, _ := db.Workers(WorkerInfo{ID: "b", Host: "h"}, 1500*time.Millisecond)
	one := func(trials []search.Trial, next int) (search.Trial, search.Choice, error) {
		return search.Trial{Params: space.Config{"x": "1"}, Kind: search.Sampled}, search.Run, nil
	}
	ta, _, _, err := a.Claim(ctx, "s", one)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Heartbeat(ctx, ta); err != nil {
		t.Fatal(err)
	}
	_, _, stale, err := b.Claim(ctx, "s", one)
	if err != nil || len(stale) != 0 {
		t.Fatalf("fresh trial taken as stale: %v %v", stale, err)
	}
	time.Sleep(2 * time.Second)
	tb, _, stale, err := b.Claim(ctx, "s", one)
	if err != nil {
		t.Fatal(err)
	}
	// Both a's trial and b's first one (never heartbeated) are stale now.
	if len(stale) != 2 || stale[0].Number != ta.Number || stale[0].State != search.Interrupted {
		t.Fatalf("stale = %+v", stale)
	}
	if err := a.Heartbeat(ctx, ta); !errors.Is(err, search.ErrClaimLost) {
		t.Fatalf("heartbeat after stale: %v", err)
	}
	ta.State, ta.Ended = search.Complete, time.Now()
	if err := a.FinishClaimed(ctx, ta, time.Second); !errors.Is(err, search.ErrClaimLost) {
		t.Fatalf("finish after stale: %v", err)
	}
	if got, _, _ := db.Trial(ctx, "s", ta.Number); got.State != search.Interrupted {
		t.Fatalf("stale trial overwritten: %s", got.State)
	}
	tb.State, tb.Ended, tb.Score = search.Complete, time.Now(), 5
	if err := b.FinishClaimed(ctx, tb, time.Second); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := db.Trial(ctx, "s", tb.Number); got.State != search.Complete || got.Score != 5 {
		t.Fatalf("trial %+v", got)
	}
	if _, err := (&DB{}).Workers(WorkerInfo{ID: "x"}, time.Second); !errors.Is(err, ErrNeedsMySQL) {
		t.Fatalf("sqlite workers: %v", err)
	}
}
