// Command rtype-stage checks stage files (STAGES.md) as the game and the
// server load them, and says what each holds: a stage author runs it
// before playing a new file.
//
//	rtype-stage FILE|NAME...
//
// A FILE is a stage file's path, a NAME a built-in stage's (1, 2). For
// each it prints one summary line, or the loader's errors (file, line,
// entry and field); the exit status is 1 when any fails, 2 on a usage
// error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"rtype/sim/stage"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rtype-stage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rtype-stage FILE|NAME...\n  checks stage files as the game loads them (STAGES.md); built-in stages: %s\n",
			strings.Join(stage.Names(), ", "))
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	status := 0
	for _, a := range fs.Args() {
		st, err := stage.Resolve(a)
		if err != nil {
			fmt.Fprintln(stderr, err)
			status = 1
			continue
		}
		fmt.Fprintln(stdout, summary(a, st))
	}
	return status
}

// summary says what st holds in one line: its names and length, its
// waves and foes (with one player, in the first loop), its checkpoints
// and bosses, its terrain, and the checksum a server sends (7.12).
func summary(arg string, st *stage.Stage) string {
	var waves, foes, checkpoints int
	var bosses []string
	for _, e := range st.Entries {
		switch e.Kind {
		case stage.EntryWave:
			waves++
			foes += e.Wave.Count
		case stage.EntryCheckpoint:
			checkpoints++
		case stage.EntryMidBoss, stage.EntryBoss:
			bosses = append(bosses, fmt.Sprintf("%s at %s", e.Kind, stage.FormatTicks(e.Tick)))
		}
	}
	terrain := "no terrain"
	if n := len(st.Terrain); n > 0 {
		solid := 0
		for _, c := range st.Terrain {
			if c.Ceil > 0 || c.Floor > 0 || c.BlockBot > 0 {
				solid++
			}
		}
		terrain = fmt.Sprintf("terrain in %d of %d columns of %d px", solid, n, stage.TileW)
	}
	return fmt.Sprintf("%s: ok: stage %q %q, %s of timeline at %g px/s; %d waves (%d foes with one player), %d checkpoints, %s; %s; sum %08x",
		arg, st.Name, st.Title, stage.FormatTicks(st.Length), st.Scroll, waves, foes, checkpoints, strings.Join(bosses, ", "), terrain, st.FileSum())
}
