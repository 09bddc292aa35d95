package bitbucket

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

func TestVerifySignature(t *testing.T) {
	secret := []byte("s3cret")
	body := []byte(`{"pullrequest":{"id":42}}`)
	good := Sign(secret, body)
	tests := []struct {
		name   string
		secret []byte
		header string
		want   error
	}{
		{"valid", secret, good, nil},
		{"valid uppercase hex", secret, "sha256=" + strings.ToUpper(strings.TrimPrefix(good, "sha256=")), nil},
		{"missing", secret, "", ErrSignatureMissing},
		{"no algorithm", secret, strings.TrimPrefix(good, "sha256="), errSignatureMalformed},
		{"sha1", secret, "sha1=" + strings.TrimPrefix(good, "sha256="), errSignatureMalformed},
		{"not hex", secret, "sha256=zz", errSignatureMalformed},
		{"short", secret, good[:len(good)-2], errSignatureMalformed},
		{"mismatch", secret, Sign([]byte("other"), body), ErrSignatureMismatch},
		{"no secret configured", nil, good, errNoSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifySignature(tt.secret, body, tt.header)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("VerifySignature = %v, want %v", err, tt.want)
			}
		})
	}
	if err := VerifySignature(secret, append(body, ' '), good); !errors.Is(err, ErrSignatureMismatch) {
		t.Fatalf("changed body: %v", err)
	}
}

// TestParseWebhookGolden parses every testdata/webhook_*.json with the event
// key in its name and compares with the golden file (-update rewrites).
func TestParseWebhookGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/webhook_*.json")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		n++
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "webhook_"), ".json")
		key := strings.Replace(name, "_", ":", 1) // pullrequest_created -> pullrequest:created
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := ParseWebhook(key, body)
			var got []byte
			if err != nil {
				got, _ = json.MarshalIndent(map[string]string{"error": err.Error()}, "", "  ")
			} else {
				got, _ = json.MarshalIndent(ev, "", "  ")
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(f, ".json") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if string(got) != string(want) {
				t.Fatalf("ParseWebhook(%s) =\n%s\nwant\n%s", key, got, want)
			}
		})
	}
	if n < 3 {
		t.Fatalf("only %d webhook fixtures", n)
	}
}

func TestParseWebhookErrors(t *testing.T) {
	body, err := os.ReadFile("testdata/webhook_pullrequest_created.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseWebhook("repo:push", body); !errors.Is(err, errUnsupportedEvent) {
		t.Fatalf("repo:push err = %v", err)
	}
	tests := []struct {
		name, body, field string
	}{
		{"not json", `{`, "body"},
		{"no repository", `{"pullrequest":{"id":1}}`, "repository.full_name"},
		{"bad full name", `{"pullrequest":{"id":1},"repository":{"full_name":"acme"}}`, "repository.full_name"},
		{"no pull request", `{"repository":{"full_name":"acme/uploader"}}`, "pullrequest.id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseWebhook(EventPullRequestUpdated, []byte(tt.body))
			var ie *pipeline.InvalidError
			if !errors.As(err, &ie) || ie.Field != tt.field {
				t.Fatalf("err = %v, want invalid %s", err, tt.field)
			}
		})
	}
}

func FuzzParseWebhook(f *testing.F) {
	for _, name := range []string{"created", "updated", "comment_created"} {
		b, err := os.ReadFile("testdata/webhook_pullrequest_" + name + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(EventPullRequestCreated, b)
	}
	f.Add(EventPullRequestUpdated, []byte(`{"pullrequest":{"id":1},"repository":{"full_name":"a/b"}}`))
	f.Fuzz(func(t *testing.T, key string, body []byte) {
		ev, err := ParseWebhook(key, body)
		if err != nil {
			return
		}
		if ev.PR.ID <= 0 || checkRepo(ev.Repo) != nil || (ev.Key != EventPullRequestCreated && ev.Key != EventPullRequestUpdated) {
			t.Fatalf("accepted invalid event %+v", ev)
		}
	})
}

func FuzzVerifySignature(f *testing.F) {
	f.Add([]byte("k"), []byte("{}"), Sign([]byte("k"), []byte("{}")))
	f.Add([]byte("k"), []byte("{}"), "sha256=")
	f.Fuzz(func(t *testing.T, secret, body []byte, header string) {
		err := VerifySignature(secret, body, header)
		if err == nil && (len(secret) == 0 || !strings.EqualFold(strings.TrimSpace(header), Sign(secret, body))) {
			t.Fatalf("accepted header %q", header)
		}
		if len(secret) > 0 && VerifySignature(secret, body, Sign(secret, body)) != nil {
			t.Fatal("rejected its own signature")
		}
	})
}
