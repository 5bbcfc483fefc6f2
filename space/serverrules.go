package space

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// serverRules are the ways the server a space was resolved against
// changes a value it was given, read from its own variables, so that no
// trial is spent on a value the server would not run as written:
//
//   - doublewriteFast: the server lists "fast" among innodb_doublewrite's
//     values (MariaDB 11.x). It then runs innodb_doublewrite=ON as fast
//     when innodb_flush_method is O_DIRECT_NO_FSYNC (read back on 11.8.9):
//     the doublewrite buffer is written without being synced first, a
//     weaker guarantee than ON.
//   - logMapped: the redo log is memory-mapped (innodb_log_file_mmap=ON,
//     MariaDB 11.x's choice when the log lies on tmpfs or persistent
//     memory): the server then reports, and uses, the log's capacity as
//     innodb_log_buffer_size (50M read back as 938463232 with an 895M log
//     on 11.8.9), so the buffer size is not a knob there.
//   - poolUnit: MySQL rounds innodb_buffer_pool_size up to a multiple of
//     innodb_buffer_pool_chunk_size × innodb_buffer_pool_instances (MySQL
//     Reference Manual, "Configuring InnoDB Buffer Pool Size"), and
//     applies innodb_buffer_pool_instances only to a pool of 1 GiB or
//     more; poolChunk is the chunk size (0: the server does not round).
type serverRules struct {
	doublewriteFast bool
	logMapped       bool
	poolChunk       int64
	poolInstances   int64 // the server's own innodb_buffer_pool_instances
}

// readServerRules reads the rules from a server's variables.
func readServerRules(info ServerInfo) serverRules {
	var r serverRules
	if dw, ok := info.Vars["innodb_doublewrite"]; ok {
		r.doublewriteFast = slices.ContainsFunc(dw.Enum, func(v string) bool { return strings.EqualFold(v, "fast") })
	}
	if m, ok := info.Vars["innodb_log_file_mmap"]; ok {
		on, _ := serverBool(m.Value)
		r.logMapped = on
	}
	if info.Version.Flavor != MariaDB {
		if c, ok := info.Vars["innodb_buffer_pool_chunk_size"]; ok {
			r.poolChunk, _ = strconv.ParseInt(c.Value, 10, 64)
		}
		if n, ok := info.Vars["innodb_buffer_pool_instances"]; ok {
			r.poolInstances, _ = strconv.ParseInt(n.Value, 10, 64)
		}
	}
	return r
}

// restrict takes out of the resolved entries what the rules make
// unusable under the durability policy d.
func (r serverRules) restrict(entries []Entry, d Durability) {
	for i := range entries {
		e := &entries[i]
		switch e.Knob.Name {
		case "innodb_flush_method":
			if r.doublewriteFast && d == Strict && e.Status == Tunable {
				var keep []string
				for _, c := range e.Knob.Choices {
					if c != "O_DIRECT_NO_FSYNC" {
						keep = append(keep, c)
					}
				}
				if len(keep) < len(e.Knob.Choices) {
					e.Knob.Choices = keep
					e.Reason = join(e.Reason, "O_DIRECT_NO_FSYNC left out: this server runs innodb_doublewrite=ON as fast with it, weaker than --durability strict promises")
				}
			}
		case "innodb_buffer_pool_size":
			if r.poolChunk > 0 && e.Status == Tunable {
				// Whole chunks: a pool the server would round up is never
				// proposed (Repair also rounds for the instances).
				e.Knob.Step = lcm(max(e.Knob.Step, 1), r.poolChunk)
				step := float64(e.Knob.Step)
				e.Knob.Min = math.Ceil(e.Knob.Min/step) * step
				e.Knob.Max = math.Floor(e.Knob.Max/step) * step
				if d, err := strconv.ParseFloat(e.Knob.Default, 64); err == nil && math.Mod(d, step) != 0 {
					e.Knob.Default = strconv.FormatInt(int64(math.Ceil(d/step)*step), 10)
				}
			}
		case "innodb_log_buffer_size":
			if r.logMapped && e.Status == Tunable {
				e.Status = Unsupported
				e.Reason = "the redo log is memory-mapped here (innodb_log_file_mmap=ON: the server's choice for a log on tmpfs or persistent memory), so the server sizes the log buffer as the log itself; put --workdir on a disk file system to search it"
			}
		}
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// repair applies the rules to cfg (see Space.Repair) and returns the notes.
func (r serverRules) repair(s *Space, out Config) []string {
	var notes []string
	if r.doublewriteFast && out["innodb_flush_method"] == "O_DIRECT_NO_FSYNC" {
		dw, set := out["innodb_doublewrite"]
		if !set {
			if k, ok := s.Knob("innodb_doublewrite"); ok {
				dw = k.Default
			}
		}
		if dw == "ON" || dw == "" {
			if k, ok := s.Knob("innodb_flush_method"); ok && slices.Contains(k.Choices, "O_DIRECT") {
				out["innodb_flush_method"] = "O_DIRECT"
				notes = append(notes, "innodb_flush_method O_DIRECT_NO_FSYNC changed to O_DIRECT: with it this server runs innodb_doublewrite=ON as fast")
			}
		}
	}
	if r.poolChunk > 0 {
		pool, err := strconv.ParseFloat(out["innodb_buffer_pool_size"], 64)
		if err == nil && pool > 0 {
			inst := r.poolInstances
			if v, set := out["innodb_buffer_pool_instances"]; set {
				inst, _ = strconv.ParseInt(v, 10, 64)
				if inst > 1 && pool < gib {
					out["innodb_buffer_pool_instances"] = "1"
					notes = append(notes, fmt.Sprintf("innodb_buffer_pool_instances %d lowered to 1: the server uses one instance for a pool under 1G", inst))
					inst = 1
				}
			}
			unit := float64(r.poolChunk * max(inst, 1))
			if k, ok := s.Knob("innodb_buffer_pool_size"); ok && pool > unit {
				if fl := float64(int64(pool/unit)) * unit; fl != pool && fl >= k.Min {
					if v, err := k.FromFloat(fl); err == nil {
						out[k.Name] = v
						notes = append(notes, fmt.Sprintf("innodb_buffer_pool_size %s rounded down to %s, a multiple of the chunk size %s × %d instances (the server would round it up)", k.Render(fmt.Sprint(int64(pool))), k.Render(v), FormatBytes(r.poolChunk), max(inst, 1)))
					}
				}
			}
		}
	}
	return notes
}
