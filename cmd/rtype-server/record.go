package main

import (
	"flag"
	"fmt"
	"log/slog"
	"time"

	"rtype/net/replay"
	"rtype/net/wire"
	"rtype/server"
)

// recordFlags are -record and -record-cap.
type recordFlags struct {
	dir   *string
	capMB *int
}

func addRecordFlags() recordFlags {
	return recordFlags{
		dir:   flag.String("record", "", "record every game into this `DIR`, one replay file each (REPLAYS.md; rtype -replay FILE plays one); \"\" records nothing"),
		capMB: flag.Int("record-cap", 1024, "with -record: the most the recordings may take, in MiB; the oldest go first, and a game records at most a tenth of it"),
	}
}

// apply sets cfg.Recorder for -record.
func (f recordFlags) apply(cfg *server.Config, log *slog.Logger) error {
	if *f.dir == "" {
		return nil
	}
	if *f.capMB < 1 {
		return fmt.Errorf("-record-cap %d: at least 1 MiB", *f.capMB)
	}
	cfg.Recorder = gameRecorder(*f.dir, int64(*f.capMB)<<20, log)
	return nil
}

// gameRecorder returns a server.Config.Recorder that records each game
// into dir, under limit bytes in all (a game at most a tenth of it).
func gameRecorder(dir string, limit int64, log *slog.Logger) func(game int, mode uint8, rules wire.LoginExt) server.GameRecorder {
	most := max(limit/10, 1<<20)
	return func(game int, mode uint8, rules wire.LoginExt) server.GameRecorder {
		name := fmt.Sprintf("game%d", game)
		f, err := replay.Create(dir, limit, most, time.Now(), name)
		if err != nil {
			log.Error("game not recorded", "game", game, "dir", dir, "err", err)
			return nil
		}
		path := f.Name()
		rec, err := replay.NewGameRecorder(f, mode, rules, name, most, func(size int64, err error) {
			if err != nil {
				log.Error("recording", "game", game, "file", path, "err", err)
				return
			}
			log.Info("game recorded", "game", game, "file", path, "bytes", size)
		})
		if err != nil {
			log.Error("game not recorded", "game", game, "file", path, "err", err)
			return nil
		}
		log.Info("recording", "game", game, "file", path)
		return rec
	}
}
