package endpoint_test

import (
	"fmt"
	"time"

	"github.com/solroute/solroute/endpoint"
)

func ExampleValidate() {
	err := endpoint.Validate([]endpoint.Spec{{
		Name: "primary-a",
		URL:  endpoint.NewSecret("ftp://rpc.example.com/?api-key=never-printed"),
		Roles: map[endpoint.Role]endpoint.Limits{
			endpoint.RoleSend: {BurstCapacity: 5},
		},
	}})
	fmt.Println(err)
	// Output:
	// invalid endpoint configuration:
	//   endpoints[0].url: must use the http or https scheme
	//   endpoints[0].roles.send.burst_capacity: is set but requests_per_second is not: a burst needs a rate
}

func ExampleRuntime() {
	spec := endpoint.Spec{
		Name: "primary-a",
		URL:  endpoint.NewSecret("https://rpc.example.com/"),
		Roles: map[endpoint.Role]endpoint.Limits{
			endpoint.RoleRead: {RequestsPerSecond: 10, BurstCapacity: 2, MaxConcurrentRequests: 8},
		},
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rt, _ := endpoint.NewRuntime(&spec, endpoint.RoleRead, start, endpoint.RuntimeOptions{})

	for i := range 3 {
		a, block, ok := rt.AdmitAt(start, time.Time{})
		if !ok {
			fmt.Printf("request %d: %s\n", i, block.Describe(start))
			continue
		}
		fmt.Printf("request %d: admitted\n", i)
		rt.SucceededAt(start, a.Generation)
		rt.Release()
	}
	// Output:
	// request 0: admitted
	// request 1: admitted
	// request 2: no token for 100ms
}
