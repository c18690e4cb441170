package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"
)

// In the browser the settings live in the page's localStorage, under the
// key that stands for the file's path: a browser has no config directory.

// maxStored bounds what Load reads from localStorage (the settings are a
// few KiB; the store is the user's, but a page of the same origin could
// fill it).
const maxStored = 1 << 20

// DefaultPath is the localStorage key of the settings.
func DefaultPath() (string, error) { return "rtype.settings", nil }

// storage returns window.localStorage, or why there is none (storage
// disabled, a private window that refuses it).
func storage() (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the browser's storage is not available: %v", r)
		}
	}()
	v = js.Global().Get("localStorage")
	if v.IsUndefined() || v.IsNull() {
		return v, errors.New("the browser's storage is not available")
	}
	return v, nil
}

// Load reads the settings stored under key. None stored gives the
// defaults and no error; stored settings that do not parse give the
// defaults and an error saying why.
func Load(key string, c Checks) (Settings, error) {
	st, err := storage()
	if err != nil {
		return Default(), err
	}
	v := st.Call("getItem", key)
	if v.IsNull() || v.IsUndefined() {
		return Default(), nil
	}
	if v.Type() != js.TypeString {
		return Default(), errors.New("the settings stored in the browser are not text, using the defaults")
	}
	// A string is no object: its length is the Go string's (Length
	// panics on it). The browser bounds its storage.
	b := []byte(v.String())
	if len(b) > maxStored {
		return Default(), fmt.Errorf("the settings stored in the browser are too large (%d bytes), using the defaults", len(b))
	}
	return decode(b, "stored in the browser", c)
}

// Save stores s under key.
func Save(key string, s Settings) (err error) {
	st, err := storage()
	if err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	defer func() {
		if r := recover(); r != nil { // QuotaExceededError
			err = fmt.Errorf("the browser refused to store the settings: %v", r)
		}
	}()
	st.Call("setItem", key, string(b))
	return nil
}
