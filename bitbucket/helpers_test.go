package bitbucket

import (
	"sync"
	"testing"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline"
)

var acme = pipeline.Repo{Workspace: "acme", RepoSlug: "uploader"}

const (
	headFull = "668218c13e04a1b2c3d4e5f60718293a4b5c6d7e"
	baseFull = "6c5f0bc9b2aa0f1e2d3c4b5a69788796a5b4c3d2"
	rootFull = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
	lastFull = "9ff1731e2b4c5d6e7f8091a2b3c4d5e6f7081920"
)

// attempt is one Observer.UpstreamCall.
type attempt struct {
	Op     string
	Status int
	Retry  bool
}

type recorder struct {
	mu       sync.Mutex
	attempts []attempt
	limits   []int
	rates    []rateReport
}

// rateReport is one Observer.RateLimit.
type rateReport struct {
	Op, Resource     string
	Limit, Remaining int
	Near             bool
}

func (r *recorder) UpstreamCall(op string, status int, _ time.Duration, retry bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts = append(r.attempts, attempt{op, status, retry})
}

func (r *recorder) RateLimit(op, resource string, limit, remaining int, near bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limits = append(r.limits, limit)
	r.rates = append(r.rates, rateReport{op, resource, limit, remaining, near})
}

func (r *recorder) got() []attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]attempt(nil), r.attempts...)
}

// newFake starts a fake with one repository: root <- base <- head and
// root <- last, a pull request #42 head -> base, files at head.
func newFake(t *testing.T) *bitbuckettest.Server {
	t.Helper()
	s := bitbuckettest.NewServer()
	t.Cleanup(s.Close)
	s.AddCommit("acme", "uploader", rootFull)
	s.AddCommit("acme", "uploader", baseFull, rootFull)
	s.AddCommit("acme", "uploader", headFull, baseFull)
	s.AddCommit("acme", "uploader", lastFull, headFull)
	s.SetBranch("acme", "uploader", "main", baseFull)
	s.AddPullRequest("acme", "uploader", bitbuckettest.PullRequest{
		ID: 42, Title: "PROJ-123: Retry uploads on 5xx", Description: "Adds bounded retries.",
		Author: "Mina Park", SourceBranch: "feature/PROJ-123-retries", DestinationBranch: "main",
		SourceCommit: headFull, DestinationCommit: baseFull,
	})
	return s
}

// newClient builds a Client against s with fast retries.
func newClient(t *testing.T, s *bitbuckettest.Server, mod func(*Config)) (*Client, *recorder) {
	t.Helper()
	rec := &recorder{}
	cfg := Config{
		BaseURL: s.BaseURL, Email: "bot@acme.example", Token: "api-token",
		Timeout: 5 * time.Second, MaxRetryWait: 3 * time.Second, RetryBaseWait: time.Millisecond,
		HTTPClient: s.Client(), Observer: rec,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, rec
}
