package endpoint

import "fmt"

// Role is what a request asks of an endpoint. Each role an endpoint serves
// has its own limits and live state.
type Role uint8

const (
	// RoleRead serves every read method (getBalance, simulateTransaction, ...).
	RoleRead Role = iota
	// RoleSend serves methods that change the cluster: sendTransaction and
	// requestAirdrop.
	RoleSend
)

// Roles lists every role, in a stable order.
var Roles = [...]Role{RoleRead, RoleSend}

// String returns the role's configuration name: "read" or "send".
func (r Role) String() string {
	switch r {
	case RoleRead:
		return "read"
	case RoleSend:
		return "send"
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}

// ParseRole maps a configuration name ("read", "send") to its Role.
func ParseRole(s string) (Role, error) {
	switch s {
	case "read":
		return RoleRead, nil
	case "send":
		return RoleSend, nil
	}
	return 0, fmt.Errorf("endpoint: unknown role %q (want read or send)", s)
}
