package secret

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFromOptionFile(t *testing.T) {
	cases := []struct {
		name, body, want, err string
		mode                  os.FileMode
	}{
		{name: "client group", body: "[client]\nuser = tuner\npassword = s3cret\n", want: "s3cret"},
		{name: "quoted", body: "[client]\npassword=\"with space\"\n", want: "with space"},
		{name: "single quoted", body: "[client]\npassword='x#y'\n", want: "x#y"},
		{name: "other group ignored", body: "[mysqld]\npassword=no\n[client]\npassword=yes\n", want: "yes"},
		{name: "bare file", body: "plainpw\n", want: "plainpw"},
		{name: "no password", body: "[client]\nuser=x\n", err: "no password"},
		{name: "readable by others", body: "[client]\npassword=x\n", mode: 0o644, err: "chmod 600"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "pw.cnf")
			mode := c.mode
			if mode == 0 {
				mode = 0o600
			}
			if err := os.WriteFile(p, []byte(c.body), mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, mode); err != nil {
				t.Fatal(err)
			}
			got, err := FromOptionFile(p)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
	if _, err := FromOptionFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing file: no error")
	}
}

func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"app:pw@tcp(db1:3306)/":       "app:xxx@tcp(db1:3306)/",
		"app:p@ss:w@unix(/s)/":        "app:xxx@unix(/s)/",
		"app@unix(/run/mysqld.sock)/": "app@unix(/run/mysqld.sock)/",
		"no-at-sign":                  "no-at-sign",
	} {
		if got := RedactDSN(in); got != want {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}
