package space

import (
	"fmt"
	"strconv"
)

// Repair makes the dependent knobs of a sampled configuration consistent
// and returns the repaired copy with one note per change. Rules:
//
//   - innodb_io_capacity_max >= innodb_io_capacity. The server itself
//     raises the maximum when the capacity exceeds it (measured on 10.11:
//     io_capacity 3000 gave io_capacity_max 6000 even after the maximum had
//     been set to 1500, on the reference 2-core machine,
//     docs/measurement.md), so a sampled pair
//     below the line would be measured as something else than recorded.
//     The maximum is raised to the capacity.
//
//   - innodb_log_file_size <= innodb_buffer_pool_size. The redo log only
//     has to cover the changes of pages that are dirty in the pool; the
//     checkpoint cannot lag further behind than the pool's dirty pages
//     allow, so a log beyond the pool's size buys no less flushing and
//     costs disk and crash-recovery time. (MySQLTuner's "log = 25 % of the
//     pool" rule is not used: a 1G log against a 128M pool measured
//     neutral on the reference 2-core machine, docs/measurement.md.) The
//     log is lowered to
//     the pool size, rounded down to its step.
//
//   - innodb_log_buffer_size <= innodb_log_file_size. MariaDB 10.11
//     refuses a redo log smaller than its buffer (SET GLOBAL
//     innodb_log_file_size: error 1210 "innodb_log_file_size must be at
//     least innodb_log_buffer_size"); the buffer is lowered to the log
//     size (applied after the log was fitted to the pool).
//
//   - innodb_max_dirty_pages_pct_lwm <= innodb_max_dirty_pages_pct. The
//     server lowers the low-water mark to the maximum otherwise (read back
//     on 10.11.19: lwm 78.033 with max 38.508 ran as 38.508). The mark is
//     lowered to the maximum.
//
//   - query_cache_type=OFF leaves query_cache_size out. MariaDB 10.11 turns
//     the query cache ON at start whenever query_cache_size is in the
//     option file with a non-zero value, even the default 1M and even with
//     query_cache_type=OFF written explicitly, in either line order (read
//     back on 10.11.19); with the cache off the size does nothing.
//
//   - thread_handling other than pool-of-threads leaves thread_pool_size
//     out: the size only matters to the pool, and without the pool SET
//     GLOBAL thread_pool_size reads back as 0 (10.11.19).
//
//   - the rules of the server the space was resolved against
//     (serverRules): O_DIRECT_NO_FSYNC becomes O_DIRECT where the server
//     would run innodb_doublewrite=ON as fast; on MySQL the buffer pool is
//     rounded down to a multiple of chunk size × instances, and more than
//     one instance needs a pool of 1G or more.
//
// Knobs absent from cfg are left alone (the server's own defaults are
// consistent). Repair is deterministic, so a sampler that proposed the
// original still sees a well-defined objective.
func (s *Space) Repair(cfg Config) (Config, []string) {
	out := cfg.Clone()
	var notes []string
	num := func(name string) (float64, bool) {
		v, ok := out[name]
		if !ok {
			return 0, false
		}
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	if c, ok := num("innodb_io_capacity"); ok {
		if m, ok := num("innodb_io_capacity_max"); ok && m < c {
			if k, ok := s.Knob("innodb_io_capacity_max"); ok {
				if v, err := k.FromFloat(c); err == nil {
					out[k.Name] = v
					notes = append(notes, fmt.Sprintf("innodb_io_capacity_max %s raised to innodb_io_capacity %s", k.Render(cfg[k.Name]), k.Render(v)))
				}
			}
		}
	}
	if p, ok := num("innodb_buffer_pool_size"); ok {
		if l, ok := num("innodb_log_file_size"); ok && l > p {
			if k, ok := s.Knob("innodb_log_file_size"); ok {
				step := float64(max(k.Step, 1))
				if v, err := k.FromFloat(floorTo(p, step)); err == nil {
					out[k.Name] = v
					notes = append(notes, fmt.Sprintf("innodb_log_file_size %s lowered to the buffer pool size %s", k.Render(cfg[k.Name]), k.Render(v)))
				}
			}
		}
	}
	if l, ok := num("innodb_log_file_size"); ok {
		if b, ok := num("innodb_log_buffer_size"); ok && b > l {
			if k, ok := s.Knob("innodb_log_buffer_size"); ok {
				step := float64(max(k.Step, 1))
				if v, err := k.FromFloat(floorTo(l, step)); err == nil {
					out[k.Name] = v
					notes = append(notes, fmt.Sprintf("innodb_log_buffer_size %s lowered to innodb_log_file_size %s", k.Render(cfg[k.Name]), k.Render(v)))
				}
			}
		}
	}
	if m, ok := num("innodb_max_dirty_pages_pct"); ok {
		if l, ok := num("innodb_max_dirty_pages_pct_lwm"); ok && l > m {
			if k, ok := s.Knob("innodb_max_dirty_pages_pct_lwm"); ok {
				if v, err := k.FromFloat(m); err == nil {
					out[k.Name] = v
					notes = append(notes, fmt.Sprintf("innodb_max_dirty_pages_pct_lwm %s lowered to innodb_max_dirty_pages_pct %s", cfg[k.Name], v))
				}
			}
		}
	}
	if v, set := out["query_cache_size"]; set && out["query_cache_type"] == "OFF" {
		delete(out, "query_cache_size")
		notes = append(notes, fmt.Sprintf("query_cache_size %s left out: query_cache_type is OFF", v))
	}
	if h, ok := out["thread_handling"]; ok && h != "pool-of-threads" {
		if v, set := out["thread_pool_size"]; set {
			delete(out, "thread_pool_size")
			notes = append(notes, fmt.Sprintf("thread_pool_size %s left out: thread_handling is %s", v, h))
		}
	}
	notes = append(notes, s.rules.repair(s, out)...)
	return out, notes
}
