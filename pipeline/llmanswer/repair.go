package llmanswer

import "github.com/kaptinlin/jsonrepair"

// libraryRepair runs the repair library on a block the lexer could not
// rewrite into JSON. A panic in the library is a failed repair, not a
// failed request.
func libraryRepair(block string) (out string, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = "", false
		}
	}()
	out, err := jsonrepair.Repair(block)
	return out, err == nil
}
