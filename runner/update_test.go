package runner

import "flag"

// update is -update: rewrite golden files under testdata/ instead of
// comparing against them (go test ./runner/ -update).
var update = flag.Bool("update", false, "rewrite golden files under testdata/ instead of comparing")

func sbUpdate() bool { return *update }
