package view

import (
	"os"
	"runtime"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/replay"
	"rtype/sim"
)

// benchReplay reads the recording of $RTYPE_REPLAY (BENCHMARKS.md says how
// to make a 5-minute one), or skips.
func benchReplay(b *testing.B) *replay.Replay {
	path := os.Getenv("RTYPE_REPLAY")
	if path == "" {
		b.Skip("RTYPE_REPLAY names no recording (BENCHMARKS.md: make one with rtype-bot -record)")
	}
	rep, err := replay.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	if rep.Damage != nil {
		b.Fatal(rep.Damage)
	}
	return rep
}

// BenchmarkReplaySeek seeks to nine tenths of the recording, from a
// Replayer elsewhere: the time a seek takes to show its frame.
func BenchmarkReplaySeek(b *testing.B) {
	rep := benchReplay(b)
	r := NewReplayer(rep, Config{Rules: sim.DefaultRules()})
	var f Frame
	runtime.LockOSThread() // for its thread's CPU time
	defer runtime.UnlockOSThread()
	cpu := testutil.ThreadCPU()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Seek(rep.Length * 9 / 10)
		r.Frame(&f)
	}
	b.ReportMetric(rep.Length.Seconds(), "s-recording")
	// The CPU time of a seek: what a busy machine does not inflate.
	b.ReportMetric(float64(testutil.ThreadCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkReplayFrame plays the recording at 1x: per drawn frame, the
// records of 1/60 s applied (the client's receiving work, live), the
// View's Update and its Frame.
func BenchmarkReplayFrame(b *testing.B) {
	rep := benchReplay(b)
	r := NewReplayer(rep, Config{Rules: sim.DefaultRules()})
	r.Seek(30 * time.Second)
	var f Frame
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r.Ended() {
			b.StopTimer()
			r.Seek(30 * time.Second)
			b.StartTimer()
		}
		r.Update()
		r.Frame(&f)
	}
}

// BenchmarkViewFrame is BenchmarkReplayFrame without applying records:
// the View's Update and Frame on a world that does not change, the part
// of a frame that live play and a replay share.
func BenchmarkViewFrame(b *testing.B) {
	rep := benchReplay(b)
	r := NewReplayer(rep, Config{Rules: sim.DefaultRules()})
	r.Seek(rep.Length / 2)
	v := r.View()
	var f Frame
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v.Update(0)
		v.Frame(&f, v.Now())
	}
}

// BenchmarkFeedRecording applies every record of the recording to a new
// client world (what a seek does before its last second), per record.
func BenchmarkFeedRecording(b *testing.B) {
	rep := benchReplay(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := replay.NewPlayer(rep, rep.Header.Player)
		p.Advance(rep.Length)
		p.DrainEvents(nil)
	}
	b.ReportMetric(float64(len(rep.Records)), "records")
}
