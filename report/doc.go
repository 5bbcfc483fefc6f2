// Package report is the one home of every rendering of a study:
//
//   - progress while a mode runs (Progress: plain lines, a live terminal
//     display, or JSON events with --json; see docs/output-formats.md for
//     the event schema) and the short form of a finished trial
//     (TrialLine: its outcome, then what it changes from the baseline, cut
//     to the output's width), the outcome and the A/B gain (WriteOutcome,
//     WriteGain);
//   - the tables of `trials`, `studies`, `knobs` and `diff`, the running
//     server's differences of `diff --dsn` (WriteServerDiff) with the SET
//     GLOBAL statements and option lines that apply them, the trial page
//     of `show`, the `noise` lines and summary, the knob importance;
//   - pictures: PNG plots drawn with gonum.org/v1/plot (the score of each
//     trial with the study's confirmed best so far, the per-second throughput of the
//     baseline and of the best trial, knob importance, and the score
//     against each important knob) and one self-contained HTML page holding
//     them as data URIs, with the top trials and their differences from the
//     baseline.
//
// The export file (my.cnf, SET GLOBAL, SET PERSIST, JSON) is package
// exportfile's, and so are the words report prints the same way
// (exportfile.ThroughputOf, GainText, RulesText).
//
// It runs nothing and reads nothing itself: callers pass what the study
// stored and what the modes return (package study/result); it never
// imports package study.
package report
