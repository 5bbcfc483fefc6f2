// Package report renders a study as pictures: PNG plots drawn with
// gonum.org/v1/plot (the score of each trial with the best so far, the
// per-second throughput of the baseline and of the best trial, knob
// importance, and the score against each important knob) and one
// self-contained HTML page holding them as data URIs, with the top trials
// and their differences from the baseline. It reads nothing itself: the
// caller passes the study's trials and samples in an Input.
package report
