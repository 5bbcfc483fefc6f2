package space

import (
	"reflect"
	"testing"
)

func TestEssential(t *testing.T) {
	sp := Default()
	cases := []struct {
		name string
		in   Config
		want Config
	}{
		{"empty", Config{}, Config{}},
		{"a default left out", Config{"innodb_buffer_pool_size": "134217728"}, Config{}},
		{"a default in another spelling", Config{"innodb_buffer_pool_size": "128M", "innodb_flush_log_at_trx_commit": "1"}, Config{}},
		{"a changed knob kept", Config{"innodb_buffer_pool_size": "1G", "innodb_log_file_size": "100663296"},
			Config{"innodb_buffer_pool_size": "1G"}},
		{"a choice at its default, any case", Config{"transaction_isolation": "repeatable-read", "innodb_flush_method": "o_direct"}, Config{}},
		{"io_capacity_max at 2000 with the default capacity", Config{"innodb_io_capacity_max": "2000"}, Config{}},
		{"io_capacity_max at twice a raised capacity", Config{"innodb_io_capacity": "1500", "innodb_io_capacity_max": "3000"},
			Config{"innodb_io_capacity": "1500"}},
		{"io_capacity_max at 2000 with a raised capacity is a setting", Config{"innodb_io_capacity": "1500", "innodb_io_capacity_max": "2000"},
			Config{"innodb_io_capacity": "1500", "innodb_io_capacity_max": "2000"}},
		{"thread_pool_size without the pool", Config{"thread_pool_size": "7"}, Config{}},
		{"thread_pool_size with one thread per connection", Config{"thread_handling": "one-thread-per-connection", "thread_pool_size": "7"}, Config{}},
		{"thread_pool_size with the pool", Config{"thread_handling": "pool-of-threads", "thread_pool_size": "7"},
			Config{"thread_handling": "pool-of-threads", "thread_pool_size": "7"}},
		{"query_cache_size is kept at its default", Config{"query_cache_size": "1M", "query_cache_type": "OFF"}, Config{"query_cache_size": "1M"}},
		{"a knob outside the space and a value that does not parse", Config{"datadir": "/x", "innodb_buffer_pool_size": "lots"},
			Config{"datadir": "/x", "innodb_buffer_pool_size": "lots"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := sp.Essential(c.in)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Essential(%v) = %v, want %v", c.in, got, c.want)
			}
			if again := sp.Essential(got); !reflect.DeepEqual(again, got) {
				t.Errorf("not idempotent: %v, then %v", got, again)
			}
		})
	}
}

func TestFillThenEssential(t *testing.T) {
	sp := Default()
	for _, in := range []Config{
		{},
		{"innodb_io_capacity": "1500"},
		{"innodb_buffer_pool_size": "1073741824", "query_cache_type": "DEMAND", "thread_handling": "pool-of-threads"},
	} {
		full := sp.Fill(in)
		for _, k := range sp.Knobs() {
			if _, ok := full[k.Name]; !ok {
				t.Fatalf("Fill(%v) leaves %s out", in, k.Name)
			}
		}
		want := sp.Essential(in)
		if _, ok := in["query_cache_size"]; !ok {
			want["query_cache_size"] = full["query_cache_size"]
		}
		if got := sp.Essential(full); !reflect.DeepEqual(got, want) {
			t.Errorf("Essential(Fill(%v)) = %v, want %v", in, got, want)
		}
	}
	if got := sp.Fill(Config{"innodb_io_capacity": "1500"})["innodb_io_capacity_max"]; got != "3000" {
		t.Errorf("Fill with io_capacity 1500: io_capacity_max %s, want 3000 (the server's max(2000, 2 × capacity))", got)
	}
}
