// Package dashboard serves a live, read-only view of a trials store in a
// browser (autotune dashboard): the studies of the store, one study's
// trials, plots, knob importance, A/B pairs and minimisation, the running
// trial's per-second throughput as it arrives, one trial's page (what
// autotune show prints), and the applies of the store (autotune apply's
// audit trail: each apply's settings, watch windows and steps, a running
// one's as they are recorded).
//
// It reads the store a study (or its workers) writes from another process:
// every request reads it again, and a small script in the page asks the
// server every few seconds whether anything changed (a version of what the
// page shows) and swaps in the new page without a reload. The pictures are
// report's (server-rendered PNG and SVG); nothing is fetched from another
// site, so the page works offline. The package runs nothing and never
// writes the store.
package dashboard
