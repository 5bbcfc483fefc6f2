package space

import (
	"strings"
	"testing"
)

func TestRelaxations(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string // knob=value, catalogue order
	}{
		{"defaults", Config{}, nil},
		{"strict values set", Config{"innodb_flush_log_at_trx_commit": "1", "innodb_doublewrite": "ON", "sync_binlog": "1"}, nil},
		{"strict in other spellings", Config{"innodb_doublewrite": "1", "innodb_flush_log_at_trx_commit": " 1"}, nil},
		{"sync_binlog left out: binary logging unknown", Config{"innodb_flush_log_at_trx_commit": "2"}, []string{"innodb_flush_log_at_trx_commit=2"}},
		{"all three, cnf spellings", Config{"innodb_flush_log_at_trx_commit": "0", "sync_binlog": "0", "innodb_doublewrite": "0"},
			[]string{"innodb_doublewrite=OFF", "innodb_flush_log_at_trx_commit=0", "sync_binlog=0"}},
		{"sync_binlog off the search's grid", Config{"sync_binlog": "5"}, []string{"sync_binlog=5"}},
		{"crash-safe values outside the choices", Config{"innodb_flush_log_at_trx_commit": "3", "innodb_doublewrite": "detect_and_recover"}, nil},
		{"MySQL's detect-only doublewrite", Config{"innodb_doublewrite": "DETECT_ONLY"}, []string{"innodb_doublewrite=DETECT_ONLY"}},
	} {
		var got []string
		for _, r := range Relaxations(tc.cfg) {
			got = append(got, r.Knob+"="+r.Value)
			if r.Loss == "" || r.Strict == "" {
				t.Errorf("%s: %s: no loss window or strict value", tc.name, r.Knob)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestLossWindow(t *testing.T) {
	for _, tc := range []struct{ knob, value, want string }{
		{"innodb_flush_log_at_trx_commit", "0", "lost when mysqld alone crashes"},
		{"innodb_flush_log_at_trx_commit", "2", "a crash of mysqld alone loses none"},
		{"innodb_doublewrite", "OFF", "torn page"},
		{"sync_binlog", "0", "flushed when the OS decides"},
		{"sync_binlog", "1000", "up to 999 groups"},
	} {
		if got := LossWindow(tc.knob, tc.value); !strings.Contains(got, tc.want) {
			t.Errorf("%s=%s: %q, want it to say %q", tc.knob, tc.value, got, tc.want)
		}
	}
}
