package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync"
	"time"

	"rtype/bot"
	"rtype/net/client"
)

// botsEnv, when set in the environment to "ADDR N SEED", makes this
// program (or its test binary) a bot process instead: N bots play on the
// server at ADDR until the program's standard input is closed. Section 2
// loads its server with bots in such a process of their own.
const botsEnv = "RTYPE_BENCH_BOTS"

// botChild is the bot process. It returns its exit status.
func botChild(spec string) int {
	var addr string
	var n int
	var seed uint64
	if _, err := fmt.Sscan(spec, &addr, &n, &seed); err != nil {
		fmt.Fprintf(os.Stderr, "rtype-bench bots: bad %s=%q: %v\n", botsEnv, spec, err)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin) // the parent closes it to end the bots
		cancel()
	}()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if sleepCtx(ctx, time.Duration(i)*5*time.Millisecond) != nil {
				return
			}
			for attempt := 0; attempt < 5 && ctx.Err() == nil; attempt++ {
				c, err := client.Dial(ctx, client.Config{Addr: addr, Name: fmt.Sprintf("bot%d", i+1), Logger: quiet()})
				if err != nil {
					sleepCtx(ctx, 200*time.Millisecond)
					continue
				}
				bot.Play(ctx, c, rand.New(rand.NewPCG(seed, uint64(i))))
				c.Close()
				return
			}
		}()
	}
	wg.Wait()
	return 0
}

// botProcess is a running bot process.
type botProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startBots starts n bots playing on addr in a process of their own: this
// very executable, in the mode of botsEnv.
func startBots(addr string, n int, seed uint64) (*botProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d", botsEnv, addr, n, seed))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &botProcess{cmd: cmd, stdin: stdin}, nil
}

// stop ends the bots (they log out) and waits for the process, killing
// it, by its id, if it has not ended within 5 seconds.
func (b *botProcess) stop() { stopChild(b.cmd, b.stdin, 5*time.Second) }

// stopChild closes a child process's standard input, which ends it, and
// waits for it, killing it, by its id, if it has not ended within wait.
func stopChild(cmd *exec.Cmd, stdin io.Closer, wait time.Duration) {
	stdin.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
		cmd.Process.Kill()
		<-done
	}
}
