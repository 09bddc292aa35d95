//go:build !race

package groups

const raceEnabled = false
