package apicheck

import (
	"net/http/httptest"
	"testing"
)

const querySpec = `
openapi: 3.0.0
info: { title: t, version: "1" }
paths:
  /filtered:
    get:
      parameters:
        - { name: q, in: query, schema: { type: string } }
        - { name: sort, in: query, schema: { type: string } }
      responses: { "200": { description: ok } }
  /plain:
    parameters: [{ name: sort, in: query, schema: { type: string } }]
    get:
      responses: { "200": { description: ok } }
  /bare:
    get:
      responses: { "200": { description: ok } }
`

// TestFilteringDeclared: q and sort pass only on an operation whose
// description declares them (on the operation or its path); elsewhere they
// are a violation naming the parameter. Other undeclared parameters (paging)
// pass as before.
func TestFilteringDeclared(t *testing.T) {
	doc, err := Load([]byte(querySpec))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, query, field string
	}{
		{"/filtered", "q=a%3D%22b%22&sort=-id&pagelen=5", ""},
		{"/plain", "sort=id&pagelen=5", ""},
		{"/plain", "q=a%3D%22b%22", "q"},
		{"/bare", "sort=-created_on", "sort"},
		{"/bare", "pagelen=5&page=2", ""},
	} {
		r := httptest.NewRequest("GET", tc.path+"?"+tc.query, nil)
		v, ok := doc.CheckRequest(tc.path, r, nil, nil)
		if ok != (tc.field == "") || v.Field != tc.field {
			t.Errorf("GET %s?%s: ok %v, field %q (%s); want field %q", tc.path, tc.query, ok, v.Field, v.Text, tc.field)
		}
	}
}
