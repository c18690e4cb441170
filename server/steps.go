package server

import (
	"rtype/net/wire2"
)

// Limits of the v2 input queue (PROTOCOL.md 7.4).
const (
	// maxSteps is how many received steps above the last applied one a
	// v2 session keeps; a new one beyond drops the lowest.
	maxSteps = 16
	// maxWaiting is how many steps may wait at the start of a tick; more
	// are skipped, lowest first, so that latency stays bounded.
	maxWaiting = 4
)

// stepQueue is a v2 player's inputs by step (7.4): the steps received
// above the last one applied, sorted, and the actions held. The zero
// value is a player that has applied nothing and holds nothing. It has a
// fixed size: an Input never allocates.
type stepQueue struct {
	has   bool   // a step was applied
	last  uint32 // the last step applied (when has)
	held  uint8  // the actions held
	n     int
	steps [maxSteps]uint32 // steps[:n], ascending
	acts  [maxSteps]uint8
}

// add queues the steps of an Input that are above the last applied and
// not queued yet; past maxSteps, the lowest are dropped.
func (q *stepQueue) add(in *wire2.Input) {
	for i := 0; i < in.Count; i++ {
		q.insert(in.Step-uint32(i), in.Actions[i])
	}
}

func (q *stepQueue) insert(step uint32, actions uint8) {
	if q.has && step <= q.last {
		return // applied or skipped already: a repeat
	}
	k := 0
	for k < q.n && q.steps[k] < step {
		k++
	}
	if k < q.n && q.steps[k] == step {
		return // queued already
	}
	if q.n == maxSteps {
		if k == 0 {
			return // lower than all 16 kept: it would be dropped at once
		}
		// Drop the lowest to make room.
		copy(q.steps[:], q.steps[1:k])
		copy(q.acts[:], q.acts[1:k])
		k--
	} else {
		copy(q.steps[k+1:q.n+1], q.steps[k:q.n])
		copy(q.acts[k+1:q.n+1], q.acts[k:q.n])
		q.n++
	}
	q.steps[k], q.acts[k] = step, actions
}

// next is the queue's work at the start of a tick (7.4): it skips the
// lowest steps while more than maxWaiting wait, then applies the lowest
// one if any, and returns the actions held for the tick.
func (q *stepQueue) next() uint8 {
	if q.n > maxWaiting {
		drop := q.n - maxWaiting
		q.last, q.has = q.steps[drop-1], true
		q.drop(drop)
	}
	if q.n > 0 {
		q.held, q.last, q.has = q.acts[0], q.steps[0], true
		q.drop(1)
	}
	return q.held
}

// drop removes the k lowest steps.
func (q *stepQueue) drop(k int) {
	copy(q.steps[:], q.steps[k:q.n])
	copy(q.acts[:], q.acts[k:q.n])
	q.n -= k
}
