package gcpolicy

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
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
			got := Decide(func(k string) string { return tc.env[k] }, tc.cgroup)
			if got.percent != tc.percent || got.limit != tc.limit {
				t.Errorf("gcPolicy = percent %d limit %d, want %d %d (%s)", got.percent, got.limit, tc.percent, tc.limit, got.Says)
			}
			if got.Says == "" {
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
			n, ok := ReadCgroupLimit(tc.files)
			if n != tc.n || ok != tc.ok {
				t.Errorf("ReadCgroupLimit = %d %v, want %d %v", n, ok, tc.n, tc.ok)
			}
		})
	}
}

// TestIdleReleaseOncePerSpell: memory is given back once after a counted
// request and the idle time, never while a request runs, not for probes
// and scrapes, and not again until another request ends.
func TestIdleReleaseOncePerSpell(t *testing.T) {
	frees := 0
	r := &IdleRelease{After: time.Minute, Free: func() { frees++ }, Quiet: func(p string) bool { return p == "/metrics" || p == "/healthz" }}
	block := make(chan struct{})
	started := make(chan struct{}, 1)
	h := r.Wrap(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/v1/context" {
			started <- struct{}{}
			<-block
		}
	}))
	serveOne := func(path string) {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}
	far := func() time.Time { return time.Unix(0, r.last.Load()).Add(2 * time.Minute) }

	serveOne("/metrics")
	if r.check(time.Now().Add(time.Hour)) {
		t.Fatal("released after a scrape alone")
	}
	done := make(chan struct{})
	go func() { serveOne("/v1/context"); close(done) }()
	<-started
	if r.check(time.Now().Add(time.Hour)) {
		t.Fatal("released while a request was in flight")
	}
	close(block)
	<-done
	if r.check(time.Unix(0, r.last.Load()).Add(30 * time.Second)) {
		t.Fatal("released before the idle time passed")
	}
	if !r.check(far()) || frees != 1 {
		t.Fatalf("not released once after the idle time: %d frees", frees)
	}
	serveOne("/healthz")
	if r.check(far()) || frees != 1 {
		t.Fatalf("released again without a new request: %d frees", frees)
	}
	serveOne("/v1/review")
	if !r.check(far()) || frees != 2 {
		t.Fatalf("not released after the next request: %d frees", frees)
	}
}
