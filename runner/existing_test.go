package runner

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// A server that accepts connections and never answers (a wrong --dsn
// port on some other service, a stalled server): every call of Existing
// ends with an error naming its limit, instead of waiting forever.
func TestExistingSilentServerTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var held []net.Conn
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // accepted, never written to
			mu.Unlock()
		}
	}()
	e, err := OpenExisting("app@tcp("+ln.Addr().String()+")/", "")
	if err != nil {
		t.Fatal(err)
	}
	e.QueryTimeout = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"Version", func() error { _, err := e.Version(ctx); return err }, "no answer within 200ms"},
		{"Globals", func() error { _, err := e.Globals(ctx, []string{"innodb_io_capacity"}); return err }, "no answer within 200ms"},
		{"VariableInfo", func() error { _, err := e.VariableInfo(ctx, []string{"innodb_io_capacity"}); return err }, "no answer within 200ms"},
		{"SetGlobal", func() error { return e.SetGlobal(ctx, "innodb_io_capacity", "400") }, "no answer within 2s"},
	} {
		err := c.call()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	if ctx.Err() != nil {
		t.Fatal("the calls ran into the test's own deadline")
	}
}

// A restart command that does not finish is killed at RestartTimeout and
// the error says so.
func TestExistingRestartCommandTimesOut(t *testing.T) {
	e, err := OpenExisting("app@unix(/nonexistent/mysqld.sock)/", "")
	if err != nil {
		t.Fatal(err)
	}
	e.RestartCmd = []string{"sleep", "60"}
	e.RestartTimeout = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = e.Restart(ctx)
	if err == nil || !strings.Contains(err.Error(), `restart command "sleep 60" did not finish within 300ms (killed)`) {
		t.Fatalf("Restart: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Restart ran into the test's own deadline")
	}
}
