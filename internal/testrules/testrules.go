// Package testrules holds gameplay rules made for tests, shared by the
// server's tests and rtype-server's -test-quick-death flag.
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
