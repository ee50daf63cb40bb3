// Package demo simulates the agent runtimes whose journals rewind shows,
// for demonstrations, manual testing and benchmarks.
//
// [Run] starts a simulated agent run that writes a live journal in a
// directory, a few events per second, and waits for a human where the
// real runtime would: a Durable Stream checkpoint waits for a
// checkpoint.approved or checkpoint.rejected line, and a Delta Engine
// ask_human pause waits for interaction/response.txt. [Generate] writes
// a large journal of the same kinds of events as fast as it can.
//
// The journals follow the on-disk formats of the real systems: key order,
// identifier shapes, timestamps and write behaviour (appends under a
// proper-lockfile lock for Durable Stream, plain appends for Delta Engine,
// whole-file rewrites for DeltaMind). Run and Generate share one event
// simulator per format; only the clock, the pacing and the source of human
// decisions differ.
package demo
