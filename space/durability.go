package space

import (
	"fmt"
	"strconv"
	"strings"
)

// Relaxation is a durability knob (Knob.Durability) that a configuration
// sets weaker than its strict value.
type Relaxation struct {
	// Knob is the knob's name; Value its canonical value in the
	// configuration; Strict its StrictValue.
	Knob, Value, Strict string
	// Loss says what a crash can lose at Value (LossWindow).
	Loss string
}

// Relaxations returns the durability knobs of the catalogue that cfg sets
// to a value other than their strict one, in catalogue order (none: cfg
// is as crash-safe as --durability strict makes a study). Values are
// compared in canonical form, so "0", "OFF" and "off" are one value. A
// knob cfg leaves out runs at its default, which is the strict value for
// innodb_flush_log_at_trx_commit and innodb_doublewrite; sync_binlog
// counts only when cfg sets it, since its default (0) loses nothing with
// binary logging off and cfg does not say whether it is on.
func Relaxations(cfg Config) []Relaxation {
	var out []Relaxation
	for _, k := range Catalogue() {
		if !k.Durability {
			continue
		}
		v, ok := cfg[k.Name]
		if !ok {
			if k.Name == "sync_binlog" {
				continue
			}
			v = k.Default
		}
		c, err := k.Canonical(v)
		if err != nil {
			c = v // not a value of the knob: it is not the strict one either
		}
		if c == k.StrictValue || strictEquivalent[k.Name+"="+strings.ToUpper(strings.TrimSpace(v))] {
			continue
		}
		out = append(out, Relaxation{Knob: k.Name, Value: c, Strict: k.StrictValue, Loss: LossWindow(k.Name, c)})
	}
	return out
}

// strictEquivalent are values outside the catalogue's choices that are as
// crash-safe as the strict one: innodb_flush_log_at_trx_commit=3 (MariaDB:
// as 1, kept for compatibility) and innodb_doublewrite=DETECT_AND_RECOVER
// (MySQL 8.0.30+: as ON).
var strictEquivalent = map[string]bool{
	"innodb_flush_log_at_trx_commit=3":      true,
	"innodb_doublewrite=DETECT_AND_RECOVER": true,
}

// LossWindow says what a crash can lose with durability knob name at
// value (canonical), from the servers' documentation: the MariaDB
// Knowledge Base and the MySQL Reference Manual on
// innodb_flush_log_at_trx_commit, innodb_doublewrite and sync_binlog.
func LossWindow(name, value string) string {
	switch name {
	case "innodb_flush_log_at_trx_commit":
		switch value {
		case "0":
			return "the commits of about the last second are lost when mysqld alone crashes, and on an OS crash or power loss (the redo log is written and flushed once a second, not at commit)"
		case "2":
			return "the commits of about the last second are lost on an OS crash or power loss (the redo log is written at commit but flushed once a second); a crash of mysqld alone loses none"
		}
	case "innodb_doublewrite":
		if strings.EqualFold(value, "DETECT_ONLY") {
			return "a power loss or OS crash during a page write can leave a torn page that is detected but not repaired: the table must then be restored from a backup"
		}
		return "a power loss or OS crash during a page write can leave a torn page that the redo log cannot repair: the table must then be restored from a backup"
	case "sync_binlog":
		n, err := strconv.Atoi(value)
		switch {
		case err == nil && n == 0:
			return "with binary logging on, the binary log is flushed when the OS decides: on an OS crash or power loss, committed transactions can be missing from it (replicas and point-in-time recovery miss them)"
		case err == nil && n > 1:
			return fmt.Sprintf("with binary logging on, the binary log is flushed every %d commit groups: on an OS crash or power loss, up to %d groups of committed transactions can be missing from it (replicas and point-in-time recovery miss them)", n, n-1)
		}
	}
	return "weaker than " + name + "'s crash-safe setting: a crash can lose committed data"
}
