package api

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMirrorSizeMetrics: the mirror's size gauge and removal counter are
// registered on the injected registry and follow the observer.
func TestMirrorSizeMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	o := m.Mirror()
	o.MirrorBytes(123456)
	o.MirrorEvicted()
	o.MirrorEvicted()
	if got := testutil.ToFloat64(m.MirrorBytes); got != 123456 {
		t.Errorf("prscout_mirror_bytes = %v", got)
	}
	if got := testutil.ToFloat64(m.MirrorEvictions); got != 2 {
		t.Errorf("prscout_mirror_evictions_total = %v", got)
	}
	n, err := testutil.GatherAndCount(reg, "prscout_mirror_bytes", "prscout_mirror_evictions_total")
	if err != nil || n != 2 {
		t.Errorf("gathered %d series from the registry, %v", n, err)
	}
}
