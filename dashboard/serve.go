package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/autotune/autotune/storage"
)

// DefaultListen is the address the dashboard binds by default: this
// machine only.
const DefaultListen = "127.0.0.1:8080"

// Config is what autotune dashboard serves.
type Config struct {
	// DB is the store: an SQLite path or a mysql:// URL (its password
	// from the environment or an option file, never the URL).
	DB string
	// Listen is host:port (DefaultListen when empty); a host that is not
	// a loopback address serves every machine that reaches it, which
	// Serve warns about.
	Listen string
	// Poll is how often pages ask for changes (DefaultPoll when 0).
	Poll time.Duration
	// Ready, when set, is called with the address served once listening
	// (tests use it with port 0).
	Ready func(addr string)
}

// ErrListen marks a bad Listen address (a usage error for the command).
var ErrListen = errors.New("bad listen address")

// Loopback reports whether host (of a host:port) binds this machine only:
// "localhost" or a loopback IP. An empty host binds every interface.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Serve opens the store read-only (storage.OpenReadOnly) and serves its
// dashboard on cfg.Listen until ctx ends, then returns nil. It prints where
// it serves to out, and a warning first when the address is not a
// loopback one. Errors: a bad address (wrapping ErrListen), a store that
// cannot be opened, an address already in use.
func Serve(ctx context.Context, cfg Config, out io.Writer) error {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return fmt.Errorf("%w: --listen %q: want host:port, e.g. %s (%v)", ErrListen, cfg.Listen, DefaultListen, err)
	}
	name := storage.RedactURL(cfg.DB)
	db, err := storage.OpenReadOnly(cfg.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("dashboard: listen on %s: %w", cfg.Listen, err)
	}
	if !Loopback(host) {
		fmt.Fprintf(out, "warning: --listen %s serves the dashboard to every machine that can reach this address, without a password (the page shows the study, its knobs and server error logs; it never shows a password): prefer 127.0.0.1 and an SSH tunnel\n", cfg.Listen)
	}
	srv := &http.Server{Handler: New(db, name, cfg.Poll), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "autotune dashboard: %s (read-only) on http://%s/ (Ctrl-C stops it)\n", name, ln.Addr())
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr().String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("dashboard: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	<-done
	return nil
}
