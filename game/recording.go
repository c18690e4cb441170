package game

import (
	"log/slog"
	"os"
	"time"

	"rtype/net/client"
	"rtype/net/replay"
)

// recording is the recording of the game joined: its file and recorder.
// A nil *recording records nothing.
type recording struct {
	f   *os.File
	rec *replay.Recorder
	log *slog.Logger
}

// startRecording opens a new recording in dir, pruning the oldest ones
// so that the directory stays under limit bytes with room for this one
// (at most a tenth of limit); nil (nothing recorded) when dir is "" or
// limit 0, or when the file cannot be made (logged).
func startRecording(dir string, limit int64, name string, log *slog.Logger) *recording {
	if dir == "" || limit <= 0 {
		return nil
	}
	most := max(limit/10, 1<<20)
	f, err := replay.Create(dir, limit, most, time.Now(), name)
	if err != nil {
		log.Warn("the game will not be recorded", "dir", dir, "err", err)
		return nil
	}
	return &recording{f: f, rec: replay.NewRecorder(f, most), log: log}
}

// tap returns the client's Tap, nil for no recording.
func (r *recording) tap() client.Tap {
	if r == nil {
		return nil
	}
	return r.rec
}

// close ends the recording: what is buffered goes to the file.
func (r *recording) close() {
	if r == nil || r.f == nil {
		return
	}
	if err := r.rec.Flush(); err != nil {
		r.log.Warn("recording", "file", r.f.Name(), "err", err)
	}
	r.f.Close()
	r.log.Info("game recorded", "file", r.f.Name(), "bytes", r.rec.Size())
	r.f = nil
}

// discard removes a recording that recorded no game (a failed dial).
func (r *recording) discard() {
	if r == nil {
		return
	}
	r.f.Close()
	os.Remove(r.f.Name())
}
