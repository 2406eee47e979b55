package redislimit

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
)

// TestNewRefusesUnknownQueryOption: the URL's query options are
// go-redis's, so New (which links go-redis; config does not) checks them,
// before it dials, naming the key and quoting nothing of the URL.
func TestNewRefusesUnknownQueryOption(t *testing.T) {
	for _, url := range []string{
		"redis://:" + marker + "@127.0.0.1:1/0?" + marker + "=1",
		"redis://:" + marker + "@127.0.0.1:1/0?pool_size=" + marker,
	} {
		s := config.DefaultLimits()
		s.Backend, s.URL = config.BackendRedis, endpoint.NewSecret(url)
		if err := s.Validate(); err != nil {
			t.Fatalf("config.Limits.Validate() = %v: the query is go-redis's to check", err)
		}
		l, err := New(context.Background(), s, Options{})
		if err == nil {
			_ = l.Close()
			t.Fatal("New accepted a query option go-redis does not know")
		}
		var p *endpoint.Problem
		if !errors.As(err, &p) || p.Path != "url" || !strings.Contains(p.Message, "query option") {
			t.Errorf("New() = %v, want a url problem about the query option", err)
		}
		if strings.Contains(err.Error(), marker) {
			t.Errorf("the error quotes the URL: %v", err)
		}
	}
}

// TestNewRefusesLocalBackend: New builds a shared limiter only; a
// [limits] table that keeps its buckets local needs none, and the error
// says what to set.
func TestNewRefusesLocalBackend(t *testing.T) {
	l, err := New(context.Background(), config.DefaultLimits(), Options{})
	if err == nil {
		_ = l.Close()
		t.Fatal("New built a limiter for local buckets")
	}
	if !strings.Contains(err.Error(), `backend = "redis"`) {
		t.Errorf("New(local) = %v: want it to say backend = \"redis\"", err)
	}
}
