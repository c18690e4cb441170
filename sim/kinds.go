package sim

import "rtype/net/wire"

// Roles of the kinds in Stage mode: what collides with what.
const (
	roleNone    uint8 = iota
	roleShip          // a player's ship
	roleShot          // a player's shot: missile, Force laser, wave beam
	roleForce         // a Force
	roleBit           // a bit
	roleFoe           // an enemy, a boss's body or core
	roleFoeShot       // a small enemy shot: the Force blocks it
	roleBigShot       // a large enemy shot: nothing blocks it
	roleItem          // an item to pick up
)

// kindInfo is what the simulation knows of a kind: its role and the size
// of its box, in pixels (PROTOCOL.md 4.1 and 7.12).
type kindInfo struct {
	role uint8
	w, h float64
}

// stageKinds are the kinds of Stage mode. (The Classic kinds' sizes come
// from Rules.) A wave beam's box is that of its level (armsRules).
var stageKinds = [...]struct {
	kind uint8
	kindInfo
}{
	{wire.KindForce, kindInfo{roleForce, 26, 26}},
	{wire.KindWaveBeam, kindInfo{roleShot, 64, 12}},
	{wire.KindForceShot, kindInfo{roleShot, 24, 6}},
	{wire.KindBit, kindInfo{roleBit, 16, 16}},
	{wire.KindPowerUp, kindInfo{roleItem, 24, 24}},
	{wire.KindPowArmor, kindInfo{roleFoe, 40, 32}},
	{wire.KindChaser, kindInfo{roleFoe, 28, 28}},
	{wire.KindTurret, kindInfo{roleFoe, 32, 28}},
	{wire.KindArmored, kindInfo{roleFoe, 44, 36}},
	{wire.KindMidBoss, kindInfo{roleFoe, 170, 170}},
	{wire.KindBoss, kindInfo{roleFoe, 200, 240}},
	{wire.KindBossCore, kindInfo{roleFoe, 40, 40}},
	{wire.KindBossBullet, kindInfo{roleBigShot, 18, 18}},
}

// roles gives the role of every kind, Classic ones included.
var roles = func() (r [256]uint8) {
	r[wire.KindPlayerShip] = roleShip
	r[wire.KindPlayerMissile] = roleShot
	r[wire.KindBydosSlave] = roleFoe
	r[wire.KindEnemyMissile] = roleFoeShot
	for _, k := range stageKinds {
		r[k.kind] = k.role
	}
	return r
}()

// KindSize returns the width and height of the box of an entity of kind k
// (a wave beam's at level 1), in pixels, under rules: what a client draws
// it as. It returns 0, 0 for an unknown kind.
func KindSize(rules *Rules, k uint8) (w, h float64) {
	switch k {
	case wire.KindPlayerShip:
		return rules.ShipW, rules.ShipH
	case wire.KindPlayerMissile:
		return rules.MissileW, rules.MissileH
	case wire.KindBydosSlave:
		return rules.BydosW, rules.BydosH
	case wire.KindEnemyMissile:
		return rules.EnemyMissileW, rules.EnemyMissileH
	}
	for _, s := range stageKinds {
		if s.kind == k {
			return s.w, s.h
		}
	}
	return 0, 0
}
