package usesonly

import (
	"testing"

	"github.com/prscout/prscout/pipeline/candidates/internal/engine"
)

// TestAdd: of the files held, the Max declaring the most distinct used
// names are listed, a tie going to the best score.
func TestAdd(t *testing.T) {
	ev := engine.NewEvidence(nil)
	u := New(ev)
	u.Hold("a.h", engine.Item{Symbol: "x", Score: 0.2})
	u.Hold("b.h", engine.Item{Symbol: "x", Score: 0.2})
	u.Hold("b.h", engine.Item{Symbol: "y", Score: 0.2})
	u.Hold("c.h", engine.Item{Symbol: "x", Score: 0.3})
	u.Hold("d.h", engine.Item{Symbol: "x", Score: 0.1})
	u.Add()
	if len(ev.Files) != Max || ev.Files["b.h"] == nil || ev.Files["c.h"] == nil {
		t.Errorf("listed %v, want b.h and c.h", ev.Files)
	}
}
