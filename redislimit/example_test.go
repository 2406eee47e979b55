package redislimit_test

import (
	"context"
	"log"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/redislimit"
)

// A document's [limits] table asks for shared limits; the program builds
// the limiter from it and passes it in solroute.Hooks.Limits (the root
// package links no Redis client: only a program that imports redislimit
// does).
func Example() {
	doc, err := config.Load("rpc.toml") // [limits] backend = "redis", url, replicas = 10
	if err != nil {
		log.Fatal(err)
	}
	var hooks solroute.Hooks
	if doc.Limits.Backend == config.BackendRedis {
		lim, err := redislimit.New(context.Background(), doc.Limits, redislimit.Options{})
		if err != nil {
			log.Fatal(err) // credentials or database refused; quotes nothing of the URL
		}
		defer lim.Close() // after the client's
		hooks.Limits = lim
	}
	c, err := solroute.FromDocument(doc, hooks)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	_ = c // every endpoint's rate is now one quota across all ten replicas
}

// In plain Go: start from config.DefaultLimits, so that the keys are
// those of the replicas configured by a document.
func ExampleNew() {
	s := config.DefaultLimits()
	s.Backend = config.BackendRedis
	s.URL = endpoint.NewSecret("redis://:password@redis.internal:6379/0")
	s.Replicas = 10 // while Redis is down, each replica runs at a tenth
	lim, err := redislimit.New(context.Background(), s, redislimit.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer lim.Close()
	c, err := solroute.New(solroute.Options{
		Endpoints: []solroute.Endpoint{{Name: "provider-a", URL: "https://rpc.provider-a.example/?api-key=KEY",
			Read: &endpoint.Limits{RequestsPerSecond: 50}}},
		Hooks: solroute.Hooks{Limits: lim},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
}
