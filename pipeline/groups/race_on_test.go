//go:build race

package groups

// raceEnabled: the race detector slows the planner several times over.
const raceEnabled = true
