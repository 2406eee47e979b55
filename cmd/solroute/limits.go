package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/redislimit"
)

// client is a solroute.Client with the shared limiter its document's
// [limits] asked for (nil for local buckets). Close closes the client,
// then the limiter.
type client struct {
	*solroute.Client
	limiter *redislimit.Limiter
}

// Close closes the client, then its limiter.
func (c *client) Close() error {
	err := c.Client.Close()
	if c.limiter != nil {
		err = errors.Join(err, c.limiter.Close())
	}
	return err
}

// fromDocument is solroute.FromDocument with the shared limiter a
// [limits] backend = "redis" asks for, built from the document on h's
// clock and logger: the library links no Redis client, the command does
// (plans/013-shared-limits.md). Wrong credentials or database stop it
// with an error that quotes no part of the URL; a Redis that cannot be
// reached does not (the limiter starts on its fallback).
func fromDocument(cfg *config.Document, h solroute.Hooks) (*client, error) {
	var lim *redislimit.Limiter
	if cfg.Limits.Backend == config.BackendRedis {
		var err error
		lim, err = redislimit.New(context.Background(), cfg.Limits, redislimit.Options{Clock: h.Clock, Logger: h.Logger})
		if err != nil {
			return nil, fmt.Errorf("[limits] %w", err)
		}
		h.Limits = lim
	}
	c, err := solroute.FromDocument(cfg, h)
	if err != nil {
		if lim != nil {
			_ = lim.Close()
		}
		return nil, err
	}
	return &client{Client: c, limiter: lim}, nil
}
