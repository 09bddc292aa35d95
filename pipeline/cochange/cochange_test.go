package cochange

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// history is a linear first-parent history, oldest first.
type history []Commit

// reader streams the history from the commit asked back to the root,
// newest first, counting the commits it hands out.
func (h history) reader(read *int) Reader {
	return func(from string, add func(Commit) bool) error {
		at := slices.IndexFunc(h, func(c Commit) bool { return c.ID == from })
		if at < 0 {
			return fmt.Errorf("no commit %s", from)
		}
		for i := at; i >= 0; i-- {
			*read++
			if !add(h[i]) {
				return nil
			}
		}
		return nil
	}
}

// build is the window of h as of index at, read from the whole history.
func build(h history, at int, b Bounds) *Window {
	bl := NewBuilder(b, nil)
	var n int
	_ = h.reader(&n)(h[at].ID, bl.Add)
	return bl.Window()
}

func commit(id string, t int64, paths ...string) Commit { return Commit{ID: id, Time: t, Paths: paths} }

func TestCoChangedSupportAndConfidence(t *testing.T) {
	day := int64(24 * 3600)
	h := history{
		commit("c1", 1*day, "a.go", "b.go", "c.go"),
		commit("c2", 2*day, "a.go", "b.go"),
		commit("c3", 3*day, "a.go", "c.go"),
		commit("c4", 4*day, "a.go", "b.go", "d.go"),
		commit("c5", 5*day, "d.go", "e.go"),
		commit("c6", 6*day, "d.go", "e.go"),
	}
	w := build(h, len(h)-1, DefaultBounds)
	tests := []struct {
		name  string
		paths []string
		want  []string // "path>with together/touching"
	}{
		{"support and confidence", []string{"a.go"}, []string{"a.go>b.go 3/4", "a.go>c.go 2/4"}},
		{"once is not enough", []string{"b.go"}, []string{"b.go>a.go 3/3"}},
		{"asked paths are not answered", []string{"a.go", "b.go"}, []string{"a.go>c.go 2/4"}},
		{"each asked path counts its own commits", []string{"e.go", "c.go"}, []string{"c.go>a.go 2/2", "e.go>d.go 2/2"}},
		{"unknown path", []string{"z.go"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range w.CoChanged(tt.paths) {
				got = append(got, fmt.Sprintf("%s>%s %d/%d", p.Path, p.With, p.Together, p.Touching))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CoChanged(%v) = %v, want %v", tt.paths, got, tt.want)
			}
		})
	}
	if c := (Pair{Together: 3, Touching: 4}).Confidence(); c != 0.75 {
		t.Errorf("confidence 3/4 = %v", c)
	}
	if c := (Pair{Together: 2, Touching: 2}).Shrunk(); c < 0.66 || c > 0.67 {
		t.Errorf("shrunk confidence 2/2 = %v, want 2/3", c)
	}
	if c := (Pair{Together: 7, Touching: 9}).Shrunk(); c != 0.7 {
		t.Errorf("shrunk confidence 7/9 = %v, want 0.7", c)
	}
}

func TestBounds(t *testing.T) {
	day := int64(24 * 3600)
	var big []string
	for i := range 6 {
		big = append(big, fmt.Sprintf("f%d.go", i))
	}
	h := history{
		commit("old", 1*day, "a.go", "b.go"),
		commit("old2", 2*day, "a.go", "b.go"),
		commit("c1", 100*day, "a.go", "c.go"),
		commit("big1", 101*day, append([]string{"a.go", "d.go"}, big...)...),
		commit("big2", 102*day, append([]string{"a.go", "d.go"}, big...)...),
		commit("c2", 103*day, "a.go", "c.go"),
	}
	b := Bounds{MaxCommits: 10, MaxAge: 50 * 24 * time.Hour, MaxFiles: 5}
	tests := []struct {
		name     string
		bounds   Bounds
		wantLen  int
		wantWith string // the pairs of a.go
	}{
		{"commits older than MaxAge are out, big commits tie nothing", b, 4, "c.go 2/2"},
		{"MaxCommits keeps the newest", Bounds{MaxCommits: 3, MaxAge: b.MaxAge, MaxFiles: 5}, 3, ""},
		{"no age bound reads the old commits, big commits count", Bounds{MaxCommits: 10, MaxAge: 1000 * 24 * time.Hour, MaxFiles: 5}, 6, "b.go 2/4 c.go 2/4"},
		{"a larger MaxFiles lets them tie", Bounds{MaxCommits: 10, MaxAge: b.MaxAge, MaxFiles: 8}, 4, "d.go 2/4 f0.go 2/4 f1.go 2/4 f2.go 2/4 f3.go 2/4 f4.go 2/4 f5.go 2/4 c.go 2/4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := build(h, len(h)-1, tt.bounds)
			if w.Len() != tt.wantLen {
				t.Errorf("Len = %d, want %d", w.Len(), tt.wantLen)
			}
			var got []string
			for _, p := range w.CoChanged([]string{"a.go"}) {
				got = append(got, fmt.Sprintf("%s %d/%d", p.With, p.Together, p.Touching))
			}
			// Ties of confidence and support sort by path.
			if g := strings.Join(got, " "); g != sortedWith(tt.wantWith) {
				t.Errorf("a.go's pairs = %q, want %q", g, sortedWith(tt.wantWith))
			}
		})
	}
}

// sortedWith orders "p n/m" items as CoChanged does when their counts tie.
func sortedWith(s string) string {
	f := strings.Fields(s)
	type item struct{ p, c string }
	var items []item
	for i := 0; i+1 < len(f); i += 2 {
		items = append(items, item{f[i], f[i+1]})
	}
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			if items[j].c == items[i].c && items[j].p < items[i].p {
				items[i], items[j] = items[j], items[i]
			}
		}
	}
	var out []string
	for _, it := range items {
		out = append(out, it.p+" "+it.c)
	}
	return strings.Join(out, " ")
}

// randomHistory is n commits over a few files, times mostly rising with
// some clock skew.
func randomHistory(r *rand.Rand, n int) history {
	h := make(history, n)
	t := int64(1_600_000_000)
	for i := range h {
		t += int64(r.IntN(3*24*3600)) - 6*3600
		k := 1 + r.IntN(4)
		if r.IntN(20) == 0 {
			k = 12 // over MaxFiles below
		}
		var paths []string
		for range k {
			paths = append(paths, fmt.Sprintf("p%d.go", r.IntN(15)))
		}
		h[i] = commit(fmt.Sprintf("c%04d", i), t, paths...)
	}
	return h
}

// TestIncrementalEqualsFull builds windows of later commits through a
// cache holding earlier ones and checks each equals the window built from
// the whole history, reading fewer commits when a kept window serves.
func TestIncrementalEqualsFull(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	boundsSet := []Bounds{
		{MaxCommits: 40, MaxAge: 1000 * 24 * time.Hour, MaxFiles: 8}, // count-bound
		{MaxCommits: 1000, MaxAge: 30 * 24 * time.Hour, MaxFiles: 8}, // age-bound
		{MaxCommits: 25, MaxAge: 40 * 24 * time.Hour, MaxFiles: 8},   // both
		{MaxCommits: 1000, MaxAge: 10000 * 24 * time.Hour, MaxFiles: 8},
	}
	joined := 0
	for bi, b := range boundsSet {
		for trial := range 20 {
			h := randomHistory(r, 120)
			c := NewCache(4, b)
			at := r.IntN(20)
			for at < len(h) {
				var read int
				w, err := c.Window("repo", h[at].ID, h.reader(&read))
				if err != nil {
					t.Fatal(err)
				}
				want := build(h, at, b)
				sameWindow(t, fmt.Sprintf("bounds %d trial %d at %d: incremental window", bi, trial, at), w, want)
				if !reflect.DeepEqual(w.CoChanged([]string{"p1.go", "p2.go"}), want.CoChanged([]string{"p1.go", "p2.go"})) {
					t.Fatalf("bounds %d trial %d at %d: pairs differ", bi, trial, at)
				}
				if read < want.Len() {
					joined++
				}
				at += 1 + r.IntN(6)
			}
		}
	}
	if joined == 0 {
		t.Error("no window was built from a kept one")
	}
}

func TestCacheReadsOnlyNewCommits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := randomHistory(r, 300)
	b := Bounds{MaxCommits: 2000, MaxAge: 100000 * 24 * time.Hour, MaxFiles: 50}
	c := NewCache(2, b)
	var read int
	if _, err := c.Window("repo", h[200].ID, h.reader(&read)); err != nil {
		t.Fatal(err)
	}
	if read != 201 {
		t.Fatalf("first window read %d commits, want 201", read)
	}
	read = 0
	w, err := c.Window("repo", h[210].ID, h.reader(&read))
	if err != nil {
		t.Fatal(err)
	}
	if read != 11 || w.Len() != 211 {
		t.Errorf("a later head read %d commits (want the 10 new ones and the kept head: 11) for %d (want 211)", read, w.Len())
	}
	read = 0
	if _, err := c.Window("repo", h[210].ID, h.reader(&read)); err != nil || read != 0 {
		t.Errorf("a kept head read %d commits (%v), want 0", read, err)
	}
	read = 0
	if _, err := c.Window("other", h[210].ID, h.reader(&read)); err != nil || read != 211 {
		t.Errorf("another repository read %d commits (%v), want 211: windows are per repository", read, err)
	}
}

// A window of an older commit that a kept window holds takes the kept
// commits as they are and reads only what lies past the kept window's end,
// starting at its last commit; it equals the window read whole.
func TestOlderHeadReadsPastTheKeptEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	h := randomHistory(r, 300)
	b := Bounds{MaxCommits: 100, MaxAge: 100000 * 24 * time.Hour, MaxFiles: 50}
	c := NewCache(4, b)
	var read int
	var froms []string
	reader := func(from string, add func(Commit) bool) error {
		froms = append(froms, from)
		return h.reader(&read)(from, add)
	}
	if _, err := c.Window("repo", h[250].ID, reader); err != nil || read != 101 {
		t.Fatalf("first window read %d commits (%v), want 101 (the one past the bound ends it)", read, err)
	}
	read, froms = 0, nil
	w, err := c.Window("repo", h[200].ID, reader)
	if err != nil {
		t.Fatal(err)
	}
	// Kept: 200..151 (50 commits); read: 151 again (the start), 150..101, and 100 which ends it.
	if read != 52 || len(froms) != 1 || froms[0] != h[151].ID {
		t.Errorf("an older head read %d commits from %v, want 52 from %s", read, froms, h[151].ID)
	}
	if want := build(h, 200, b); !reflect.DeepEqual(w.commits, want.commits) || w.end != want.end {
		t.Errorf("the resumed window (%d commits, end %d) differs from the full one (%d, end %d)", w.Len(), w.end, want.Len(), want.end)
	}
	// A history that ended at its root: an older head inside it reads nothing.
	c = NewCache(4, Bounds{MaxCommits: 1000, MaxAge: b.MaxAge, MaxFiles: 50})
	if _, err := c.Window("repo", h[299].ID, reader); err != nil {
		t.Fatal(err)
	}
	read = 0
	if w, err := c.Window("repo", h[120].ID, reader); err != nil || read != 0 || w.Len() != 121 {
		t.Errorf("an older head of a history read to its root read %d commits (%v), window of %d (want 0 and 121)", read, err, w.Len())
	}
}

// Windows asked in any order (older and newer heads mixed) equal the
// windows read whole.
func TestAnyOrderEqualsFull(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	boundsSet := []Bounds{
		{MaxCommits: 40, MaxAge: 1000 * 24 * time.Hour, MaxFiles: 8},
		{MaxCommits: 1000, MaxAge: 30 * 24 * time.Hour, MaxFiles: 8},
		{MaxCommits: 25, MaxAge: 40 * 24 * time.Hour, MaxFiles: 8},
		{MaxCommits: 1000, MaxAge: 10000 * 24 * time.Hour, MaxFiles: 8},
	}
	saved := 0
	for bi, b := range boundsSet {
		for trial := range 20 {
			h := randomHistory(r, 120)
			c := NewCache(3, b)
			for range 12 {
				at := r.IntN(len(h))
				var read int
				w, err := c.Window("repo", h[at].ID, h.reader(&read))
				if err != nil {
					t.Fatal(err)
				}
				want := build(h, at, b)
				sameWindow(t, fmt.Sprintf("bounds %d trial %d at %d: window", bi, trial, at), w, want)
				if read < want.Len() {
					saved++
				}
			}
		}
	}
	if saved == 0 {
		t.Error("no window was built from a kept one")
	}
}

func TestReadLog(t *testing.T) {
	out := "\x1eaaa 100\n\na.go\n\"sp\\303\\251cial\\tname.go\"\n\x1ebbb 90\n\n\x1eccc 80\n\nb.go\nc.go\n"
	var got []Commit
	if err := ReadLog(strings.NewReader(out), func(c Commit) bool { got = append(got, c); return true }); err != nil {
		t.Fatal(err)
	}
	want := []Commit{
		{ID: "aaa", Time: 100, Paths: []string{"a.go", "spécial\tname.go"}},
		{ID: "bbb", Time: 90},
		{ID: "ccc", Time: 80, Paths: []string{"b.go", "c.go"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadLog = %+v, want %+v", got, want)
	}
	got = nil
	if err := ReadLog(strings.NewReader(out), func(c Commit) bool { got = append(got, c); return len(got) < 2 }); err != nil || len(got) != 2 {
		t.Errorf("stopping after 2: %d commits, %v", len(got), err)
	}
	for _, bad := range []string{"a.go\n", "\x1eaaa\n", "\x1eaaa notatime\n"} {
		if err := ReadLog(strings.NewReader(bad), func(Commit) bool { return true }); err == nil {
			t.Errorf("ReadLog(%q) did not fail", bad)
		}
	}
}

// Two requests for the same window at once read the history once: the
// second joins the first's read, or finds its window kept.
func TestCacheSharesAReadInFlight(t *testing.T) {
	c := NewCache(4, DefaultBounds)
	var reads atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	read := func(_ string, add func(Commit) bool) error {
		if reads.Add(1) == 1 {
			close(started)
			<-release
		}
		add(commit("h", 1000, "a.go", "b.go"))
		return nil
	}
	first := make(chan error, 1)
	go func() { _, err := c.Window("repo", "h", read); first <- err }()
	<-started
	second := make(chan error, 1)
	go func() { _, err := c.Window("repo", "h", read); second <- err }()
	// A second read of its own returns at once; a joined one waits for the
	// first, which is released after a moment either way.
	select {
	case err := <-second:
		second <- err
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	for _, ch := range []chan error{first, second} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("the history was read %d times for one window asked twice at once, want 1", n)
	}
}

// sameWindow fails the test when w, named what, differs from the window
// want read whole: its commits, where it ends and where it goes on.
func sameWindow(t *testing.T, what string, w, want *Window) {
	t.Helper()
	if !reflect.DeepEqual(w.commits, want.commits) || w.end != want.end || w.next != want.next {
		t.Fatalf("%s (%d commits, end %d) differs from the full one (%d commits, end %d)", what, w.Len(), w.end, want.Len(), want.end)
	}
}
