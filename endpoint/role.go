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

// AllRoles returns every role, in a stable order (a new slice each call).
func AllRoles() []Role { return []Role{RoleRead, RoleSend} }

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

// MarshalText encodes r as its configuration name; an unknown role fails.
func (r Role) MarshalText() ([]byte, error) {
	if r != RoleRead && r != RoleSend {
		return nil, fmt.Errorf("endpoint: unknown role %d", uint8(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText parses a configuration name ("read", "send").
func (r *Role) UnmarshalText(text []byte) error {
	v, err := parseRole(string(text))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// parseRole maps a configuration name ("read", "send") to its Role.
func parseRole(s string) (Role, error) {
	switch s {
	case "read":
		return RoleRead, nil
	case "send":
		return RoleSend, nil
	}
	return 0, fmt.Errorf("endpoint: unknown role %q (want read or send)", s)
}
