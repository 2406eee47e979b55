package endpoint_test

import (
	"fmt"

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
	// invalid setting endpoints[0].url: must use the http or https scheme
	// invalid setting endpoints[0].roles.send.burst_capacity: is set but requests_per_second is not: a burst needs a rate
}
