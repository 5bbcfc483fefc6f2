package runner

// Parser for the text of SHOW ENGINE INNODB STATUS (the "Status" column),
// across server versions. Facts and failure modes reported against status
// parsers in the field (MySQL 5.1 to 8.0, Percona 5.5, MariaDB 10.11;
// samples in testdata/innodb-status):
//
//   - Sections are "-----" / TITLE / "-----"; versions add, rename or hide
//     sections (BACKGROUND THREAD, INDIVIDUAL BUFFER POOL INFO, MariaDB
//     10.10+ "INSERT BUFFER" instead of "INSERT BUFFER AND ADAPTIVE HASH
//     INDEX"), and a lone dashed line inside ROW OPERATIONS (after a read
//     view, Percona 5.5) is not a header.
//   - A counter line may lack its numbers (5.7: " ibuf aio reads:, log
//     i/o's:, sync i/o's:"): those values are null, never 0.
//   - 5.1/5.5 print transaction ids in hex ("Trx id counter 1B588AD6").
//   - MySQL 8.0.30 starts the text with a newline.
//   - The "Per second averages" cover an arbitrary window: trial metrics use
//     counters sampled at the window's ends instead (StatusDelta).

import (
	"regexp"
	"strconv"
	"strings"
)

// TrxID is a transaction id as printed, with the base it was read in.
type TrxID struct {
	// Raw is the text as printed ("1B588AD6", "25166390").
	Raw string `json:"raw"`
	// Base is 16 for pre-5.6 hex output, 10 otherwise.
	Base int `json:"base"`
	// Value is Raw read in Base. Never compute deltas between readings of
	// different bases.
	Value uint64 `json:"value"`
}

// InnoDBStatus is what autotune reads from SHOW ENGINE INNODB STATUS. Every
// number is a pointer: nil means the text did not show it (not 0).
type InnoDBStatus struct {
	// HistoryListLength is "History list length N" (TRANSACTIONS): undo
	// log entries not yet purged.
	HistoryListLength *int64 `json:"history_list_length"`
	// TrxIDCounter is "Trx id counter X".
	TrxIDCounter *TrxID `json:"trx_id_counter"`
	// QueriesInside and QueriesInQueue are from "N queries inside InnoDB,
	// M queries in queue" (ROW OPERATIONS).
	QueriesInside  *int64 `json:"queries_inside_innodb"`
	QueriesInQueue *int64 `json:"queries_in_queue"`
	// ReadViewsOpen is "N read views open inside InnoDB".
	ReadViewsOpen *int64 `json:"read_views_open"`
	// RowsInserted, RowsUpdated, RowsDeleted and RowsRead are from
	// "Number of rows inserted N, updated N, deleted N, read N".
	RowsInserted *int64 `json:"rows_inserted"`
	RowsUpdated  *int64 `json:"rows_updated"`
	RowsDeleted  *int64 `json:"rows_deleted"`
	RowsRead     *int64 `json:"rows_read"`
	// PendingIbufAioReads, PendingLogIOs and PendingSyncIOs are from
	// " ibuf aio reads: N, log i/o's: N, sync i/o's: N" (FILE I/O).
	PendingIbufAioReads *int64 `json:"pending_ibuf_aio_reads"`
	PendingLogIOs       *int64 `json:"pending_log_ios"`
	PendingSyncIOs      *int64 `json:"pending_sync_ios"`
	// OSFileReads, OSFileWrites and OSFsyncs are from "N OS file reads,
	// N OS file writes, N OS fsyncs".
	OSFileReads  *int64 `json:"os_file_reads"`
	OSFileWrites *int64 `json:"os_file_writes"`
	OSFsyncs     *int64 `json:"os_fsyncs"`
	// IbufSize and IbufMerges are from "Ibuf: size N, ..., N merges".
	IbufSize   *int64 `json:"ibuf_size"`
	IbufMerges *int64 `json:"ibuf_merges"`
	// LogSequenceNumber and LastCheckpoint are from the LOG section
	// ("Log sequence number N", "Last checkpoint at N"); their difference
	// is the checkpoint age in bytes.
	LogSequenceNumber *int64 `json:"log_sequence_number"`
	LastCheckpoint    *int64 `json:"last_checkpoint"`
	// AveragesWindowS is N of "Per second averages calculated from the
	// last N seconds".
	AveragesWindowS *int64 `json:"averages_window_s"`
	// Sections are the section titles in order; UnknownSections those the
	// parser does not know (kept, not an error).
	Sections        []string `json:"sections"`
	UnknownSections []string `json:"unknown_sections"`
	// ParseErrors counts lines of a known shape whose numbers did not
	// parse; parsing goes on after them.
	ParseErrors int `json:"parse_errors"`
	// HeaderFound reports whether the "INNODB MONITOR OUTPUT" header was
	// seen.
	HeaderFound bool `json:"header_found"`
}

var knownInnoDBSections = map[string]bool{
	"BACKGROUND THREAD": true, "SEMAPHORES": true, "LATEST FOREIGN KEY ERROR": true,
	"LATEST DETECTED DEADLOCK": true, "TRANSACTIONS": true, "FILE I/O": true,
	"INSERT BUFFER AND ADAPTIVE HASH INDEX": true, "INSERT BUFFER": true, "ADAPTIVE HASH INDEX": true,
	"LOG": true, "BUFFER POOL AND MEMORY": true, "INDIVIDUAL BUFFER POOL INFO": true,
	"ROW OPERATIONS": true, "END OF INNODB MONITOR OUTPUT": true,
}

var (
	isReDashes    = regexp.MustCompile(`^-{3,}$`)
	isReEquals    = regexp.MustCompile(`^={3,}$`)
	isReTitle     = regexp.MustCompile(`^[A-Z][A-Z0-9 /]*[A-Z0-9]$`)
	isReHexDigits = regexp.MustCompile(`[A-Fa-f]`)
	isReInt       = regexp.MustCompile(`-?\d+`)
)

// ParseInnoDBStatus parses the text of SHOW ENGINE INNODB STATUS.
// serverVersion ("5.1.73", "10.11.19-MariaDB"; may be empty) decides the
// base of transaction ids: hex before 5.6 (or whenever A–F appear),
// decimal otherwise. It never fails: what it cannot read stays nil and is
// counted in ParseErrors when the line had a known shape.
func ParseInnoDBStatus(text, serverVersion string) InnoDBStatus {
	st := InnoDBStatus{Sections: []string{}, UnknownSections: []string{}}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	hexIDs := versionBefore56(serverVersion)
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		trim := strings.TrimSpace(line)
		// Section header: dashes / TITLE / dashes.
		if isReDashes.MatchString(trim) && i+2 < len(lines) {
			title := strings.TrimSpace(lines[i+1])
			if isReDashes.MatchString(strings.TrimSpace(lines[i+2])) && isReTitle.MatchString(title) {
				st.Sections = append(st.Sections, title)
				if !knownInnoDBSections[title] {
					st.UnknownSections = append(st.UnknownSections, title)
				}
				i += 2
				continue
			}
		}
		if strings.HasPrefix(trim, "END OF INNODB MONITOR OUTPUT") {
			st.Sections = append(st.Sections, "END OF INNODB MONITOR OUTPUT")
			continue
		}
		if isReEquals.MatchString(trim) {
			continue
		}
		st.parseLine(trim, hexIDs)
	}
	return st
}

func (st *InnoDBStatus) parseLine(l string, hexIDs bool) {
	ints := func(n int) []*int64 {
		ms := isReInt.FindAllString(l, -1)
		out := make([]*int64, n)
		for i := 0; i < n && i < len(ms); i++ {
			if v, err := strconv.ParseInt(ms[i], 10, 64); err == nil {
				out[i] = &v
			}
		}
		return out
	}
	one := func(prefix string) *int64 {
		v, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(l, prefix)), 10, 64)
		if err != nil {
			st.ParseErrors++
			return nil
		}
		return &v
	}
	switch {
	case strings.HasSuffix(l, "INNODB MONITOR OUTPUT"):
		st.HeaderFound = true
	case strings.HasPrefix(l, "Per second averages calculated from the last "):
		if v := ints(1)[0]; v != nil {
			st.AveragesWindowS = v
		} else {
			st.ParseErrors++
		}
	case strings.HasPrefix(l, "History list length "):
		st.HistoryListLength = one("History list length ")
	case strings.HasPrefix(l, "Trx id counter "):
		raw := strings.TrimSpace(strings.TrimPrefix(l, "Trx id counter "))
		base := 10
		if hexIDs || isReHexDigits.MatchString(raw) {
			base = 16
		}
		v, err := strconv.ParseUint(raw, base, 64)
		if err != nil {
			st.ParseErrors++
			return
		}
		st.TrxIDCounter = &TrxID{Raw: raw, Base: base, Value: v}
	case strings.Contains(l, "queries inside InnoDB") && strings.Contains(l, "queries in queue"):
		v := ints(2)
		st.QueriesInside, st.QueriesInQueue = v[0], v[1]
		if v[0] == nil || v[1] == nil {
			st.ParseErrors++
		}
	case strings.HasSuffix(l, "read views open inside InnoDB"):
		st.ReadViewsOpen = ints(1)[0]
		if st.ReadViewsOpen == nil {
			st.ParseErrors++
		}
	case strings.HasPrefix(l, "Number of rows inserted"):
		v := ints(4)
		st.RowsInserted, st.RowsUpdated, st.RowsDeleted, st.RowsRead = v[0], v[1], v[2], v[3]
		if v[3] == nil {
			st.ParseErrors++
		}
	case strings.HasPrefix(l, "ibuf aio reads:"):
		// " ibuf aio reads: N, log i/o's: N, sync i/o's: N"; 5.7 prints
		// the labels without numbers: those stay null.
		for _, part := range strings.Split(l, ",") {
			k, v, _ := strings.Cut(part, ":")
			var p *int64
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				p = &n
			}
			switch strings.TrimSpace(k) {
			case "ibuf aio reads":
				st.PendingIbufAioReads = p
			case "log i/o's":
				st.PendingLogIOs = p
			case "sync i/o's":
				st.PendingSyncIOs = p
			}
		}
	case strings.Contains(l, "OS file reads,") && strings.Contains(l, "OS fsyncs"):
		v := ints(3)
		st.OSFileReads, st.OSFileWrites, st.OSFsyncs = v[0], v[1], v[2]
		if v[2] == nil {
			st.ParseErrors++
		}
	case strings.HasPrefix(l, "Ibuf: size "):
		v := ints(4)
		st.IbufSize = v[0]
		if m := regexp.MustCompile(`(\d+) merges`).FindStringSubmatch(l); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			st.IbufMerges = &n
		}
		if st.IbufSize == nil {
			st.ParseErrors++
		}
	case strings.HasPrefix(l, "Log sequence number"):
		st.LogSequenceNumber = lastInt(l, &st.ParseErrors)
	case strings.HasPrefix(l, "Last checkpoint at"):
		st.LastCheckpoint = lastInt(l, &st.ParseErrors)
	}
}

// lastInt returns the last integer of l (5.5 prints "Log sequence number
// 0 123" with a high word; 5.6+ one number); it counts a parse error when
// there is none.
func lastInt(l string, errs *int) *int64 {
	ms := isReInt.FindAllString(l, -1)
	if len(ms) == 0 {
		*errs++
		return nil
	}
	v, err := strconv.ParseInt(ms[len(ms)-1], 10, 64)
	if err != nil {
		*errs++
		return nil
	}
	return &v
}

// versionBefore56 reports whether a server version string is older than
// 5.6 (MySQL/Percona 5.0–5.5 print transaction ids in hex). MariaDB 10+
// and an empty or unreadable version are not.
func versionBefore56(v string) bool {
	m := regexp.MustCompile(`^(\d+)\.(\d+)`).FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major < 5 || (major == 5 && minor < 6)
}
