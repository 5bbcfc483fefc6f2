// Package archtest holds no code: its test checks the import rules of the
// module's architecture.
//
// The test lists every package of the module (go list -json ./...) and
// fails when a package imports a project package its rule does not allow,
// or when a package is covered by no rule at all, so that a new package is
// placed in the architecture on purpose. The rules table is at the top of
// archtest_test.go; the direct imports of non-test files are checked (test
// files may import what they need, e.g. internal/teststore).
//
// In short: space is the vocabulary and imports nothing of the project,
// nor does measure, the measurement vocabulary (samples, outcome, score);
// search decides and knows no processes or storage; strategy proposes,
// through search's Strategy interface; runner and its sub-packages run
// processes and know nothing of the search; trial is the
// engine between search and runner; storage and report read search types;
// study wires the engine to a store; workload reads query logs into
// workload files; internal/ holds helpers; cmd/ wires
// everything and nothing imports cmd/.
//
// The lab (internal/lab/...: landscapes, fitted fixtures, the Optuna peer,
// shell-command objectives) is no part of the product: only the lab's
// commands (cmd/autotune-lab, cmd/fitfixture) import it, and a second test
// lists what each other command is built from (go list -deps) and fails
// when a lab package, or an embedded Python file, is among it.
package archtest
