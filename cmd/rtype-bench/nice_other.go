//go:build !linux

package main

import "errors"

// setNice is not done here: the load and the server share the machine as
// equals.
func setNice(int) error { return errors.New("thread priorities are only set on Linux") }

// niceOf returns 0.
func niceOf() int { return 0 }
