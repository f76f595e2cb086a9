// Command s3-test-server serves an S3-compatible API for graphmem's tests: gofakes3 over a
// directory, bound to a loopback address. It is a test fixture, not a production store.
//
//	s3-test-server -addr 127.0.0.1:49300 -dir DIR -bucket graphmem-test -access-key KEY
//
// Buckets live under DIR/buckets, their metadata under DIR/metadata. gofakes3 does not check
// request signatures; this server at least refuses a request that is unsigned or signed with
// another access key (403 AccessDenied), so a client that lost its credentials fails here too.
// gofakes3 writes an error's status before its Content-Type, so Go labels the XML body
// text/xml; S3 says application/xml, and clients that check (minio-py) need it: errorsAsXML
// sets it. It prints READY once it listens, and stops on SIGTERM or SIGINT.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3afero"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:49300", "address to listen on (loopback only)")
	dir := flag.String("dir", "", "directory that holds the buckets (created if missing)")
	bucket := flag.String("bucket", "graphmem-test", "bucket created at start if missing")
	accessKey := flag.String("access-key", "", "the only access key accepted (empty: any)")
	flag.Parse()

	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %q: a test server listens on a loopback address only", *addr)
	}
	if *dir == "" {
		return errors.New("-dir is required")
	}
	base, err := s3afero.FsPath(*dir, s3afero.FsPathCreateAll)
	if err != nil {
		return fmt.Errorf("-dir %q: %w", *dir, err)
	}
	backend, err := s3afero.MultiBucket(base)
	if err != nil {
		return err
	}
	if *bucket != "" {
		if err := backend.CreateBucket(*bucket); err != nil && !gofakes3.IsAlreadyExists(err) {
			return fmt.Errorf("bucket %q: %w", *bucket, err)
		}
	}
	faker := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog()))
	listener, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	server := &http.Server{
		Handler:           errorsAsXML(signedBy(*accessKey, faker.Server())),
		ReadHeaderTimeout: 10 * time.Second,
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = server.Shutdown(ctx)
	}()
	fmt.Printf("READY s3://%s on http://%s (dir %s)\n", *bucket, listener.Addr(), *dir)
	if err := server.Serve(listener); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// signedBy refuses requests whose SigV4 Authorization header (or presigned query) does not
// name accessKey. It does not verify the signature itself.
func signedBy(accessKey string, next http.Handler) http.Handler {
	if accessKey == "" {
		return next
	}
	want := "Credential=" + accessKey + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		query := r.URL.Query().Get("X-Amz-Credential")
		if !strings.Contains(auth, want) && !strings.HasPrefix(query, accessKey+"/") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>`+
				`<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// errorsAsXML labels an error response without a Content-Type as application/xml, as S3 does.
func errorsAsXML(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(xmlErrorWriter{w}, r)
	})
}

type xmlErrorWriter struct{ http.ResponseWriter }

func (w xmlErrorWriter) WriteHeader(status int) {
	if status >= 400 && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/xml")
	}
	w.ResponseWriter.WriteHeader(status)
}
