//go:build !race

package review

// timeScale stretches the time bounds of the abuse tests under the race
// detector, which slows this code ten- to twentyfold.
const timeScale = 1
