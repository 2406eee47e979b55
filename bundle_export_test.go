package solroute

import (
	"context"

	"github.com/solroute/solroute/internal/bundles"
)

// BundleStatuses is the resolver's bundle-status read over c's pool.
func BundleStatuses(ctx context.Context, c *Client, ids []string) ([]*bundles.Status, uint64, error) {
	return bundles.Statuses(ctx, c.engine, ids)
}

// BundleID is internal/bundles.ID, for the test that pins it to what the
// fake block engine answers.
var BundleID = bundles.ID
