// Package serve runs an e2e fake's HTTP server: it listens, writes where it
// listens to a file the script waits for, and serves until SIGINT or
// SIGTERM, then shuts down within 2 s.
package serve

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Run listens on addr, writes prefix + the bound address to addrFile (when
// set), and serves h until a stop signal; it exits the process on error.
func Run(name, addr, addrFile, prefix string, h http.Handler) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	bound := prefix + ln.Addr().String()
	if addrFile != "" {
		if err := os.WriteFile(addrFile, []byte(bound), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("%s listening on %s", name, bound)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
