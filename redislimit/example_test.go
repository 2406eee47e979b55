package redislimit_test

import (
	"context"
	"fmt"
	"log"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/redislimit"
)

// A pool whose buckets every replica shares through one Redis. (A
// document does the same with a [limits] table: solroute.Open builds the
// limiter and closes it with the client.)
func Example() {
	s := redislimit.DefaultSettings()
	s.Backend = redislimit.BackendRedis
	s.URL = endpoint.NewSecret("redis://:password@redis.internal:6379/0")
	s.Replicas = 10 // while Redis is down, each replica runs at a tenth
	l, err := redislimit.New(context.Background(), s, redislimit.Options{})
	if err != nil {
		log.Fatal(err) // credentials or database refused; quotes nothing of the URL
	}
	defer l.Close() // after the pool's last call

	specs := []endpoint.Spec{{Name: "provider-a", URL: endpoint.NewSecret("https://rpc.provider-a.example/?api-key=KEY"),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {RequestsPerSecond: 50}}}}
	p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{NewBucket: l.NewBucket})
	if err != nil {
		log.Fatal(err)
	}
	_ = p // Acquire as usual: 50 requests/s for provider-a across all ten replicas
}

// Settings.Validate names the key at fault and never quotes the URL,
// which may hold a password.
func ExampleSettings_Validate() {
	s := redislimit.Settings{Backend: redislimit.BackendRedis, URL: endpoint.NewSecret("https://:hunter2@redis.internal/0"), Replicas: 3}
	fmt.Println(s.Validate())
	fmt.Println(s)
	// Output:
	// endpoint: url: must start with redis://, rediss:// or unix://
	// {redis [redacted]  3 false}
}
