package n8n

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestForwarder: the delivery arrives with the given headers and the
// relay's header auth; a redirect is an error and is not followed (the
// token would go to another host); an error status is an error.
func TestForwarder(t *testing.T) {
	var got http.Header
	var followed bool
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhook/prscout", func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() })
	mux.HandleFunc("POST /moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/webhook/prscout", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("POST /down", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/webhook/prscout" && got != nil {
			followed = true
		}
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()
	f := &Forwarder{Header: "X-Prscout-Token", Token: "secret", HTTPClient: srv.Client()}
	h := http.Header{}
	h.Set("X-Event-Key", "pullrequest:created")
	ctx := context.Background()
	if code, err := f.Forward(ctx, srv.URL+"/webhook/prscout", h, []byte(`{}`)); err != nil || code != http.StatusOK {
		t.Fatalf("forward: %d, %v", code, err)
	}
	if got.Get("X-Prscout-Token") != "secret" || got.Get("X-Event-Key") != "pullrequest:created" || got.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", got)
	}
	code, err := f.Forward(ctx, srv.URL+"/moved", h, []byte(`{}`))
	if code != http.StatusTemporaryRedirect || err == nil || !strings.Contains(err.Error(), "redirects are not followed") || followed {
		t.Fatalf("redirect: %d, %v (followed %v)", code, err, followed)
	}
	if code, err := f.Forward(ctx, srv.URL+"/down", h, []byte(`{}`)); code != http.StatusServiceUnavailable || err == nil {
		t.Fatalf("error status: %d, %v", code, err)
	}
}
