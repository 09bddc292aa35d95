package thread

import (
	"context"
	"fmt"
	"testing"

	"github.com/prscout/prscout/pipeline/marker"
)

// TestFindCodeBoundedWork: a finding anchored on 1,000 lines, asked about
// in a file of 1,000,000 short lines, costs at most the search budget in
// hashed bytes (not a hash of the 1,000-line window at every line), finds
// the code where it moved nearby, answers "not searched through" rather than
// "changed" when the budget runs out, and stops on a cancelled context.
func TestFindCodeBoundedWork(t *testing.T) {
	const total, n = 1_000_000, 1000
	lines := make([]string, total)
	for i := range lines {
		lines[i] = fmt.Sprintf("x%d;", i%97)
	}
	anchor := make([]string, n)
	for i := range anchor {
		anchor[i] = fmt.Sprintf("a%d;", i)
	}
	hash := marker.CodeHash(anchor)
	ctx := context.Background()
	const budget = 4 << 20
	windowBytes := 0
	for _, l := range anchor {
		windowBytes += len(l) + 1
	}

	// Absent: the search stops at the budget, long before a million windows.
	at, complete, hashed := findCode(ctx, lines, hash, n, 500_000, budget)
	if at != 0 || complete || hashed > budget || hashed < budget-2*windowBytes {
		t.Errorf("absent code: at %d, complete %v, %d bytes hashed (budget %d)", at, complete, hashed, budget)
	}

	// Moved 300 lines down from the anchored line 500,000: found.
	moved := append([]string(nil), lines...)
	copy(moved[500_300:], anchor)
	at, complete, hashed = findCode(ctx, moved, hash, n, 500_000, budget)
	if at != 500_301 || !complete || hashed > 700*windowBytes {
		t.Errorf("moved code: at %d, complete %v, %d bytes hashed, want line 500301 within 700 windows", at, complete, hashed)
	}
	// In place: one window.
	at, _, hashed = findCode(ctx, moved, hash, n, 500_301, budget)
	if at != 500_301 || hashed != windowBytes {
		t.Errorf("code in place: at %d, %d bytes hashed, want one window (%d)", at, hashed, windowBytes)
	}
	// Nearest of two copies; a tie goes to the lower line.
	two := []string{"a", "b", "x", "a", "b", "y", "a", "b"}
	if at, _, _ := findCode(ctx, two, marker.CodeHash([]string{"a", "b"}), 2, 5, budget); at != 4 {
		t.Errorf("nearest copy at %d, want 4", at)
	}
	if at, _, _ := findCode(ctx, two, marker.CodeHash([]string{"a", "b"}), 2, 1, budget); at != 1 {
		t.Errorf("copy at the anchor found at %d, want 1", at)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if at, complete, hashed := findCode(cancelled, lines, hash, n, 1, budget); at != 0 || complete || hashed != 0 {
		t.Errorf("cancelled: at %d, complete %v, %d bytes hashed", at, complete, hashed)
	}
}
