package bitbuckettest

import (
	"net/http"

	"github.com/prscout/prscout/internal/bbql"
)

// The fields of comments and pull requests the fake filters and sorts on.
var commentQuery, pullRequestQuery = bbql.Comments, bbql.PullRequests

// queryObjects applies the request's q and sort to objs (package bbql); a
// query it cannot run is answered 400 naming the parameter (false).
func queryObjects(w http.ResponseWriter, r *http.Request, objs []map[string]any, fields bbql.Fields) ([]any, bool) {
	objs, err := bbql.Apply(objs, r.URL.Query().Get("q"), r.URL.Query().Get("sort"), fields)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out, true
}
