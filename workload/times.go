package workload

import (
	"fmt"
	"sort"
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

// resolveStarts sets the start of each slow log entry from its times
// (slowTimes), the first of these that it has:
//
//   - log_slow_extra's Start: (MySQL 8), to the µs;
//   - the ISO "# Time:" with µs less Query_time: MySQL and Percona 5.7+
//     write the time the entry was written, its end, there (MySQL
//     File_query_log::write_slow; log_slow_extra's End: is the same), to
//     the µs. Its SET timestamp names the same second, unless the session
//     set its own timestamp (the SET line then shows that one): a note
//     counts those, whose start stays the server's clock;
//   - SET timestamp=: the start, whole seconds (µs when it has a fraction);
//   - the ISO "# Time:" without µs less Query_time, to the second;
//   - the YYMMDD "# Time:": the server's local time without a zone, of the
//     start's second (MariaDB and Percona 5.6 write that second, not the
//     end's, as the samples in testdata show), made UTC by the offset the
//     entries of the same server run show between it and their SET
//     timestamp; to the second.
//
// Times of different zones are never mixed: when no entry shows the
// offset and other entries are timed in UTC, the zone-less ones get no
// start of their own (their connection's previous offset); when no entry
// is timed in UTC, zone-less times are read as UTC (zonelessNote).
func (b *builder) resolveStarts() {
	offsets, global := b.zoneOffsets()
	var pending []int
	utc, disagree := false, 0
	for i := range b.entries {
		e := &b.entries[i]
		t := e.slow
		if !t.ok {
			continue
		}
		switch {
		case t.hasLogStart:
			e.startUS, e.res = t.logStartUS, time.Microsecond
		case t.hasTime && !t.zoneless && t.timeRes == time.Microsecond:
			e.startUS, e.res = startFromEnd(t.timeUS, e.dur), time.Microsecond
			if t.hasTS && (e.startUS < t.tsUS-tsSlackUS || e.startUS >= t.tsUS+t.tsRes.Microseconds()+tsSlackUS) {
				disagree++
			}
		case t.hasTS:
			e.startUS, e.res = t.tsUS, t.tsRes
		case t.hasTime && !t.zoneless:
			e.startUS, e.res = startFromEnd(t.timeUS, e.dur), t.timeRes
		case t.hasTime:
			off, ok := offsets[e.seg]
			if !ok {
				off, ok = global.off, global.ok
			}
			if !ok {
				pending = append(pending, i)
				continue
			}
			e.startUS, e.res = t.timeUS-off, t.timeRes
		default:
			continue
		}
		e.hasStart, utc = true, true
	}
	if disagree > 0 {
		b.note("%d statements have a SET timestamp outside the second their \"# Time:\" less Query_time gives (sessions that set their own timestamp?): their start is \"# Time:\" less Query_time, the server's clock", disagree)
	}
	if len(pending) == 0 {
		return
	}
	if utc {
		b.note("%d statements have only a \"# Time:\" in the server's local time, and no entry of their server run shows its UTC offset (a \"# Time:\" and a SET timestamp): they were given their connection's previous offset rather than a time of another zone", len(pending))
		return
	}
	for _, i := range pending {
		e := &b.entries[i]
		e.startUS, e.res, e.hasStart = e.slow.timeUS, e.slow.timeRes, true
	}
	b.note(zonelessNote)
}

// tsSlackUS is how far, in µs, a start from "# Time:" less Query_time may
// lie outside its SET timestamp's second and still agree with it.
const tsSlackUS = 1000

// zoneOffset is a server's UTC offset in µs (local = UTC + off).
type zoneOffset struct {
	off int64
	ok  bool
}

// zoneOffsets returns, per server run (entry.seg), the UTC offset that its
// entries with both a zone-less "# Time:" and a SET timestamp show (the
// difference rounded to 15 minutes, the most frequent one), and the one
// offset of all runs when they agree. A note names each offset other than
// UTC.
func (b *builder) zoneOffsets() (map[int]int64, zoneOffset) {
	const quarter = int64(15 * 60 * 1e6)
	votes := map[int]map[int64]int{}
	for _, e := range b.entries {
		t := e.slow
		if !t.ok || !t.hasTime || !t.zoneless || !t.hasTS {
			continue
		}
		d := t.timeUS - t.tsUS
		off := (d + quarter/2) / quarter * quarter
		if d < -quarter/2 {
			off = -((-d + quarter/2) / quarter * quarter)
		}
		if off < -14*4*quarter || off > 14*4*quarter {
			continue
		}
		if votes[e.seg] == nil {
			votes[e.seg] = map[int64]int{}
		}
		votes[e.seg][off]++
	}
	offsets := map[int]int64{}
	var global zoneOffset
	distinct := map[int64]bool{}
	segs := make([]int, 0, len(votes))
	for seg := range votes {
		segs = append(segs, seg)
	}
	sort.Ints(segs)
	for _, seg := range segs {
		best, n := int64(0), -1
		for off, c := range votes[seg] {
			if c > n || (c == n && (abs64(off) < abs64(best) || (abs64(off) == abs64(best) && off < best))) {
				best, n = off, c
			}
		}
		offsets[seg] = best
		if !distinct[best] && best != 0 {
			b.note("the log's \"# Time:\" lines are the server's local time, %s (their difference from SET timestamp): the starts are UTC", utcOffset(best))
		}
		distinct[best] = true
		global = zoneOffset{best, true}
	}
	if len(distinct) != 1 {
		global = zoneOffset{}
	}
	return offsets, global
}

// utcOffset renders an offset in µs as "UTC-04:00".
func utcOffset(us int64) string {
	sign := "+"
	if us < 0 {
		sign, us = "-", -us
	}
	m := us / 60e6
	return fmt.Sprintf("UTC%s%02d:%02d", sign, m/60, m%60)
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
