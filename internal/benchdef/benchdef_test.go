package benchdef

import (
	"slices"
	"testing"
)

func TestStringSortsOptions(t *testing.T) {
	d := Definition{Driver: "sysbench", Version: "sysbench 1.0.20", Options: map[string]string{"tables": "8", "rand-type": "uniform", "db-ps-mode": "disable"}}
	want := "sysbench (sysbench 1.0.20) --db-ps-mode=disable --rand-type=uniform --tables=8"
	if got := d.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (Definition{Driver: "command", Options: map[string]string{"command": "x"}}).String(); got != "command --command=x" {
		t.Errorf("String() without version = %q", got)
	}
}

func TestDiff(t *testing.T) {
	base := Definition{Driver: "tpcc", Version: "go-tpc v1.0.12", Options: map[string]string{"warehouses": "4", "weight": "45,43,4,4,4"}}
	tests := []struct {
		name string
		n    Definition
		want []string
	}{
		{"same", Definition{Driver: "tpcc", Version: "go-tpc v1.0.12", Options: map[string]string{"weight": "45,43,4,4,4", "warehouses": "4"}}, nil},
		{"option changed", Definition{Driver: "tpcc", Version: "go-tpc v1.0.12", Options: map[string]string{"warehouses": "8", "weight": "45,43,4,4,4"}},
			[]string{"--warehouses: 4 → 8"}},
		{"option added and removed", Definition{Driver: "tpcc", Version: "go-tpc v1.0.12", Options: map[string]string{"warehouses": "4", "wait": "true"}},
			[]string{"--wait: (none) → true", "--weight: 45,43,4,4,4 → (none)"}},
		{"driver and version", Definition{Driver: "sysbench", Version: "sysbench 1.0.20", Options: map[string]string{"warehouses": "4", "weight": "45,43,4,4,4"}},
			[]string{"driver: tpcc → sysbench", "version: go-tpc v1.0.12 → sysbench 1.0.20"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range base.Diff(tt.n) {
				got = append(got, c.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Diff = %q, want %q", got, tt.want)
			}
			if base.Equal(tt.n) != (len(tt.want) == 0) {
				t.Errorf("Equal = %v with changes %q", base.Equal(tt.n), tt.want)
			}
		})
	}
}

func TestDistribution(t *testing.T) {
	special := Definition{Driver: "sysbench", Options: map[string]string{"rand-type": "special", "rand-spec-iter": "12", "rand-spec-pct": "1",
		"rand-spec-res": "75", "rand-pareto-h": "0.2", "tables": "8"}}
	if got, want := special.Distribution(), "--rand-type=special --rand-pareto-h=0.2 --rand-spec-iter=12 --rand-spec-pct=1 --rand-spec-res=75"; got != want {
		t.Errorf("Distribution() = %q, want %q", got, want)
	}
	uniform := Definition{Driver: "sysbench", Options: map[string]string{"rand-type": "uniform", "tables": "8"}}
	if got := uniform.Distribution(); got != "--rand-type=uniform" || uniform.RandType() != "uniform" {
		t.Errorf("Distribution() = %q, RandType() = %q", got, uniform.RandType())
	}
	if got := (Definition{Driver: "tpcc", Options: map[string]string{"warehouses": "4"}}).Distribution(); got != "" {
		t.Errorf("tpcc Distribution() = %q, want none", got)
	}
}
