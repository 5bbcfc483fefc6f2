package study

import (
	"context"
	"testing"

	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/runner"
)

// The memory estimate on an existing server reads the server's own
// variables and max_connections, in the form the estimate compares
// (booleans ON/OFF); variables the server lacks are left out.
func TestMemoryVariablesFromTheServer(t *testing.T) {
	srv := teststore.Start(t, "innodb_buffer_pool_size = 64M")
	ex, err := runner.OpenExisting("root@unix("+srv.Socket+")/", "")
	if err != nil {
		t.Fatal(err)
	}
	vars, conns := memoryVariables(context.Background(), ex, 7)
	if vars["innodb_buffer_pool_size"].Value != "67108864" {
		t.Errorf("buffer pool %q, want 67108864", vars["innodb_buffer_pool_size"].Value)
	}
	if v := vars["performance_schema"].Value; v != "ON" && v != "OFF" {
		t.Errorf("performance_schema %q, want ON or OFF", v)
	}
	if conns != 200 {
		t.Errorf("max_connections %d, want the server's 200", conns)
	}
	if _, ok := vars["no_such_variable"]; ok || len(vars) < 10 {
		t.Errorf("%d variables read: %v", len(vars), vars)
	}
}
