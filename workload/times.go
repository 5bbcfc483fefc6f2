package workload

import (
	"fmt"
	"strconv"
	"time"

	"github.com/autotune/autotune/space"
)

// parseVersion parses a server version text with its comment.
func parseVersion(version, comment string) (space.Version, error) {
	return space.ParseVersion(version, comment)
}

// timeForms says which time forms the logs use, for errors.
const timeForms = "an ISO 8601 time 2024-01-02T03:04:05.123456Z (MySQL/Percona 5.7+, log_timestamps) or YYMMDD H:MM:SS (MariaDB, MySQL 5.6 and older)"

// parseLogTime parses the time of a "# Time:" line or of a general log
// line, returning µs since the Unix epoch and the form's precision:
//
//   - ISO 8601 with a zone, "2016-07-20T18:13:25.698433Z" or
//     "2018-09-07T18:45:40.098124+08:00": MySQL 5.7+ and Percona 5.7+
//     (log_timestamps UTC or SYSTEM); precision 1µs (1s without a fraction).
//   - "YYMMDD H:MM:SS", the hour space-padded ("240102  3:04:05", MariaDB
//     and MySQL 5.6 and older) or zero-padded ("240102 03:04:05"), any run
//     of spaces between date and time; an optional ".ffffff" fraction. The
//     server's local time without a zone: read as UTC; precision 1s.
func parseLogTime(s []byte) (int64, time.Duration, error) {
	us, res, _, err := parseLogTimeZone(s)
	return us, res, err
}

// parseLogTimeZone is parseLogTime, also reporting whether the time had
// no zone (the YYMMDD form).
func parseLogTimeZone(s []byte) (int64, time.Duration, bool, error) {
	us, res, err := parseTime(s)
	return us, res, err == nil && !isISO(s), err
}

func isISO(s []byte) bool { return len(s) >= 19 && s[4] == '-' && s[10] == 'T' }

func parseTime(s []byte) (int64, time.Duration, error) {
	if isISO(s) && s[4] == '-' && s[10] == 'T' {
		t, err := time.Parse(time.RFC3339Nano, string(s))
		if err != nil {
			return 0, 0, fmt.Errorf("time %q: want %s", s, timeForms)
		}
		res := time.Second
		if len(s) > 19 && s[19] == '.' {
			res = time.Microsecond
		}
		return t.UnixMicro(), res, nil
	}
	bad := func() (int64, time.Duration, error) {
		return 0, 0, fmt.Errorf("time %q: want %s", s, timeForms)
	}
	if len(s) < 13 {
		return bad()
	}
	d, ok := digits(s[:6])
	if !ok {
		return bad()
	}
	i := 6
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i == 6 {
		return bad()
	}
	rest := s[i:]
	// H:MM:SS or HH:MM:SS
	colon := 1
	if len(rest) > 2 && rest[2] == ':' {
		colon = 2
	}
	if len(rest) < colon+6 || rest[colon] != ':' || rest[colon+3] != ':' {
		return bad()
	}
	h, ok1 := digits(rest[:colon])
	m, ok2 := digits(rest[colon+1 : colon+3])
	sec, ok3 := digits(rest[colon+4 : colon+6])
	if !ok1 || !ok2 || !ok3 {
		return bad()
	}
	var us int64
	if tail := rest[colon+6:]; len(tail) > 0 {
		if tail[0] != '.' || len(tail) < 2 || len(tail) > 7 {
			return bad()
		}
		f, ok := digits(tail[1:])
		if !ok {
			return bad()
		}
		for n := len(tail) - 1; n < 6; n++ {
			f *= 10
		}
		us = int64(f)
	}
	yy, mo, dd := d/10000, d/100%100, d%100
	if mo < 1 || mo > 12 || dd < 1 || dd > 31 || h > 23 || m > 59 || sec > 60 {
		return bad()
	}
	// Two-digit years: 70-99 are 1970-1999 (MySQL's rule for YY dates).
	year := 2000 + yy
	if yy >= 70 {
		year = 1900 + yy
	}
	t := time.Date(year, time.Month(mo), dd, h, m, sec, 0, time.UTC)
	return t.UnixMicro() + us, time.Second, nil
}

// digits parses an unsigned decimal of 1 to 9 digits.
func digits(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// parseSeconds parses a decimal number of seconds ("0.003464") into a
// duration.
func parseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%q: want seconds >= 0 such as 0.003464", s)
	}
	return time.Duration(f*1e6+0.5) * time.Microsecond, nil
}
