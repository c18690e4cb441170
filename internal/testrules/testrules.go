// Package testrules holds gameplay rules made for tests and benchmarks,
// shared by the server's tests, rtype-server's -test-quick-death flag,
// rtype-bench and the simulation's benchmarks.
package testrules

import "rtype/sim"

// QuickDeath returns rules in which a ship that does not move dies at
// once: one life, no invulnerability, Bydos firing fast aimed missiles
// from inside the area. A game of idle players is over within a second.
func QuickDeath() *sim.Rules {
	r := sim.DefaultRules()
	r.Lives = 1
	r.JoinInvulnTicks = 0
	r.FirstWave = 1
	r.BydosEntryX = 1200
	r.BydosFireMin, r.BydosFireMax = 1, 1
	r.EnemyMissileSpeed = 2000
	return &r
}

// FullStrength returns the default rules with the waves at the strength
// they reach at their maximum from the start (24 Bydos every 2 s, from
// wave 1 on at 2.5 times their speed), and 255 lives so that no player
// runs out during a measurement: rtype-bench's busy games.
func FullStrength() sim.Rules {
	r := sim.DefaultRules()
	r.Lives = 255
	r.FirstWave = 60
	r.WaveSize = r.WaveSizeMax
	r.WaveInterval = r.WaveIntervalMin
	r.WaveIntervalStep = 0
	r.WaveSpeedStep = r.WaveSpeedMax // wave 0 at 1x, every later one at the maximum
	return r
}
