package space

import (
	"fmt"
	"strconv"
	"strings"
)

// MemoryPart is one term of a memory estimate.
type MemoryPart struct {
	// Name is the variable, e.g. "innodb_buffer_pool_size".
	Name string
	// Bytes is its size; PerConnection marks per-connection buffers
	// (multiplied by the connection count in the total).
	Bytes         int64
	PerConnection bool
}

// MemoryEstimate is a MySQLTuner-style estimate of a server's peak memory
// in bytes: global buffers plus per-connection buffers times the maximum
// number of connections.
type MemoryEstimate struct {
	// Global and PerConnection sum the parts; Connections is
	// max_connections; Total = Global + PerConnection × Connections.
	Global, PerConnection int64
	Connections           int
	Total                 int64
	// Parts lists every term.
	Parts []MemoryPart
}

// String renders the estimate: "total 4.3G = global 4.1G + 66 x 2.9M per
// connection".
func (m MemoryEstimate) String() string {
	return fmt.Sprintf("%s = global %s + %d x %s per connection", HumanBytes(m.Total), HumanBytes(m.Global), m.Connections, HumanBytes(m.PerConnection))
}

// Global buffers and per-connection buffers counted, as MySQLTuner 1.9
// counts them (mysqltuner.pl, calculations(): server_buffers and
// per_thread_buffers), with the values MariaDB 10.11 uses when neither the
// configuration nor the server says otherwise. The performance schema adds
// +95 MB RSS (performance_schema=ON on MariaDB 10.11, measured on the
// reference 2-core machine, docs/measurement.md), rounded up.
var (
	memGlobal = []struct {
		name string
		def  int64
	}{
		{"innodb_buffer_pool_size", 128 << 20},
		{"innodb_log_buffer_size", 16 << 20},
		{"key_buffer_size", 128 << 20},
		{"query_cache_size", 1 << 20},
		{"aria_pagecache_buffer_size", 128 << 20},
	}
	memPerConn = []struct {
		name string
		def  int64
	}{
		{"read_buffer_size", 128 << 10},
		{"read_rnd_buffer_size", 256 << 10},
		{"sort_buffer_size", 2 << 20},
		{"join_buffer_size", 256 << 10},
		{"thread_stack", 292 << 10},
	}
	perfSchemaBytes int64 = 100 << 20
)

// EstimateMemory estimates the peak memory of a server running cfg with
// conns connections. A value is taken from cfg (knob names), else from
// server (variable name → the running server's global value, e.g.
// ServerInfo.Vars), else MariaDB 10.11's default. The one in-memory
// temporary table MySQLTuner counts globally is max(tmp_table_size,
// max_heap_table_size); binlog_cache_size counts per connection only when
// log_bin is ON.
func EstimateMemory(cfg Config, server map[string]ServerVar, conns int) MemoryEstimate {
	get := func(name string, def int64) int64 {
		if v, ok := cfg[name]; ok {
			if n, err := ParseBytes(v); err == nil {
				return n
			}
		}
		if sv, ok := server[name]; ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(sv.Value), 10, 64); err == nil {
				return n
			}
		}
		return def
	}
	m := MemoryEstimate{Connections: conns}
	add := func(name string, b int64, per bool) {
		m.Parts = append(m.Parts, MemoryPart{Name: name, Bytes: b, PerConnection: per})
		if per {
			m.PerConnection += b
		} else {
			m.Global += b
		}
	}
	for _, g := range memGlobal {
		add(g.name, get(g.name, g.def), false)
	}
	add("max(tmp_table_size,max_heap_table_size)", max(get("tmp_table_size", 16<<20), get("max_heap_table_size", 16<<20)), false)
	ps := cfg["performance_schema"]
	if ps == "" {
		if sv, ok := server["performance_schema"]; ok {
			ps = strings.ToUpper(sv.Value)
		}
	}
	if ps == "ON" {
		add("performance_schema", perfSchemaBytes, false)
	}
	for _, p := range memPerConn {
		add(p.name, get(p.name, p.def), true)
	}
	if sv, ok := server["log_bin"]; ok && strings.EqualFold(sv.Value, "ON") {
		add("binlog_cache_size", get("binlog_cache_size", 32<<10), true)
	}
	m.Total = m.Global + m.PerConnection*int64(conns)
	return m
}

// HumanBytes renders n with one decimal and a binary suffix: 4617089843 →
// "4.3G", 1536 → "1.5K", 512 → "512".
func HumanBytes(n int64) string {
	units := []struct {
		s string
		v float64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}}
	for _, u := range units {
		if float64(n) >= u.v {
			return strconv.FormatFloat(float64(n)/u.v, 'f', 1, 64) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// MemoryVariables are the server variables EstimateMemory reads (besides
// the knobs of a configuration), for callers that read them from a running
// server.
func MemoryVariables() []string {
	var out []string
	for _, g := range memGlobal {
		out = append(out, g.name)
	}
	for _, p := range memPerConn {
		out = append(out, p.name)
	}
	return append(out, "tmp_table_size", "max_heap_table_size", "performance_schema", "log_bin", "binlog_cache_size")
}
