package workflowlint

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// credential is one credential the shipped workflows name: a user creates
// it in n8n before importing them (workflows/README.md, "Credentials").
type credential struct {
	name, typ, auth string
}

// The three credentials are of three types, so the editor can never offer
// or attach one where another belongs (it picks among a type's
// credentials), and each is named in the export with id null: the editor's
// Import from File drops a reference whose id is no credential of the
// instance it runs on and keeps one whose id is null, then links it to
// the one credential of that type and name (n8n's removeUnknownCredentials
// and matchCredentials); n8n's server, its CLI import and its public API
// resolve null ids by type and name the same way.
var (
	prscoutKey   = credential{"prscout API key", "httpBearerAuth", "genericCredentialType"}
	llmKey       = credential{"LLM API key", "openAiApi", "predefinedCredentialType"}
	webhookToken = credential{"prscout webhook token", "httpHeaderAuth", "headerAuth"}
)

// wantCredential is the credential node n must name.
func wantCredential(n node) (credential, bool) {
	url, _ := n.Parameters["url"].(string)
	switch {
	case n.Type == "n8n-nodes-base.webhook":
		return webhookToken, true
	case n.Type != "n8n-nodes-base.httpRequest":
		return credential{}, false
	case strings.HasSuffix(url, "/chat/completions"):
		return llmKey, true
	}
	return prscoutKey, true
}

// checkCredential says what is wrong with n's credential, or "".
func checkCredential(n node) string {
	want, ok := wantCredential(n)
	if !ok {
		return ""
	}
	p := n.Parameters
	switch want.auth {
	case "genericCredentialType":
		if p["authentication"] != want.auth || p["genericAuthType"] != want.typ {
			return fmt.Sprintf("authentication must be %s / %s", want.auth, want.typ)
		}
	case "predefinedCredentialType":
		if p["authentication"] != want.auth || p["nodeCredentialType"] != want.typ {
			return fmt.Sprintf("authentication must be %s / %s", want.auth, want.typ)
		}
	default:
		if p["authentication"] != want.auth {
			return fmt.Sprintf("authentication must be %s", want.auth)
		}
	}
	if len(n.Credentials) != 1 {
		return fmt.Sprintf("names %d credentials, want one %s %q", len(n.Credentials), want.typ, want.name)
	}
	c, ok := n.Credentials[want.typ]
	switch {
	case !ok:
		return fmt.Sprintf("must name a %s credential %q", want.typ, want.name)
	case c.Name != want.name:
		return fmt.Sprintf("credential %q, want %q", c.Name, want.name)
	case c.ID != nil:
		return fmt.Sprintf("credential %q has id %q: the editor's Import from File drops a reference whose id is not on the instance; ship id null", c.Name, *c.ID)
	}
	return ""
}

// TestCredentialTypesApart: no two of the credentials share a type.
func TestCredentialTypesApart(t *testing.T) {
	seen := map[string]string{}
	for _, c := range []credential{prscoutKey, llmKey, webhookToken} {
		if prev, ok := seen[c.typ]; ok {
			t.Errorf("%q and %q are both %s: n8n cannot tell them apart", prev, c.name, c.typ)
		}
		seen[c.typ] = c.name
	}
}

// TestCredentialRule: the rule refuses a reference the editor would drop
// and a credential of the wrong type.
func TestCredentialRule(t *testing.T) {
	id := "abc123"
	mk := func(typ, name string, id *string) node {
		n := node{Type: "n8n-nodes-base.httpRequest", Parameters: map[string]any{"url": "={{ $json.prscoutUrl }}/v1/context",
			"authentication": "genericCredentialType", "genericAuthType": typ}}
		n.Credentials = map[string]struct {
			ID   *string `json:"id"`
			Name string  `json:"name"`
		}{typ: {id, name}}
		return n
	}
	if why := checkCredential(mk("httpBearerAuth", "prscout API key", nil)); why != "" {
		t.Errorf("the shipped form refused: %s", why)
	}
	for _, n := range []node{mk("httpBearerAuth", "prscout API key", &id), mk("httpHeaderAuth", "prscout API key", nil), mk("httpBearerAuth", "LLM API key", nil)} {
		if checkCredential(n) == "" {
			t.Errorf("accepted %+v", n)
		}
	}
}

// TestReadmeCredentials: workflows/README.md has the credentials created
// before the import, and its table names each credential with its type as
// the workflows do.
func TestReadmeCredentials(t *testing.T) {
	b, err := os.ReadFile("../../../workflows/README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	create, imp := strings.Index(doc, "## Credentials"), strings.Index(doc, "## Import")
	if create < 0 || imp < 0 || create > imp {
		t.Errorf("workflows/README.md: the Credentials section (%d) must come before Import (%d)", create, imp)
	}
	for _, c := range []credential{prscoutKey, llmKey, webhookToken} {
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(c.name) + "` \\|[^\\n]*`" + c.typ + "`")
		if !row.MatchString(doc) {
			t.Errorf("workflows/README.md: no credentials table row for `%s` naming its type `%s`", c.name, c.typ)
		}
	}
}
