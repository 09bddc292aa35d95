package typescript

import (
	"fmt"
	"slices"
	"testing"
)

// TestJSDeclExtents checks the spans of declarations whose headers or
// bodies a line-oriented reading gets wrong; the spans are the compiler's
// (a node's first to last line; a class or interface header to its body's
// '{'), written by hand.
func TestJSDeclExtents(t *testing.T) {
	src := `export class Hono<E extends Env = Env, S extends Schema = {}> extends Base<{
  a: 1
}> implements Router {
  get(path: string): this {
    return this
  }
  #routes: string[] = []
}

export type Handler<E = any> =
  | ((c: Context<E>) => Response)
  | string

export interface MiddlewareHandler {
  (c: Context, next: Next): Promise<void>
  new (x: string): MiddlewareHandler
  name: string
  method<T>(x: T): void
}

export const upgrade: Upgrade<
  WebSocket,
  any
> = define(async (c) => {
  return c
})

export namespace Utils {
  export function inner(): void {}
}

const template = ` + "`${path.replace(/[{]/g, (m) => `{${m}`)}`" + `
export function after() {
  return </div>
}
`
	f := readJS("src/hono.tsx", []byte(src), nil)
	var got []string
	for _, d := range f.Decls {
		end := d.To
		if d.HeadTo > 0 && d.Kind != "enum" {
			end = d.HeadTo
		}
		got = append(got, fmt.Sprintf("%s %s.%s %d-%d", d.Kind, d.Container, d.Name, d.From, end))
	}
	want := []string{
		"class .Hono 1-3",
		"method Hono.get 4-6",
		"field Hono.#routes 7-7",
		"type .Handler 10-12",
		"interface .MiddlewareHandler 14-14",
		"field MiddlewareHandler.name 17-17",
		"method MiddlewareHandler.method 18-18",
		"variable .upgrade 21-26",
		"namespace .Utils 28-30",
		"function Utils.inner 29-29",
		"variable .template 32-32",
		"function .after 33-35",
	}
	if !slices.Equal(got, want) {
		t.Errorf("declarations:\n got %q\nwant %q", got, want)
	}
	if !slices.Equal(f.Types.Supers["Hono"], []string{"Base", "Router"}) {
		t.Errorf("supertypes of Hono = %v, want [Base Router]", f.Types.Supers["Hono"])
	}
	// get(): this returns a Hono.
	if got := f.Types.TypesOf("Hono.get()"); !slices.Equal(got, []string{"Hono"}) {
		t.Errorf("typesOf(Hono.get()) = %v, want [Hono]", got)
	}
}
