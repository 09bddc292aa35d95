package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGCPolicy(t *testing.T) {
	none := func() (int64, bool) { return 0, false }
	gib2 := func() (int64, bool) { return 2 << 30, true }
	for _, tc := range []struct {
		name    string
		env     map[string]string
		cgroup  func() (int64, bool)
		percent int
		limit   int64
	}{
		{"defaults", nil, none, serveGCPercent, serveMemoryLimit},
		{"container limit", nil, gib2, serveGCPercent, 3 << 29},
		{"operator's GOGC kept", map[string]string{"GOGC": "150"}, gib2, 0, 3 << 29},
		{"operator's GOMEMLIMIT kept", map[string]string{"GOMEMLIMIT": "512MiB"}, gib2, serveGCPercent, 0},
		{"both kept", map[string]string{"GOGC": "off", "GOMEMLIMIT": "3GiB"}, none, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := gcPolicy(func(k string) string { return tc.env[k] }, tc.cgroup)
			if got.percent != tc.percent || got.limit != tc.limit {
				t.Errorf("gcPolicy = percent %d limit %d, want %d %d (%s)", got.percent, got.limit, tc.percent, tc.limit, got.says)
			}
			if got.says == "" {
				t.Error("no line for the log")
			}
		})
	}
}

func TestReadCgroupLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name  string
		files []string
		n     int64
		ok    bool
	}{
		{"v2 number", []string{write("v2", "1073741824\n")}, 1 << 30, true},
		{"v2 max", []string{write("v2max", "max\n")}, 0, false},
		{"v1 after a missing v2", []string{missing, write("v1", "536870912\n")}, 512 << 20, true},
		{"v1 unlimited", []string{missing, write("v1none", "9223372036854771712\n")}, 0, false},
		{"nothing", []string{missing}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, ok := readCgroupLimit(tc.files)
			if n != tc.n || ok != tc.ok {
				t.Errorf("readCgroupLimit = %d %v, want %d %v", n, ok, tc.n, tc.ok)
			}
		})
	}
}
