package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/internal/testspace"
	"github.com/autotune/autotune/runner"
)

func TestLoadBaseline(t *testing.T) {
	realtest.Require(t) // reads `mariadbd --verbose --help`
	bin, err := runner.FindServer(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	info := testspace.Info(t)
	sp := testspace.MariaDB(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("conf.d/50-tuning.cnf", "[mysqld]\ninnodb_io_capacity = 1000\ninnodb_log_file_size = 64M\n")
	write("conf.d/README", "not read\n")
	main := write("my.cnf", `[client]
innodb_buffer_pool_size = 9G
[mysqld]
datadir = /var/lib/mysql
skip-name-resolve
innodb_file_per_table
innodb-buffer-pool-size = 256M   # old value
innodb_flush_log_at_trx_commit = 2
innodb_buffer_pool_instances = 4
loose-innodb-file-format = Barracuda
loose-gcf-360 = 1
tx_isolation = read-committed
innodb_adaptive_hash_index
!includedir conf.d
`)
	bl, err := loadBaseline(context.Background(), main, sp, info, bin)
	if err != nil {
		t.Fatal(err)
	}
	want := "innodb_adaptive_hash_index=ON,innodb_buffer_pool_size=268435456,innodb_flush_log_at_trx_commit=2,innodb_io_capacity=1000,innodb_log_file_size=67108864,transaction_isolation=READ-COMMITTED"
	if bl.Config.Key() != want {
		t.Errorf("baseline config\n%s\nwant\n%s", bl.Config.Key(), want)
	}
	notes := strings.Join(bl.Notes, "\n")
	for _, frag := range []string{
		"innodb_buffer_pool_instances left out: removed in MariaDB 10.6.0",
		"innodb_file_per_table left out: affects only tables created",
		"loose-innodb-file-format left out: removed in MariaDB 10.3.1",
		"loose-gcf-360: unknown to this server; loose-, so it only warns",
		"not knobs, so not carried into the sandbox",
		"innodb_flush_log_at_trx_commit = 2 in the baseline is pinned to 1",
		"README not read",
	} {
		if !strings.Contains(notes, frag) {
			t.Errorf("notes lack %q:\n%s", frag, notes)
		}
	}

	for name, tc := range map[string]struct{ body, want string }{
		"unknown option": {"[mysqld]\ninnodb_bufer_pool_size = 1G\n", "bad.cnf line 2: innodb_bufer_pool_size: unknown variable"},
		"no group":       {"innodb_buffer_pool_size = 1G\n", "bad.cnf line 1: option without preceding group"},
		"bad value":      {"[mysqld]\ninnodb_buffer_pool_size = lots\n", `bad.cnf line 2: knob innodb_buffer_pool_size: size "lots"`},
		"flag on a size": {"[mysqld]\ninnodb_buffer_pool_size\n", "needs a value"},
		"bool yes":       {"[mysqld]\ninnodb_adaptive_hash_index = yes\n", `reads "yes" as OFF`},
		"case of a name": {"[mysqld]\nMax_Connections = 10\n", "matched character by character"},
		"missing incdir": {"[mysqld]\n!includedir nowhere\n", "cannot read include directory"},
	} {
		t.Run(name, func(t *testing.T) {
			p := write("bad.cnf", tc.body)
			_, err := loadBaseline(context.Background(), p, sp, info, bin)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
