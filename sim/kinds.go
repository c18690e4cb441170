package sim

import "rtype/vocab"

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
	{vocab.KindForce, kindInfo{roleForce, 26, 26}},
	{vocab.KindWaveBeam, kindInfo{roleShot, 64, 12}},
	{vocab.KindForceShot, kindInfo{roleShot, 24, 6}},
	{vocab.KindBit, kindInfo{roleBit, 16, 16}},
	{vocab.KindPowerUp, kindInfo{roleItem, 24, 24}},
	{vocab.KindPowArmor, kindInfo{roleFoe, 40, 32}},
	{vocab.KindChaser, kindInfo{roleFoe, 28, 28}},
	{vocab.KindTurret, kindInfo{roleFoe, 32, 28}},
	{vocab.KindArmored, kindInfo{roleFoe, 44, 36}},
	{vocab.KindMidBoss, kindInfo{roleFoe, 170, 170}},
	{vocab.KindBoss, kindInfo{roleFoe, 200, 240}},
	{vocab.KindBossCore, kindInfo{roleFoe, 40, 40}},
	{vocab.KindBossBullet, kindInfo{roleBigShot, 18, 18}},
	{vocab.KindHatch, kindInfo{roleFoe, 40, 24}},
	{vocab.KindCrawler, kindInfo{roleFoe, 36, 22}},
	{vocab.KindWarship, kindInfo{roleFoe, 240, 320}},
	{vocab.KindPlate, kindInfo{roleFoe, 28, 60}},
}

// roles gives the role of every kind, Classic ones included.
var roles = func() (r [256]uint8) {
	r[vocab.KindPlayerShip] = roleShip
	r[vocab.KindPlayerMissile] = roleShot
	r[vocab.KindBydosSlave] = roleFoe
	r[vocab.KindEnemyMissile] = roleFoeShot
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
	case vocab.KindPlayerShip:
		return rules.ShipW, rules.ShipH
	case vocab.KindPlayerMissile:
		return rules.MissileW, rules.MissileH
	case vocab.KindBydosSlave:
		return rules.BydosW, rules.BydosH
	case vocab.KindEnemyMissile:
		return rules.EnemyMissileW, rules.EnemyMissileH
	}
	for _, s := range stageKinds {
		if s.kind == k {
			return s.w, s.h
		}
	}
	return 0, 0
}
