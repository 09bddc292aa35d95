package webhook

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prscout/prscout/bitbucket"
)

// TestDeliverSigns: the receiver sees Bitbucket's headers and a signature
// bitbucket.VerifySignature accepts; its status, body and Retry-After come
// back.
func TestDeliverSigns(t *testing.T) {
	secret, body := []byte("s3cret"), []byte(`{"pullrequest":{"id":1}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		if err := bitbucket.VerifySignature(secret, got, r.Header.Get("X-Hub-Signature")); err != nil || r.Header.Get("X-Event-Key") != "pullrequest:created" ||
			r.Header.Get("X-Request-UUID") == "" {
			http.Error(w, "bad delivery", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, "busy")
	}))
	defer srv.Close()
	a, err := Deliver(context.Background(), srv.URL, "pullrequest:created", secret, body)
	if err != nil || a.Status != http.StatusTooManyRequests || a.Body != "busy" || a.RetryAfter != "2" {
		t.Fatalf("Deliver = %+v, %v", a, err)
	}
	if a, _ := Deliver(context.Background(), srv.URL, "pullrequest:created", []byte("wrong"), body); a.Status != http.StatusUnauthorized {
		t.Errorf("a wrong secret was accepted: %+v", a)
	}
}
